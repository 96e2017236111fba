/* sgc_gc_old.c - the old generation (size-segregated blocks) and the large-object space.
 *
 * Old objects never move.  Each size class owns a list of 128 KiB blocks cut
 * into equal slots, a free list threaded through freed slots, and one block
 * it bump-allocates fresh slots from.  Blocks are carved from 2 MiB chunks
 * mapped with mmap and aligned to their size, so the block of any slot is
 * found by masking its address (the verifier relies on that).  A sweep that
 * finds a block empty gives it back: to a small pool of spare blocks, or to
 * the kernel (munmap) when the pool is full, so the heap shrinks with the
 * live data.  Large objects get their chunks from the large-object space
 * (sgc_los.c); this file frees them there.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "sgc_gc.h"

#define CHUNK_BLOCKS 16
#define POOL_MAX 32 /* spare blocks kept mapped (4 MiB) */
_Static_assert(CHUNK_BLOCKS *SGC_BLOCK_BYTES == SGC_HUGE_PAGE_BYTES, "a chunk is one huge page");

/* ---- Size classes -------------------------------------------------------- */

/* 16..128 in steps of 8, then four steps per power of two up to 8192: at most
 * 25% of a slot is padding above 128 bytes, none below. */
uint32_t sgc__class_bytes[SGC_NCLASSES];
uint8_t sgc__class_of[SGC_LARGE_MIN / 8 + 1];
sgc_size_class sgc__classes[SGC_NCLASSES];
static sgc_block *pool; /* spare blocks, linked by next */
static size_t npool;

sgc_large *sgc__young_large;
sgc_large *sgc__old_large;
uint64_t sgc__young_large_bytes;
uint64_t sgc__old_bytes;
uint64_t sgc__large_bytes;
uint64_t sgc__old_mapped;

void sgc__oom(const char *what, size_t bytes) {
    fprintf(stderr,
            "freecheck: out of memory: could not get %zu bytes for %s "
            "(heap in use: %llu bytes old generation, %llu bytes large objects)\n",
            bytes, what, (unsigned long long)sgc__old_bytes, (unsigned long long)sgc__large_bytes);
    /* Possibly in the middle of a collection: the heap may be inconsistent,
     * so no exit handlers (which would write the profile and stats record
     * from it); a failure, not a crash, so no abort either. */
    fflush(NULL);
    _exit(1);
}

void sgc__old_init(void) {
    uint32_t n = 0;
    for (uint32_t s = 16; s <= 128; s += 8)
        sgc__class_bytes[n++] = s;
    for (uint32_t p = 128; p < 8192; p *= 2)
        for (uint32_t k = 1; k <= 4; k++)
            sgc__class_bytes[n++] = p + k * (p / 4);
    if (n != SGC_NCLASSES)
        abort(); /* the table above and SGC_NCLASSES disagree: a build error */
    uint32_t c = 0;
    for (size_t w = 0; w <= SGC_LARGE_MIN / 8; w++) {
        size_t f = w * 8;
        while (sgc__class_bytes[c] < f)
            c++;
        sgc__class_of[w] = (uint8_t)c;
    }
}

size_t sgc__old_slot_bytes(size_t footprint) { return sgc__class_bytes[sgc__class_of[footprint / 8]]; }

/* ---- Heap mappings and huge pages ------------------------------------------ */

int sgc__hugepages_in_effect;
const char *sgc__thp_enabled_path = "/sys/kernel/mm/transparent_hugepage/enabled";

/* Huge pages were asked for and cannot be had: say so once, go on with
 * normal pages (the program's results do not depend on them). */
static void hugepages_refused(const char *why) {
    sgc__hugepages_in_effect = 0;
    fprintf(stderr,
            "freecheck: SGC_HUGEPAGES=1: %s; the heap stays on normal pages (stats key hugepages_in_effect 0)\n", why);
}

void sgc__hugepages_init(void) {
    sgc__hugepages_in_effect = 0;
    if (!sgc__settings.hugepages)
        return;
    char line[256] = "", why[512];
    FILE *f = fopen(sgc__thp_enabled_path, "r");
    if (f == NULL) {
        snprintf(why, sizeof why, "this system has no transparent huge pages (%s: %s)", sgc__thp_enabled_path,
                 strerror(errno));
        hugepages_refused(why);
        return;
    }
    if (fgets(line, sizeof line, f) == NULL)
        line[0] = '\0';
    fclose(f);
    line[strcspn(line, "\n")] = '\0';
    /* The kernel marks the mode in force with brackets: "always [madvise] never". */
    if (strstr(line, "[always]") == NULL && strstr(line, "[madvise]") == NULL) {
        snprintf(why, sizeof why, "transparent huge pages are off on this system (%s says \"%s\")",
                 sgc__thp_enabled_path, line);
        hugepages_refused(why);
        return;
    }
    sgc__hugepages_in_effect = 1;
}

