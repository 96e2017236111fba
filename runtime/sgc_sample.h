/* sgc_sample.h - the allocation sampler: sample points, survival, and the
 * hooks the slow path (sgc_alloc.c) and the tools (sgc-replay, the fuzzer,
 * the tests) use.
 *
 * The rule (docs/DESIGN.md, docs/SAMPLING.md).  B counts the bytes allocated since
 * sampling was last (re)started.  A sample point is a byte count; an
 * allocation of footprint s covers the byte counts B+1 .. B+s and takes one
 * sample per sample point among them.  Fixed mode: the sample points are the
 * multiples of the period P.  Poisson mode: the gaps between consecutive
 * sample points (and from the start to the first) are independent geometric
 * draws of mean exactly P (an exponential rounded up to whole bytes, >= 1).
 *
 * Invariants:
 *  - While sampling is on, sgc__sampler.remaining is the distance from B to
 *    the next sample point: the next allocation is sampled iff its footprint
 *    s >= remaining.  remaining >= 1 always.  It is a distance, not a
 *    pointer, so it survives collections, nursery resets and large objects
 *    unchanged (docs/DESIGN.md, pitfalls 4, 5, 9).
 *  - synced_free is the value sgc_nursery.free had when the sampler last
 *    accounted the nursery's bytes; the fast path's bytes are exactly
 *    free - synced_free and are accounted (sgc__sample_sync) before anything
 *    moves free backwards or reads the counters.
 *  - The nursery limit (sgc__alloc_reset_limit) is min(end, free +
 *    remaining - 1): the fast path's "size <= limit - free" fails exactly
 *    when the allocation reaches the next sample point, so no sample is ever
 *    taken late or missed, and the fast path holds no sampling code at all.
 *  - Every sampled object is one pending record (stack, type, size, points,
 *    object) until the next minor collection tells whether it survived, or
 *    until sampling stops or the runtime shuts down (then: unknown).  Then the
 *    whole record goes to the profile writer at once.  The pending list
 *    grows; nothing is dropped.
 *
 * Build switch: compiling the runtime with -DSGC_NO_SAMPLER leaves the
 * sampler out (sgc_sampling_start returns -1, SGC_ALLOC_PERIOD is an error);
 * only the fast-path check (tests/sampler) builds it, to show that the
 * allocation fast path is the same machine code either way.
 */
#ifndef SGC_SAMPLE_H
#define SGC_SAMPLE_H

#include <stdint.h>
#include "sgc.h"
#include "sgc_internal.h"
#include "sgc_profile.h"

/* Largest accepted period (and mean period): keeps every distance sum inside
 * 64 bits with room for the largest object. */
#define SGC_SAMPLE_MAX_PERIOD ((uint64_t)1 << 48)

/* A sampled object waiting for the next minor collection.  Its serial
 * number (for the observer) is not stored: the pending list holds the
 * samples numbered sgc__stats.alloc_samples - npending + 1 .. alloc_samples
 * in order (alloc_samples counts the sampled objects since start-up). */
typedef struct sgc_pending_sample {
    sgc_alloc_sample rec; /* the record, complete but for survival */
    sgc_obj obj;          /* the object as allocated (young) */
} sgc_pending_sample;

_Static_assert(sizeof(sgc_pending_sample) == SGC_PROF_PENDING_STRIDE, "the encoder's loop is compiled for this stride");
_Static_assert(offsetof(sgc_pending_sample, obj) == SGC_PROF_PENDING_OBJ && offsetof(sgc_pending_sample, rec) == 0,
               "the encoder reads a young entry's object here");

/* xoshiro256** state for poisson gaps. */
typedef struct sgc_sample_rng {
    uint64_t s[4]; /* never all zero */
} sgc_sample_rng;

/* Called for every sample handed to the profile writer (tools and tests). */
typedef void (*sgc_sample_observer)(void *ctx, const sgc_alloc_sample *rec, uint64_t serial);

typedef struct sgc_sampler {
    uint64_t period;              /* P, or 0 when sampling is off */
    uint64_t fixed_period;        /* P in fixed mode, else 0 (the slow path's common case, sgc_alloc.c) */
    int mode;                     /* SGC_SAMPLE_FIXED or SGC_SAMPLE_POISSON */
    uint64_t remaining;           /* bytes from B to the next sample point, >= 1 (when on) */
    char *synced_free;            /* sgc_nursery.free when the nursery's bytes were last accounted */
    sgc_sample_rng rng;           /* poisson gap generator */
    uint64_t sessions;            /* sampling sessions started since start-up */
    sgc_pending_sample *pending;  /* samples whose survival is not known yet */
    size_t npending;              /* entries used in pending */
    size_t npending_large;        /* of them, large objects' */
    size_t cap;                   /* entries allocated in pending */
    sgc_sample_observer observer; /* or NULL */
    void *observer_ctx;           /* passed to observer */
} sgc_sampler;

extern sgc_sampler sgc__sampler;

/* Seeds a generator (any seed, including 0, gives a valid state). */
void sgc__sample_rng_seed(sgc_sample_rng *rng, uint64_t seed);
/* The next poisson gap of mean period (>= 1): geometric with success
 * probability 1/period, i.e. ceil of an exponential draw, so its mean is
 * exactly period and each byte is a sample point with probability 1/period
 * independently of every other byte. */
