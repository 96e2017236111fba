/* sgc_gc.h - the collector's internals, shared by its own files only
 * (sgc_gc.c: types, roots, minor/major collection, stats; sgc_gc_old.c: the
 * old generation and the large-object space; sgc_gc_verify.c: the verifier).
 *
 * Spaces.  Every object lives in exactly one of:
 *  - the nursery [sgc_nursery.start, sgc_nursery.free): young, moved by the
 *    next minor collection (copied into the old generation) or dead;
 *  - the old generation: 128 KiB blocks, each carved into equal slots of one
 *    size class; never moved; freed by the sweep of a major collection;
 *  - the large-object space (sgc_los.c): one page-aligned chunk per object,
 *    mapped by the runtime itself (never malloc), freed chunks of up to
 *    SGC_LOS_CLASSES pages kept on free lists by page count (exact up to 64
 *    pages, then in steps of 16) and reused (zeroed as far as the new
 *    object reaches), larger ones and those beyond SGC_LOS_CACHE_MAX
 *    unmapped at once.  A large object
 *    is young (SGC_F_YOUNG_LARGE) from its allocation to the next minor
 *    collection, which either promotes it (clears the flag) or frees it.
 *
 * Header flag bits (bits 0..7 of the header word; 0x01 and 0x02 are sgc.h's):
 *  - SGC_F_MARKED: set on old and large objects during a major collection
 *    (reached), and on young large objects during a minor collection
 *    (reached, so they survive).  Clear whenever no collection is running.
 *  - SGC_F_LARGE: the object lives in the large-object space.  Permanent.
 *  - SGC_F_YOUNG_LARGE: a large object allocated since the last minor
 *    collection.  Young objects (nursery or young large) never carry
 *    SGC_F_TRACK_YOUNG.
 *  - SGC_F_TRACK_YOUNG (sgc.h): an old or promoted large object that is NOT
 *    in the remembered set.  An old object is in the remembered set exactly
 *    when it lacks this flag; after each minor collection the remembered set
 *    is empty and every old object carries the flag again.
 *  Nursery objects carry no flags until they are forwarded; a forwarded
 *  nursery header is (new address | SGC_F_FORWARDED).  A forwarded object
 *  of footprint >= 16 also has its first payload word replaced by
 *  SGC_FWD_SIZE_WORD(footprint), so the walk that counts nursery objects
 *  can step over it without reading the copy.  That word has bit 7 set and
 *  bit 0 clear, which neither a nursery header (flags 0) nor a forwarded
 *  header (bit 0 set) has; a footprint-8 object has no payload, so the word
 *  after its header is the next object's header, never of that form.
 *
 * Old-generation slots.  A slot whose header word is 0 is free (type ids are
 * >= 1, so a live header is never 0); its second word links the size class's
 * free list.  Slots at or beyond a block's bump index have never been used
 * and are not looked at.  Slots are at least 16 bytes, so every free slot has
 * room for its link.
 */
#ifndef SGC_GC_H
#define SGC_GC_H

#include <stddef.h>
#include <stdint.h>

#include "sgc_internal.h"

#define SGC_F_MARKED 0x04u
#define SGC_F_LARGE 0x08u
#define SGC_F_YOUNG_LARGE 0x10u
#define SGC_F_ALL 0xffu

#define SGC_FWD_SIZE_WORD(footprint) (((uint64_t)(footprint) << 8) | 0x80u)
#define SGC_FWD_SIZE_IS(w) (((w)&0x81u) == 0x80u)
#define SGC_FWD_SIZE_OF(w) ((size_t)((w) >> 8))

/* Byte pattern written over evacuated nursery space and freed old slots
 * when SGC_POISON=1: a pointer read from it is 0xdbdbdbdbdbdbdbdb, never a
 * valid address, and a header read from it names no registered type. */
#define SGC_POISON_BYTE 0xdb

/* The heap-size floor below which no major collection is triggered
 * automatically: small programs never pay for one. */
#define SGC_MAJOR_FLOOR ((uint64_t)4 << 20)

/* ---- Types (sgc_gc.c) ---------------------------------------------------- */

typedef struct sgc_gc_type {
    sgc_type t;           /* as registered (name pointer kept, not copied) */
    uint32_t fixed_words; /* fixed_size / 8, rounded up */
    uint8_t has_ptrs;     /* any pointer field at all (fixed map or var part) */
} sgc_gc_type;

extern sgc_gc_type sgc__gc_types[SGC_MAX_TYPES + 1];
extern uint32_t sgc__gc_ntypes; /* ids 1..sgc__gc_ntypes are registered */
/* Does header h name a registered type (one compare)?  The collector checks
 * it before it follows a reference, so that a pointer to what is not an
 * object is refused instead of copied or marked. */
