/* sgc_gc_verify.c - the heap verifier: checks every reference and the remembered set.
 *
 * What it checks, outside collections (SGC_VERIFY=1 runs it before and after
 * each collection; sgc_verify_heap runs it on request):
 *  - every object in every space has a registered type, the flags its space
 *    allows, and a size that fits where it lives;
 *  - every root (frame slot, global) and every pointer field is NULL or the
 *    address of a live object: a nursery object below free, a young or old
 *    large object, or an allocated old-generation slot of the right class;
 *  - the remembered set is complete and exact: an old object lacks
 *    SGC_F_TRACK_YOUNG exactly when it is in the set, and every old object
 *    holding a pointer to a young object (nursery or young large) is in it.
 * The first violation is printed with the object, field and target involved,
 * and the process aborts (a corrupt heap must not go on to record results).
 * The cost is linear in the heap plus a sort of the blocks, large objects and
 * remembered set; it is a debugging aid, never on by default.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sgc_gc.h"

enum space { SP_NONE = 0, SP_NURSERY, SP_YOUNG_LARGE, SP_OLD, SP_OLD_LARGE };
static const char *const space_name[] = {"nowhere", "nursery", "young large space", "old generation",
                                         "large-object space"};

typedef struct vstate {
    const char *when;
    uintptr_t *blocks; /* sorted block addresses */
    size_t nblocks, blocks_cap;
    uintptr_t *large; /* sorted large object addresses (payload) */
    size_t nlarge;
    uintptr_t *remset; /* sorted remembered set */
    size_t nremset;
    uint8_t *starts; /* one bit per nursery word: an object's payload starts there */
} vstate;

__attribute__((noreturn, format(printf, 2, 3))) static void fail(const vstate *v, const char *fmt, ...);

static void fail(const vstate *v, const char *fmt, ...) {
    va_list ap;
    fprintf(stderr, "freecheck: heap verifier (%s): ", v->when);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    abort();
}

static int cmp_uptr(const void *a, const void *b) {
    uintptr_t x = *(const uintptr_t *)a, y = *(const uintptr_t *)b;
    return x < y ? -1 : x > y;
}