char *sgc__map_aligned(size_t len, size_t align) {
    size_t want = len + align;
    char *m = mmap(NULL, want, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED)
        return NULL;
    char *a = (char *)(((uintptr_t)m + align - 1) & ~(uintptr_t)(align - 1));
    /* Trim the unaligned head and the tail so only [a, a + len) stays mapped. */
    if (a > m)
        munmap(m, (size_t)(a - m));
    char *tail = a + len;
    if (tail < m + want)
        munmap(tail, (size_t)(m + want - tail));
    if (sgc__hugepages_in_effect && madvise(a, len, MADV_HUGEPAGE) != 0) {
        char why[256];
        snprintf(why, sizeof why, "madvise(MADV_HUGEPAGE) refused %zu bytes of heap (%s)", len, strerror(errno));
        hugepages_refused(why);
    }
    return a;
}

/* Takes a block from the pool, mapping a new chunk if the pool is empty.
 * A chunk is 2 MiB: aligned to a block, or to a huge page while huge pages
 * are in effect (so that one huge page can back the whole chunk). */
static sgc_block *block_get(void) {
    if (pool == NULL) {
        size_t len = CHUNK_BLOCKS * SGC_BLOCK_BYTES;
        size_t align = sgc__hugepages_in_effect ? SGC_HUGE_PAGE_BYTES : SGC_BLOCK_BYTES;
        char *a = sgc__map_aligned(len, align);
        if (a == NULL)
            sgc__oom("old-generation blocks", len + align);
        if (sgc__settings.poison)
            memset(a, SGC_POISON_BYTE, len); /* as a block given back is (block_put) */
        for (int i = CHUNK_BLOCKS - 1; i >= 0; i--) {
            sgc_block *b = (sgc_block *)(a + (size_t)i * SGC_BLOCK_BYTES);
            b->next = pool;
            pool = b;
            npool++;
        }
        sgc__old_mapped += CHUNK_BLOCKS * SGC_BLOCK_BYTES;
    }
    sgc_block *b = pool;
    pool = b->next;
    npool--;
    if (sgc__settings.poison) {
        const unsigned char *p = (const unsigned char *)b;
        for (size_t i = sizeof b->next; i < SGC_BLOCK_BYTES; i++)
            if (p[i] != SGC_POISON_BYTE)
                sgc__misuse("a freed object was written after it died: byte %zu of a freed old-generation block %p is "
                            "%#04x, not the poison %#04x (SGC_POISON); a pointer kept across a collection",
                            i, (void *)b, p[i], SGC_POISON_BYTE);
    }
    return b;
}

/* Gives an empty block back: to the pool, or to the kernel if the pool is full. */
static void block_put(sgc_block *b) {
    if (npool < POOL_MAX) {
        /* SGC_POISON: all but the pool's link, checked when it is taken. */
        if (sgc__settings.poison)
            memset((char *)b + sizeof b->next, SGC_POISON_BYTE, SGC_BLOCK_BYTES - sizeof b->next);
        b->next = pool;
        pool = b;
        npool++;
    } else {
        munmap(b, SGC_BLOCK_BYTES);
        sgc__old_mapped -= SGC_BLOCK_BYTES;
    }
}

/* The free list and the fresh block are both exhausted: start a new block. */
char *sgc__old_alloc_refill(uint32_t cls) {
    sgc_size_class *c = &sgc__classes[cls];
    sgc_block *b = c->fresh;
    if (b == NULL || b->bump == b->nslots) {
        b = block_get();
        b->cls = cls;
        b->slot_bytes = sgc__class_bytes[cls];
        b->nslots = (uint32_t)((SGC_BLOCK_BYTES - SGC_BLOCK_HEAD) / sgc__class_bytes[cls]);
        b->bump = 0;
        b->next = c->blocks;
        c->blocks = b;
        c->fresh = b;
    }
    return SGC_BLOCK_SLOT(b, b->bump++);
}