/* Bits 8..31 are the type id: id in 1..ntypes exactly when the low word
 * minus 0x100 (id 1, any flags) is below ntypes << 8, whatever the flags
 * (bits 0..7): one subtraction and one compare. */
#define SGC_TID_OK(h) ((uint32_t)(h)-0x100u < sgc__gc_ntypes << 8)

/* Calls VISIT(slot) for every pointer field of obj (slot is an sgc_obj *).
 * Pointer fields are the fixed part's ptr_map words and, for SGC_VAR_PTRS,
 * every word after the fixed part; all clipped to the payload, so an object
 * allocated with a payload shorter than its type's fixed part is safe. */
#define SGC_GC_FOR_EACH_FIELD(obj, slot, VISIT)                                   \
    do {                                                                          \
        uint64_t fe_h_ = SGC_HDR(obj);                                            \
        const sgc_gc_type *fe_t_ = &sgc__gc_types[(fe_h_ >> 8) & 0xffffffu];      \
        size_t fe_words_ = (size_t)(fe_h_ >> 32);                                 \
        sgc_obj *fe_f_ = (sgc_obj *)(obj);                                        \
        uint64_t fe_map_ = fe_t_->t.ptr_map;                                      \
        if (fe_words_ < 64)                                                       \
            fe_map_ &= ((uint64_t)1 << fe_words_) - 1;                            \
        while (fe_map_) {                                                         \
            sgc_obj *slot = &fe_f_[__builtin_ctzll(fe_map_)];                     \
            fe_map_ &= fe_map_ - 1;                                               \
            VISIT;                                                                \
        }                                                                         \
        if (fe_t_->t.var == SGC_VAR_PTRS)                                         \
            for (size_t fe_i_ = fe_t_->fixed_words; fe_i_ < fe_words_; fe_i_++) { \
                sgc_obj *slot = &fe_f_[fe_i_];                                    \
                VISIT;                                                            \
            }                                                                     \
    } while (0)

/* ---- Roots and the remembered set (sgc_gc.c) ---------------------------- */

extern void ***sgc__globals; /* addresses of registered global sgc_obj variables */
extern size_t sgc__nglobals;
extern sgc_obj *sgc__remset; /* old objects that may hold young pointers */
extern size_t sgc__nremset;

/* ---- Old generation (sgc_gc_old.c) -------------------------------------- */

#define SGC_BLOCK_BYTES ((size_t)128 << 10)
#define SGC_BLOCK_HEAD 64 /* bytes before the first slot */

typedef struct sgc_block {
    struct sgc_block *next; /* next block of the same size class (or in the pool) */
    uint32_t cls;           /* size-class index */
    uint32_t slot_bytes;    /* bytes per slot */
    uint32_t nslots;        /* slots that fit in the block */
    uint32_t bump;          /* slots [0, bump) have been handed out at least once */
} sgc_block;

#define SGC_BLOCK_SLOT(b, i) ((char *)(b) + SGC_BLOCK_HEAD + (size_t)(i) * (b)->slot_bytes)
#define SGC_BLOCK_OF(p) ((sgc_block *)((uintptr_t)(p) & ~(uintptr_t)(SGC_BLOCK_BYTES - 1)))

/* A large object: this record, then the object's header word, then its payload. */
typedef struct sgc_large {
    struct sgc_large *next; /* next in its list (young or old) */
    struct sgc_large *prev; /* previous in the old list (unused while young) */
    size_t footprint;       /* SGC_FOOTPRINT of the payload */
    uint64_t header;        /* the object header: the payload follows */
} sgc_large;

#define SGC_LARGE_OF(obj) ((sgc_large *)((char *)(obj)-offsetof(sgc_large, header) - SGC_HEADER_BYTES))
#define SGC_LARGE_OBJ(l) ((sgc_obj)((char *)(l) + sizeof(sgc_large)))

extern sgc_large *sgc__young_large;     /* young large objects, newest first */
extern sgc_large *sgc__old_large;       /* promoted large objects (doubly linked) */
extern uint64_t sgc__young_large_bytes; /* footprints on the young list */
extern uint64_t sgc__old_bytes;         /* slot bytes in use in the old generation */
extern uint64_t sgc__large_bytes;       /* footprints of all large objects, young and old */
extern uint64_t sgc__old_mapped;        /* bytes of blocks mapped (in classes or the pool) */

/* A size class: its blocks, the block it bump-allocates fresh slots from,
 * and the free list of freed slots (slot addresses linked by word 1). */
typedef struct sgc_size_class {
    sgc_block *blocks; /* every block of the class */
    sgc_block *fresh;  /* block with never-used slots, or NULL */
    char *free;        /* free list head, or NULL */
} sgc_size_class;