uint64_t sgc__sample_poisson_gap(sgc_sample_rng *rng, uint64_t period);

/* The slow path's part: counts the sample points an allocation of size bytes
 * covers and moves the distance past it (accounting sampled_bytes).  The
 * caller must have synced first.  Returns 0 when sampling is off. */
uint64_t sgc__sample_consume(uint64_t size);
/* Records a sampled object (points >= 1) as pending: takes the timestamp and
 * the stack now.  Never fails (out of memory: message and abort). */
static inline void sgc__sample_record(sgc_obj obj, uint32_t tid, uint64_t size, uint64_t points, int large);

/* ---- The slow path's inline parts (sgc_alloc.c) ---------------------------
 * What sgc__sample_sync, sgc__sample_consume and sgc__sample_record do, in
 * one pass and without calls, for the allocation slow path. */

/* Out of line: the fast path passed a sample point (an internal error:
 * message and abort); the sample points of an allocation that reaches one
 * (fixed mode's division, poisson mode's draws); a full pending list. */
__attribute__((noreturn, cold)) void sgc__sample_passed(uint64_t bytes, uint64_t remaining);
uint64_t sgc__sample_points(uint64_t r, uint64_t size);
void sgc__sample_grow(void);

/* Sampling is on: accounts the fast path's bytes up to free (where the
 * nursery's bytes were last accounted is synced_free, never NULL outside a
 * collection) and then an allocation of size bytes, and returns the sample
 * points it covers.  The caller sets synced_free past the allocation. */
static inline uint64_t sgc__sample_account(const char *free, uint64_t size) {
    uint64_t bytes = (uint64_t)(free - sgc__sampler.synced_free);
    uint64_t r = sgc__sampler.remaining;
    /* The limit kept the fast path short of the next sample point, so
     * bytes < remaining: the invariant remaining >= 1, kept loudly. */
    if (__builtin_expect(bytes >= r, 0))
        sgc__sample_passed(bytes, r);
    r -= bytes;
    sgc__stats.sampled_bytes += bytes + size;
    if (size < r) {
        sgc__sampler.remaining = r - size;
        SGC_ASSERT(sgc__sampler.remaining >= 1, "remaining >= 1: the next sample point lies ahead");
        return 0;
    }
    /* The first point is at B + r: one point unless the object also covers
     * the next (fixed mode: a period later).  Most objects are far smaller
     * than the period, so the division is left to the rare case. */
    if (sgc__sampler.mode == SGC_SAMPLE_FIXED && size - r < sgc__sampler.period) {
        sgc__sampler.remaining = r + sgc__sampler.period - size;
        SGC_ASSERT(sgc__sampler.remaining >= 1 && sgc__sampler.remaining <= sgc__sampler.period,
                   "fixed mode: 1 <= remaining <= period after one point");
        sgc__stats.alloc_sample_points++;
        return 1;
    }
    return sgc__sample_points(r, size);
}

/* Fills the pending entry ps of a sampled object (all but its timestamp)
 * and counts the sample: what sgc__sample_record and the slow path's
 * common case (sgc_alloc.c) share. */
static inline void sgc__sample_fill(sgc_pending_sample *ps, sgc_obj obj, uint32_t tid, uint64_t size, uint64_t points,
                                    int large, uint32_t stack) {
    SGC_ASSERT(ps == &sgc__sampler.pending[sgc__sampler.npending - 1] && sgc__sampler.npending <= sgc__sampler.cap,
               "the pending list grows at its end, within its capacity");
    SGC_ASSERT(points >= 1, "a sampled object covers at least one sample point");
    ps->rec.size = size;
    ps->rec.stack = stack;
    ps->rec.tid = tid;
    /* Only an object of more than 2^32 periods could exceed this. */
    ps->rec.points = points > UINT32_MAX ? UINT32_MAX : (uint32_t)points;
    ps->rec.survival = SGC_SURVIVAL_UNKNOWN;
    ps->rec.large = (uint8_t)(large != 0);
    ps->obj = obj;
    sgc__stats.alloc_samples++;
}

static inline void sgc__sample_record(sgc_obj obj, uint32_t tid, uint64_t size, uint64_t points, int large) {
    if (__builtin_expect(sgc__sampler.npending == sgc__sampler.cap, 0))
        sgc__sample_grow();
    sgc_pending_sample *ps = &sgc__sampler.pending[sgc__sampler.npending++];
    ps->rec.ts_ns = sgc__now_ns();
    sgc__sample_fill(ps, obj, tid, size, points, large, sgc__profile_stack_now());
    if (large)
        sgc__sampler.npending_large++;
    /* Validation only (docs/RUNTIME.md): a known cost on top of the real one. */
    if (__builtin_expect(sgc__settings.sample_spin_ns != 0, 0))
        sgc__spin_ns(sgc__settings.sample_spin_ns);
}

/* Installs (or with NULL removes) the observer. */
void sgc__sample_set_observer(sgc_sample_observer fn, void *ctx);

#endif /* SGC_SAMPLE_H */
