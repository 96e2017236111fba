/* sgc_alloc.c - the one allocation slow path, and the nursery limit. */
#include <string.h>

#include "sgc_gc.h"
#include "sgc_sample.h"
#include "sgc_timer.h"

/* Stress mode: allocations left until the next forced minor collection. */
static uint64_t stress_countdown;

/* Zeroes the nursery ahead of free, in SGC_ZERO_CHUNK steps, until an object
 * of size fits (the caller made sure it fits before the end).  First counts
 * the objects allocated since the last call: they were written moments ago
 * and are still in the cache, and the collection then has only the last
 * chunk's objects left to count.  The chunk is zeroed just before the
 * program writes it, so it is in the L1 cache when it does, instead of a
 * whole nursery zeroed at the collection and read back from L2 or memory. */
static void zero_ahead(size_t size) {
    char *free = sgc_nursery.free;
    sgc__stats.nursery_objects += sgc__nursery_count(sgc__nursery_counted, free);
    sgc__nursery_counted = free;
    size_t want = (size_t)(free + size - sgc_nursery.start);
    size_t upto = (want + SGC_ZERO_CHUNK - 1) / SGC_ZERO_CHUNK * SGC_ZERO_CHUNK;
    char *z = sgc_nursery.start + upto;
    if (z > sgc_nursery.end)
        z = sgc_nursery.end;
    if (z > sgc__nursery_zeroed) {
        memset(sgc__nursery_zeroed, 0, (size_t)(z - sgc__nursery_zeroed));
        sgc__nursery_zeroed = z;
    }
    SGC_ASSERT((size_t)(sgc__nursery_zeroed - free) >= size,
               "zero_ahead's caller made sure the object fits before the end");
}

/* The limit's invariants (sgc_internal.h, sgc_sample.h), checked where it
 * is set: free <= limit <= the zeroed end <= the nursery's end, and while
 * sampling the fast path stops short of the next sample point. */
static inline void check_limit(void) {
    SGC_ASSERT(sgc_nursery.free <= sgc_nursery.limit && sgc_nursery.limit <= sgc__nursery_zeroed &&
                   sgc__nursery_zeroed <= sgc_nursery.end,
               "free <= limit <= the zeroed end <= end: the fast path hands out only zeroed nursery memory");
    SGC_ASSERT(sgc__sampler.period == 0 || (sgc__sampler.remaining >= 1 &&
                                            (uint64_t)(sgc_nursery.limit - sgc_nursery.free) < sgc__sampler.remaining),
               "limit - free < remaining, remaining >= 1: an allocation that reaches the next sample point fails "
               "the fast path");
}

/* The limit is the nearest of: the end of the zeroed part of the nursery
 * (sgc_internal.h); the byte just before the next sample point (an
 * allocation reaching the point must fail the fast path's "size <= limit -
 * free", so limit = free + remaining - 1); free itself in stress mode and
 * after shutdown (every allocation comes here).  The caller has accounted
 * the nursery's bytes up to free. */
static inline void set_limit(char *free) {
    char *limit = sgc__nursery_zeroed;
    if (__builtin_expect(sgc__settings.stress_every != 0 || sgc__shut_down, 0))
        limit = free;
    else if (sgc__sampler.period && sgc__sampler.remaining - 1 < (uint64_t)(limit - free))
        limit = free + (sgc__sampler.remaining - 1);
    sgc_nursery.limit = limit;
    check_limit();
}

/* Accounts the fast path's bytes first, so that the distance the limit is
 * computed from is current. */
void sgc__alloc_reset_limit(void) {
    sgc__sample_sync();
    set_limit(sgc_nursery.free);
}

/* What is wrong with an allocation the checks below refused. */
__attribute__((noinline, noreturn, cold)) static void refuse(uint32_t tid) {
    if (sgc__shut_down)
        sgc__misuse("sgc_alloc after sgc_shutdown: the runtime has ended (its profile and stats record are written); "
                    "allocate before it ends");
    if (!sgc__mutator)
        sgc__misuse("sgc_alloc from a thread that is not the one that started the runtime (the runtime is "
                    "single-threaded)");
    if (sgc__phase != SGC_PHASE_MUTATOR)
        sgc__misuse("sgc_alloc inside a collection (from a collector hook): the heap is being moved; allocate "
                    "outside collections");
    sgc__misuse("sgc_alloc: type id %u is not registered (ids 1 to %u are); register the type first", tid,
                sgc__gc_ntypes);
}

/* A large object (or one that cannot fit in an empty nursery). */
__attribute__((noinline)) static sgc_obj alloc_large(uint32_t tid, size_t payload, size_t size) {
    sgc_obj obj = sgc__large_alloc(tid, payload, size);
    /* Large objects consume the distance by their size, like any other. */
    sgc__sample_sync();
    uint64_t points = sgc__sample_consume(size);
    if (points)
        sgc__sample_record(obj, tid, size, points, 1);
    /* The distance moved: the limit must follow it, or it would stay at a
     * stale, lower sample point (docs/DESIGN.md, pitfall 5). */
    set_limit(sgc_nursery.free);
    return obj;
}