static int contains(const uintptr_t *arr, size_t n, uintptr_t x) {
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (arr[mid] == x)
            return 1;
        if (arr[mid] < x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return 0;
}

static void add_block(sgc_block *b, void *arg) {
    vstate *v = arg;
    if (v->nblocks == v->blocks_cap) {
        v->blocks_cap = v->blocks_cap ? 2 * v->blocks_cap : 64;
        v->blocks = realloc(v->blocks, v->blocks_cap * sizeof(uintptr_t));
        if (v->blocks == NULL)
            sgc__oom("the heap verifier", v->blocks_cap * sizeof(uintptr_t));
    }
    v->blocks[v->nblocks++] = (uintptr_t)b;
}

/* Which space holds a live object at p, or SP_NONE.  Never dereferences p
 * before it is known to be inside the heap. */
static enum space space_of(const vstate *v, const void *p) {
    uintptr_t a = (uintptr_t)p;
    if (a == 0 || (a & 7) != 0)
        return SP_NONE;
    if ((const char *)p >= sgc_nursery.start + SGC_HEADER_BYTES && (const char *)p <= sgc_nursery.free) {
        size_t w = (size_t)((const char *)p - sgc_nursery.start) / 8;
        return (v->starts[w / 8] >> (w % 8)) & 1 ? SP_NURSERY : SP_NONE;
    }
    if (contains(v->large, v->nlarge, a))
        return (SGC_HDR(p) & SGC_F_YOUNG_LARGE) ? SP_YOUNG_LARGE : SP_OLD_LARGE;
    sgc_block *b = SGC_BLOCK_OF(a - SGC_HEADER_BYTES);
    if (!contains(v->blocks, v->nblocks, (uintptr_t)b))
        return SP_NONE;
    uintptr_t first = (uintptr_t)SGC_BLOCK_SLOT(b, 0);
    uintptr_t slot = a - SGC_HEADER_BYTES;
    if (slot < first || (slot - first) % b->slot_bytes != 0 || (slot - first) / b->slot_bytes >= b->bump)
        return SP_NONE;
    if (*(const uint64_t *)slot == 0)
        return SP_NONE; /* a free slot: a dangling pointer */
    return SP_OLD;
}

/* Checks an object's header for its space. */
static void check_header(const vstate *v, sgc_obj o, enum space sp) {
    uint64_t h = SGC_HDR(o);
    uint32_t tid = (uint32_t)((h >> 8) & 0xffffffu);
    unsigned flags = (unsigned)(h & SGC_F_ALL);
    if (tid == 0 || tid > sgc__gc_ntypes)
        fail(v, "object %p in the %s has an unregistered type id %u (header %#llx)", o, space_name[sp], tid,
             (unsigned long long)h);
    unsigned allowed = 0;
    switch (sp) {
    case SP_NURSERY: allowed = 0; break;
    case SP_YOUNG_LARGE: allowed = SGC_F_LARGE | SGC_F_YOUNG_LARGE; break;
    case SP_OLD: allowed = SGC_F_TRACK_YOUNG; break;
    case SP_OLD_LARGE: allowed = SGC_F_LARGE | SGC_F_TRACK_YOUNG; break;
    default: break;
    }
    if ((flags & ~allowed) != 0 || ((sp == SP_YOUNG_LARGE || sp == SP_OLD_LARGE) && !(flags & SGC_F_LARGE)))
        fail(v, "object %p (type %s) in the %s has flags %#x, expected only %#x", o, sgc_type_name(tid), space_name[sp],
             flags, allowed);
    int in_remset = contains(v->remset, v->nremset, (uintptr_t)o);
    if (sp == SP_OLD || sp == SP_OLD_LARGE) {
        if (!(flags & SGC_F_TRACK_YOUNG) && !in_remset)
            fail(v, "old object %p (type %s) lacks SGC_F_TRACK_YOUNG but is not in the remembered set", o,
                 sgc_type_name(tid));
        if ((flags & SGC_F_TRACK_YOUNG) && in_remset)
            fail(v, "old object %p (type %s) is in the remembered set but still carries SGC_F_TRACK_YOUNG", o,
                 sgc_type_name(tid));
    } else if (in_remset) {
        fail(v, "young object %p (type %s) is in the remembered set", o, sgc_type_name(tid));
    }
}

/* Checks every pointer field of o (in space sp). */
static void check_fields(const vstate *v, sgc_obj o, enum space sp) {
    int old = sp == SP_OLD || sp == SP_OLD_LARGE;
    int remembered = old && !(SGC_HDR(o) & SGC_F_TRACK_YOUNG);
    SGC_GC_FOR_EACH_FIELD(o, s, {
        sgc_obj t = *s;
        if (t != NULL) {
            enum space ts = space_of(v, t);
            if (ts == SP_NONE)
                fail(v, "object %p (type %s, %s) word %zu points to %p, which is not a live object", o,
                     sgc_type_name(SGC_TYPE_OF(o)), space_name[sp], (size_t)(s - (sgc_obj *)o), t);
            if (old && !remembered && (ts == SP_NURSERY || ts == SP_YOUNG_LARGE))
                fail(v,
                     "remembered set incomplete: old object %p (type %s) word %zu points to young object %p "
                     "(type %s) but the object is not in the remembered set (missing write barrier?)",
                     o, sgc_type_name(SGC_TYPE_OF(o)), (size_t)(s - (sgc_obj *)o), t, sgc_type_name(SGC_TYPE_OF(t)));
        }
    });
}

static void check_block(sgc_block *b, void *arg) {
    const vstate *v = arg;
    if (b->slot_bytes < 16 || b->nslots == 0 || b->bump > b->nslots)
        fail(v, "old-generation block %p has a corrupt descriptor", (void *)b);
    for (uint32_t i = 0; i < b->bump; i++) {
        char *slot = SGC_BLOCK_SLOT(b, i);
        if (*(uint64_t *)slot == 0)
            continue;
        sgc_obj o = slot + SGC_HEADER_BYTES;
        check_header(v, o, SP_OLD);
        size_t fp = SGC_FOOTPRINT(SGC_PAYLOAD_BYTES(o));
        if (fp >= SGC_LARGE_MIN || sgc__old_slot_bytes(fp) != b->slot_bytes)
            fail(v, "old object %p (type %s) of %zu bytes sits in a slot of %u bytes", o, sgc_type_name(SGC_TYPE_OF(o)),
                 fp, b->slot_bytes);
        check_fields(v, o, SP_OLD);
    }
}

static void check_root(const vstate *v, void **slot, const char *what, const char *name, uint32_t i) {
    sgc_obj t = *(sgc_obj *)slot;
    if (t != NULL && space_of(v, t) == SP_NONE)
        fail(v, "%s %s root %u (at %p) holds %p, which is not a live object", what, name, i, (void *)slot, t);
}

void sgc__verify(const char *when) {
    vstate v;
    memset(&v, 0, sizeof v);
    v.when = when;
    sgc__old_each_block(add_block, &v);
    if (v.nblocks > 1) /* qsort must not get NULL, even with 0 elements (UBSan) */
        qsort(v.blocks, v.nblocks, sizeof(uintptr_t), cmp_uptr);

    size_t nl = 0;
    for (sgc_large *l = sgc__young_large; l; l = l->next)
        nl++;
    for (sgc_large *l = sgc__old_large; l; l = l->next)
        nl++;
    v.large = malloc((nl + 1) * sizeof(uintptr_t));
    v.remset = malloc((sgc__nremset + 1) * sizeof(uintptr_t));
    size_t nursery_words = (size_t)(sgc_nursery.end - sgc_nursery.start) / 8 + 1;
    v.starts = calloc(nursery_words / 8 + 1, 1);
    if (v.large == NULL || v.remset == NULL || v.starts == NULL)
        sgc__oom("the heap verifier", nursery_words / 8 + (nl + sgc__nremset) * sizeof(uintptr_t));
    for (sgc_large *l = sgc__young_large; l; l = l->next) {
        if (!(l->header & SGC_F_YOUNG_LARGE))
            fail(&v, "large object %p is on the young list without SGC_F_YOUNG_LARGE", SGC_LARGE_OBJ(l));
        v.large[v.nlarge++] = (uintptr_t)SGC_LARGE_OBJ(l);
    }
    for (sgc_large *l = sgc__old_large; l; l = l->next) {
        if (l->header & SGC_F_YOUNG_LARGE)
            fail(&v, "large object %p is on the old list with SGC_F_YOUNG_LARGE", SGC_LARGE_OBJ(l));
        if (l->next && l->next->prev != l)
            fail(&v, "old large-object list broken after %p", SGC_LARGE_OBJ(l));
        v.large[v.nlarge++] = (uintptr_t)SGC_LARGE_OBJ(l);
    }
    qsort(v.large, v.nlarge, sizeof(uintptr_t), cmp_uptr);
    for (size_t i = 0; i < sgc__nremset; i++)
        v.remset[i] = (uintptr_t)sgc__remset[i];
    v.nremset = sgc__nremset;
    qsort(v.remset, v.nremset, sizeof(uintptr_t), cmp_uptr);

    /* The nursery: a gap-free sequence of objects from start to free. */
    for (char *p = sgc_nursery.start; p < sgc_nursery.free;) {
        uint64_t h = *(uint64_t *)p;
        if (h == 0 || (h & SGC_F_ALL) != 0)
            fail(&v, "nursery word at offset %zu is not an object header (%#llx)", (size_t)(p - sgc_nursery.start),
                 (unsigned long long)h);
        size_t fp = SGC_HEADER_BYTES + ((size_t)(h >> 32) << 3);
        if (fp > (size_t)(sgc_nursery.free - p))
            fail(&v, "nursery object at offset %zu (%zu bytes) runs past free", (size_t)(p - sgc_nursery.start), fp);
        size_t w = (size_t)(p + SGC_HEADER_BYTES - sgc_nursery.start) / 8;
        v.starts[w / 8] |= (uint8_t)(1u << (w % 8));
        p += fp;
    }
    /* Objects, space by space. */
    for (char *p = sgc_nursery.start; p < sgc_nursery.free; p += SGC_FOOTPRINT(SGC_PAYLOAD_BYTES(p + 8))) {
        check_header(&v, p + 8, SP_NURSERY);
        check_fields(&v, p + 8, SP_NURSERY);
    }
    for (sgc_large *l = sgc__young_large; l; l = l->next) {
        check_header(&v, SGC_LARGE_OBJ(l), SP_YOUNG_LARGE);
        if (l->footprint != SGC_FOOTPRINT(SGC_PAYLOAD_BYTES(SGC_LARGE_OBJ(l))))
            fail(&v, "large object %p: recorded size and header disagree", SGC_LARGE_OBJ(l));
        check_fields(&v, SGC_LARGE_OBJ(l), SP_YOUNG_LARGE);
    }
    for (sgc_large *l = sgc__old_large; l; l = l->next) {
        check_header(&v, SGC_LARGE_OBJ(l), SP_OLD_LARGE);
        if (l->footprint != SGC_FOOTPRINT(SGC_PAYLOAD_BYTES(SGC_LARGE_OBJ(l))))
            fail(&v, "large object %p: recorded size and header disagree", SGC_LARGE_OBJ(l));
        check_fields(&v, SGC_LARGE_OBJ(l), SP_OLD_LARGE);
    }
    sgc__old_each_block(check_block, &v);
    /* The remembered set holds old objects only, each once. */
    for (size_t i = 0; i < v.nremset; i++) {
        enum space sp = space_of(&v, (sgc_obj)v.remset[i]);
        if (sp != SP_OLD && sp != SP_OLD_LARGE)
            fail(&v, "remembered-set entry %p is not an old object (it is in the %s)", (void *)v.remset[i],
                 space_name[sp]);
        if (i > 0 && v.remset[i] == v.remset[i - 1])
            fail(&v, "old object %p is in the remembered set twice", (void *)v.remset[i]);
    }
    /* Roots. */
    uint32_t depth = 0;
    for (sgc_frame *f = sgc_top; f != NULL; f = f->parent, depth++) {
        const char *fname = f->func && f->func->name ? f->func->name : "?";
        for (uint32_t i = 0; i < f->nroots; i++)
            if (f->roots[i] != NULL)
                check_root(&v, f->roots[i], "frame", fname, i);
        if (depth > 100000000u)
            fail(&v, "the shadow stack has a cycle");
    }
    for (size_t i = 0; i < sgc__nglobals; i++)
        check_root(&v, sgc__globals[i], "global", "", (uint32_t)i);

    free(v.blocks);
    free(v.large);
    free(v.remset);
    free(v.starts);
}