#define SGC_NCLASSES 39
extern uint32_t sgc__class_bytes[SGC_NCLASSES];      /* slot bytes per class */
extern uint8_t sgc__class_of[SGC_LARGE_MIN / 8 + 1]; /* class of footprint f at [f / 8] */
extern sgc_size_class sgc__classes[SGC_NCLASSES];

void sgc__old_init(void);
/* The slow part of sgc__old_alloc: a fresh slot from the class's fresh
 * block, or from a new block.  Out of memory: message and abort. */
__attribute__((noinline)) char *sgc__old_alloc_refill(uint32_t cls);

/* Returns the header address of a free slot for an object of this footprint
 * (< SGC_LARGE_MIN); the caller writes the whole footprint.  Inline because a
 * minor collection calls it once per surviving object. */
static inline char *sgc__old_alloc(size_t footprint) {
    uint32_t cls = sgc__class_of[footprint / 8];
    sgc_size_class *c = &sgc__classes[cls];
    sgc__old_bytes += sgc__class_bytes[cls];
    char *s = c->free;
    if (s != NULL) {
        c->free = *(char **)(s + 8);
        return s;
    }
    sgc_block *b = c->fresh;
    if (b != NULL && b->bump < b->nslots)
        return SGC_BLOCK_SLOT(b, b->bump++);
    return sgc__old_alloc_refill(cls);
}
/* Frees every unmarked old slot and large object, clears the marks of the
 * rest, rebuilds the free lists and releases empty blocks. */
void sgc__old_sweep(void);
/* Young large objects: promotes the marked ones (clearing the mark and
 * setting SGC_F_TRACK_YOUNG), frees the others.  Returns bytes promoted. */
uint64_t sgc__large_minor_sweep(uint64_t *promoted_objects);
/* Calls fn(block) for every block in use (not the pool). */
void sgc__old_each_block(void (*fn)(sgc_block *, void *), void *arg);
/* Slot size of the size class an object of this footprint goes to. */
size_t sgc__old_slot_bytes(size_t footprint);

/* ---- Large-object space (sgc_los.c) -------------------------------------- */

/* Chunks of up to this many pages (32 MiB of 4 KiB pages) are kept for
 * reuse. */
#define SGC_LOS_CLASSES 8192
/* At most this many bytes of free chunks are kept; beyond, they are unmapped. */
#define SGC_LOS_CACHE_MAX ((uint64_t)64 << 20)
/* A zeroed, page-aligned chunk of at least bytes, or NULL if the system
 * refused. */
void *sgc__los_alloc(size_t bytes);
/* Gives back a chunk sgc__los_alloc returned for the same bytes. */
void sgc__los_free(void *p, size_t bytes);
uint64_t sgc__los_mapped(void); /* bytes mapped: in use and cached */
uint64_t sgc__los_cached(void); /* bytes of free chunks kept for reuse */

/* ---- Heap mappings and huge pages (sgc_gc_old.c) ------------------------- */

/* SGC_HUGEPAGES (docs/RUNTIME.md, "Huge pages").  The nursery mapping and
 * every old-generation chunk are then 2 MiB-aligned, a whole number of
 * 2 MiB long, and advised MADV_HUGEPAGE; large objects are not.
 * Invariant: sgc__hugepages_in_effect is 1 exactly when the setting is on,
 * the system offers transparent huge pages (sgc__thp_enabled_path says
 * always or madvise) and every madvise so far succeeded.  The first time it
 * falls to 0 with the setting on, one line on stderr says why; the stats
 * record carries it (hugepages_in_effect). */
#define SGC_HUGE_PAGE_BYTES ((size_t)2 << 20)
extern int sgc__hugepages_in_effect;
/* The file saying the system's THP mode; a test may point it elsewhere
 * before the runtime starts. */
extern const char *sgc__thp_enabled_path;
/* At heap set-up, after the settings: decides sgc__hugepages_in_effect from
 * the setting and sgc__thp_enabled_path. */
void sgc__hugepages_init(void);
/* Maps len bytes (a multiple of align; align a power of two, at least a
 * page) at an address that is a multiple of align: maps len + align and
 * unmaps the unaligned head and the tail, so exactly [result, result + len)
 * stays mapped.  Advises MADV_HUGEPAGE on it while huge pages are in
 * effect.  NULL (errno set) if the system refuses the mapping. */
char *sgc__map_aligned(size_t len, size_t align);

/* Out of memory (the system refused): prints what could not be had and
 * exits with status 1 at once (_exit: no stats record, no profile). */
__attribute__((noreturn)) void sgc__oom(const char *what, size_t bytes);

/* ---- Verifier (sgc_gc_verify.c) ----------------------------------------- */

/* Where the verifier is being run from, for its messages. */
void sgc__verify(const char *when);

#endif /* SGC_GC_H */