/* Every case of the slow path (sgc_alloc_slow is its common case's
 * shortcut).  entry is sgc_alloc_slow's entry: below it no live frame of
 * the program lies.  Order matters: any collection happens before the
 * object exists, so the object's sample (if any) is pending until the
 * *next* minor collection.  One pass: the fast path's bytes, this object's
 * bytes and its sample points are accounted together (sgc__sample_account),
 * and the limit is computed once at the end. */
__attribute__((noinline)) static sgc_obj alloc_general(uint32_t tid, size_t payload, char *entry) {
    /* Frames below this are not the program's live ones (sgc_internal.h). */
    sgc__mutator_sp = entry;
    if (__builtin_expect(!sgc__initialized, 0))
        sgc_init();
    /* Misuse that would corrupt the heap, refused where every allocation
     * made after it must come (the limit sends them here: after shutdown,
     * during a collection) or where a thread's allocations come sooner or
     * later.  An unregistered type id on the fast path is refused by the
     * collector when it meets the object. */
    if (__builtin_expect(((unsigned)sgc__shut_down | (unsigned)(sgc__mutator ^ 1) | (unsigned)sgc__phase |
                          (unsigned)(tid - 1u >= sgc__gc_ntypes)) != 0,
                         0))
        refuse(tid);
    /* Time samples buffered by the signal handler reach the profile even in
     * programs that seldom collect; the validation spin's debts (thread mode)
     * are paid here too. */
    if (__builtin_expect(sgc__settings.sample_spin_ns != 0, 0))
        sgc__timer_drain();
    else
        sgc__timer_drain_check();
    size_t size = SGC_FOOTPRINT(payload);
    sgc_obj obj;
    /* Routed by payload, like the fast path: a payload near SIZE_MAX wraps
     * SGC_FOOTPRINT to a small size, and sgc__large_alloc refuses it. */
    if (__builtin_expect(payload > SGC_LARGE_MIN - 16 || size > (size_t)(sgc_nursery.end - sgc_nursery.start), 0)) {
        obj = alloc_large(tid, payload, size);
    } else {
        if (__builtin_expect(sgc__settings.stress_every != 0, 0) && ++stress_countdown >= sgc__settings.stress_every) {
            stress_countdown = 0;
            sgc__minor_collect();
        }
        if ((size_t)(sgc_nursery.end - sgc_nursery.free) < size)
            sgc__minor_collect();
        if ((size_t)(sgc__nursery_zeroed - sgc_nursery.free) < size)
            zero_ahead(size);
        /* Here the object fits; we came either because it fits but reaches
         * a sample point, or because of stress mode, or because the nursery
         * was full (collected just now).  The rule decides, not the reason. */
        char *p = sgc_nursery.free, *free = p + size;
        /* The limit as set_limit computes it, here before the header is
         * stored (a store the compiler must take to change any counter). */
        char *limit = sgc__nursery_zeroed;
        uint64_t points = 0;
        if (sgc__sampler.period) {
            points = sgc__sample_account(p, size);
            sgc__sampler.synced_free = free; /* this object is accounted */
            uint64_t r = sgc__sampler.remaining;
            if (r - 1 < (uint64_t)(limit - free))
                limit = free + (r - 1);
        }
        /* (Not after shutdown: refuse() ended that above.) */
        if (__builtin_expect(sgc__settings.stress_every != 0, 0))
            limit = free;
        sgc_nursery.free = free;
        sgc_nursery.limit = limit;
        *(uint64_t *)p = SGC_HDR_MAKE(tid, size);
        obj = p + SGC_HEADER_BYTES;
        check_limit();
        if (points)
            sgc__sample_record(obj, tid, size, points, 0);
    }
    sgc__mutator_sp = NULL;
    return obj;
}

/* The common case's sample whose top frame has no cached node (or is not
 * live: then the walk's live check says so and aborts): its timestamp,
 * then its stack, as sgc__sample_record takes them. */
__attribute__((noinline)) static sgc_obj sample_walk(sgc_pending_sample *ps, sgc_obj obj, char *entry) {
    sgc__mutator_sp = entry;
    ps->rec.ts_ns = sgc__now_ns();
    ps->rec.stack = sgc__profile_stack_current();
    sgc__mutator_sp = NULL;
    return obj;
}

/* GCC packs the pending entry's type id and node into one vector register
 * and stores them as one (three instructions for two stores) in
 * sgc_alloc_slow; without the basic-block vectorizer, two plain stores.
 * Other compilers do as they do. */