void sgc__old_each_block(void (*fn)(sgc_block *, void *), void *arg) {
    for (uint32_t c = 0; c < SGC_NCLASSES; c++)
        for (sgc_block *b = sgc__classes[c].blocks; b != NULL; b = b->next)
            fn(b, arg);
}

/* Frees one large object, old or young (the caller unlinks it). */
static void large_free(sgc_large *l) {
    sgc__large_bytes -= l->footprint;
    size_t total = sizeof(sgc_large) + l->footprint - SGC_HEADER_BYTES;
    sgc__los_free(l, total); /* which poisons it with SGC_POISON */
}

/* SGC_POISON: a slot free since an earlier sweep must still be poison
 * beyond its header and link words; a byte that is not was written through
 * a pointer to the object freed there. */
static void check_freed_slot(const char *s, size_t slot) {
    for (size_t i = 16; i < slot; i++)
        if ((unsigned char)s[i] != SGC_POISON_BYTE)
            sgc__misuse("a freed object was written after it died: byte %zu of the old slot %p (%zu bytes, freed by a "
                        "major collection) is %#04x, not the poison %#04x (SGC_POISON); a pointer kept across a "
                        "collection",
                        i, (const void *)s, slot, (unsigned char)s[i], SGC_POISON_BYTE);
}

void sgc__old_sweep(void) {
    int poison = sgc__settings.poison;
    for (uint32_t ci = 0; ci < SGC_NCLASSES; ci++) {
        sgc_size_class *c = &sgc__classes[ci];
        size_t slot = sgc__class_bytes[ci];
        char *head = NULL, **tail = &head; /* free list in address order per block */
        sgc_block **link = &c->blocks;
        sgc_block *b;
        while ((b = *link) != NULL) {
            char *block_head = NULL, **block_tail = &block_head;
            uint32_t live = 0;
            for (uint32_t i = 0; i < b->bump; i++) {
                char *s = SGC_BLOCK_SLOT(b, i);
                uint64_t h = *(uint64_t *)s;
                if (h != 0 && (h & SGC_F_MARKED)) {
                    *(uint64_t *)s = h & ~(uint64_t)SGC_F_MARKED;
                    live++;
                    continue;
                }
                if (h != 0) {
                    sgc__old_bytes -= slot;
                    if (poison)
                        memset(s + 16, SGC_POISON_BYTE, slot - 16);
                    *(uint64_t *)s = 0;
                } else if (poison) {
                    check_freed_slot(s, slot);
                }
                *block_tail = s;
                block_tail = (char **)(s + 8);
            }
            if (live == 0) {
                /* Empty: unlink and release; its slots join no free list. */
                *link = b->next;
                if (c->fresh == b)
                    c->fresh = NULL;
                block_put(b);
                continue;
            }
            if (block_head != NULL) {
                *tail = block_head;
                tail = block_tail;
            }
            link = &b->next;
        }
        *tail = NULL;
        c->free = head;
    }
    /* Large objects: the old list only (a major collection runs right after
     * a minor one, so no large object is young now). */
    sgc_large *l = sgc__old_large;
    while (l != NULL) {
        sgc_large *next = l->next;
        if (l->header & SGC_F_MARKED) {
            l->header &= ~(uint64_t)SGC_F_MARKED;
        } else {
            if (l->prev)
                l->prev->next = l->next;
            else
                sgc__old_large = l->next;
            if (l->next)
                l->next->prev = l->prev;
            large_free(l);
        }
        l = next;
    }
}

uint64_t sgc__large_minor_sweep(uint64_t *promoted_objects) {
    uint64_t bytes = 0, objects = 0;
    sgc_large *l = sgc__young_large;
    while (l != NULL) {
        sgc_large *next = l->next;
        if (l->header & SGC_F_MARKED) {
            l->header = (l->header & ~(uint64_t)(SGC_F_MARKED | SGC_F_YOUNG_LARGE)) | SGC_F_TRACK_YOUNG;
            l->prev = NULL;
            l->next = sgc__old_large;
            if (sgc__old_large)
                sgc__old_large->prev = l;
            sgc__old_large = l;
            bytes += l->footprint;
            objects++;
        } else {
            large_free(l);
        }
        l = next;
    }
    sgc__young_large = NULL;
    sgc__young_large_bytes = 0;
    *promoted_objects = objects;
    return bytes;
}