#if defined(__GNUC__) && !defined(__clang__)
#define SGC_NO_SLP __attribute__((optimize("no-tree-slp-vectorize")))
#else
#define SGC_NO_SLP
#endif

/* In sgc_alloc_slow: the caller's stack pointer before the call, its frames
 * at or above it (no frame pointer needed, unlike __builtin_frame_address). */
#define SGC_ENTRY_SP ((char *)__builtin_dwarf_cfa())

/* Contract (sgc.h): allocates what the fast path would not - a large object,
 * an object that does not fit in what is left of the nursery, an object that
 * reaches a sample point, any object in stress mode - and never returns NULL.
 *
 * Here the common case: a small object that fits in the zeroed nursery and
 * reaches one sample point of fixed mode, its stack's node cached in the
 * live top frame, outside stress mode and validation, with no time sample
 * buffered.  Everything is decided before anything is stored, and any
 * other case goes to alloc_general unchanged, so the two agree on every
 * counter (the rule, sgc_sample.h).  Without a call but the tail calls,
 * it needs no saved registers; the sample's timestamp is the last thing
 * (sgc__now_into), because the clock may be a call.  The accounting is
 * sgc__sample_account's and the limit set_limit's, for this case. */
SGC_NO_SLP sgc_obj sgc_alloc_slow(uint32_t tid, size_t payload) {
    /* The misuse checks of alloc_general (before sgc_init, sgc__mutator is
     * 0), then what else sends an allocation there, one branch each.  A
     * nursery that does not fit the object has less zeroed room left too. */
    if (__builtin_expect(((unsigned)sgc__shut_down | (unsigned)(sgc__mutator ^ 1) | (unsigned)sgc__phase) != 0, 0))
        goto general;
    if (__builtin_expect(tid - 1u >= sgc__gc_ntypes, 0))
        goto general;
    if (__builtin_expect((sgc__settings.stress_every | sgc__settings.sample_spin_ns) != 0, 0))
        goto general;
    if (__builtin_expect(__atomic_load_n(&sgc__timer_events, __ATOMIC_RELAXED) != sgc__timer_events_seen, 0))
        goto general;
    if (__builtin_expect(payload > SGC_LARGE_MIN - 16, 0))
        goto general;
    size_t size = SGC_FOOTPRINT(payload);
    char *p = sgc_nursery.free;
    if (__builtin_expect((size_t)(sgc__nursery_zeroed - p) < size, 0))
        goto general;
    /* Sampling on, in fixed mode, with room for one more pending sample. */
    uint64_t period = sgc__sampler.fixed_period;
    if (__builtin_expect(period == 0, 0))
        goto general;
    if (__builtin_expect(sgc__sampler.npending == sgc__sampler.cap, 0))
        goto general;
    char *free = p + size, *synced = sgc__sampler.synced_free;
    uint64_t r = sgc__sampler.remaining;
    if (__builtin_expect(p >= synced + r, 0))
        sgc__sample_passed((uint64_t)(p - synced), r);
    /* The distance after this object if it covers one point of fixed mode:
     * in [1, period] exactly then (below 1 it covers more, above period
     * none). */
    uint64_t next = r + period - (uint64_t)(free - synced);
    if (__builtin_expect(next - 1 >= period, 0))
        goto general;
    sgc__stats.sampled_bytes += (uint64_t)(free - synced);
    sgc__stats.alloc_sample_points++;
    sgc__sampler.remaining = next;
    sgc__sampler.synced_free = free;
    /* Loaded again (a volatile read: one load) rather than kept from the
     * check above: with one register fewer live across the path, it needs
     * no callee-saved register, and so no pushes and pops. */
    char *limit = *(char *const volatile *)&sgc__nursery_zeroed;
    if (next - 1 < (uint64_t)(limit - free))
        limit = free + (next - 1);
    sgc_nursery.free = free;
    sgc_nursery.limit = limit;
    check_limit();
    *(uint64_t *)p = SGC_HDR_MAKE(tid, size);
    sgc_obj obj = p + SGC_HEADER_BYTES;
    sgc_pending_sample *ps = &sgc__sampler.pending[sgc__sampler.npending++];
    /* The node of the top frame if cached and live
     * (sgc__profile_stack_now); else the walk, after the timestamp. */
    sgc_frame *f = sgc_top;
    uint32_t node = 0;
    if (__builtin_expect(f != NULL && (char *)f >= SGC_ENTRY_SP, 1))
        node = f->cct;
    /* One fill for both ends (the walk stores the node it finds). */
    sgc__sample_fill(ps, obj, tid, size, 1, 0, node);
    if (__builtin_expect(node == 0, 0))
        return sample_walk(ps, obj, SGC_ENTRY_SP);
    return sgc__now_into(&ps->rec.ts_ns, obj);
general:
    return alloc_general(tid, payload, SGC_ENTRY_SP);
}
