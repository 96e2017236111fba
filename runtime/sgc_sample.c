/* sgc_sample.c - the allocation sampler: sample points, pending samples and
 * their survival (the rule of docs/DESIGN.md; see sgc_sample.h and docs/SAMPLING.md). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sgc_internal.h"
#include "sgc_sample.h"

sgc_sampler sgc__sampler;

/* ---- Poisson gaps --------------------------------------------------------- */

static uint64_t splitmix64(uint64_t *x) {
    uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

void sgc__sample_rng_seed(sgc_sample_rng *rng, uint64_t seed) {
    /* splitmix64 never yields four zero words in a row, so the xoshiro state
     * is valid for every seed. */
    for (int i = 0; i < 4; i++)
        rng->s[i] = splitmix64(&seed);
}

static inline uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

static uint64_t rng_next(sgc_sample_rng *rng) {
    uint64_t *s = rng->s;
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

uint64_t sgc__sample_poisson_gap(sgc_sample_rng *rng, uint64_t period) {
    if (period <= 1)
        return 1; /* every byte is a sample point */
    /* u uniform in (0, 1]: 53 random bits, never 0, so log(u) is finite. */
    double u = (double)((rng_next(rng) >> 11) + 1) * 0x1.0p-53;
    /* Inverse CDF of the geometric distribution on {1, 2, ...} with success
     * probability p = 1/period: gap = ceil(log(u) / log(1 - p)).  Its mean is
     * exactly period (an exponential's mean of period would become period +
     * 1/2 after rounding up to whole bytes). */
    double g = ceil(log(u) / log1p(-1.0 / (double)period));
    if (!(g >= 1.0))
        return 1; /* u == 1 gives 0 */
    if (g > 0x1.0p62)
        return (uint64_t)1 << 62; /* unreachable for period <= 2^48 */
    return (uint64_t)g;
}

static inline uint64_t next_gap(void) {
    if (sgc__sampler.mode == SGC_SAMPLE_POISSON)
        return sgc__sample_poisson_gap(&sgc__sampler.rng, sgc__sampler.period);
    return sgc__sampler.period;
}

/* ---- Byte accounting -------------------------------------------------------- */

void sgc__sample_passed(uint64_t bytes, uint64_t remaining) {
    fprintf(stderr,
            "freecheck: internal error: the fast path passed a sample point "
            "(%llu bytes, %llu to the point)\n",
            (unsigned long long)bytes, (unsigned long long)remaining);
    abort();
}

void sgc__sample_sync(void) {
    char *free = sgc_nursery.free;
    char *synced = sgc__sampler.synced_free;
    /* synced_free is NULL between a minor collection's sync and the
     * nursery's reset: nothing new to count, only rebase. */
    if (synced != NULL && free > synced && sgc__sampler.period) {
        uint64_t bytes = (uint64_t)(free - synced);
        /* The limit kept the fast path short of the next sample point, so
         * bytes < remaining; keep the invariant remaining >= 1 loudly. */
        if (bytes >= sgc__sampler.remaining)
            sgc__sample_passed(bytes, sgc__sampler.remaining);
        sgc__sampler.remaining -= bytes;
        sgc__stats.sampled_bytes += bytes;
    }
    SGC_ASSERT(synced == NULL || free >= synced || sgc__sampler.period == 0,
               "the fast path's bytes are free - synced_free: free moves back only after a sync");
    SGC_ASSERT(sgc__sampler.period == 0 || sgc__sampler.remaining >= 1, "remaining >= 1 while sampling");
    sgc__sampler.synced_free = free;
}

uint64_t sgc__sample_points(uint64_t r, uint64_t size) {
    uint64_t points;
    if (sgc__sampler.mode == SGC_SAMPLE_FIXED || sgc__sampler.period == 1) {
        /* Points at B+r, B+r+P, ... up to B+size.  (A poisson mean of 1 has
         * every gap 1: the same points, without drawing one per byte.) */
        uint64_t p = sgc__sampler.period;
        points = 1 + (size - r) / p;
        sgc__sampler.remaining = r + points * p - size;
    } else {
        points = 0;
        while (size >= r) {
            points++;
            r += next_gap();
        }
        sgc__sampler.remaining = r - size;
    }
    SGC_ASSERT(points >= 1 && sgc__sampler.remaining >= 1, "an allocation that reaches a point takes one or more; "
                                                           "the next point lies ahead");
    sgc__stats.alloc_sample_points += points;
    return points;
}

uint64_t sgc__sample_consume(uint64_t size) {
    if (!sgc__sampler.period)
        return 0;
    sgc__stats.sampled_bytes += size;
    uint64_t r = sgc__sampler.remaining;
    if (size < r) {
        sgc__sampler.remaining = r - size;
        return 0;
    }
    return sgc__sample_points(r, size);
}

/* ---- Pending samples ------------------------------------------------------- */

/* Hands the n pending samples over in order, their survival set, and
 * empties the list.  Neither the profile writer nor an observer allocates
 * on the sgc heap, so the list cannot change meanwhile. */
static void hand_over(size_t n, int young) {
    if (n == 0)
        return;
    sgc_pending_sample *list = sgc__sampler.pending;
    SGC_ASSERT(n == sgc__sampler.npending && n <= sgc__sampler.cap && n <= sgc__stats.alloc_samples,
               "the whole pending list is handed over, the samples numbered alloc_samples - n + 1 .. alloc_samples");
    if (young)
        sgc__profile_alloc_samples_young(&list[0].rec, n);
    else
        sgc__profile_alloc_samples(&list[0].rec, n, sizeof *list);
    if (sgc__sampler.observer) {
        uint64_t serial = sgc__stats.alloc_samples - n;
        for (size_t i = 0; i < n; i++)
            sgc__sampler.observer(sgc__sampler.observer_ctx, &list[i].rec, ++serial);
    }
    sgc__sampler.npending = 0;
    sgc__sampler.npending_large = 0;
}

/* Hands every pending sample over with survival unknown, in order. */
static void flush_unknown(void) {
    size_t n = sgc__sampler.npending;
    for (size_t i = 0; i < n; i++)
        sgc__sampler.pending[i].rec.survival = SGC_SURVIVAL_UNKNOWN;
    hand_over(n, 0);
}

void sgc__sample_grow(void) {
    size_t cap = sgc__sampler.cap ? sgc__sampler.cap * 2 : 64;
    sgc_pending_sample *p = realloc(sgc__sampler.pending, cap * sizeof *p);
    if (!p) {
        fprintf(stderr, "freecheck: out of memory growing the pending sample list to %zu entries\n", cap);
        abort();
    }
    sgc__sampler.pending = p;
    sgc__sampler.cap = cap;
}

void sgc__sample_minor_end(void) {
    /* The fast path's bytes since the last slow path: still visible in free. */
    sgc__sample_sync();
    size_t n = sgc__sampler.npending;
    sgc_pending_sample *list = sgc__sampler.pending;
    /* None large and no observer (the common case): the encoder reads each
     * survival from its object's header in its own loop
     * (sgc__profile_alloc_samples_young) and stores none. */
    if (sgc__sampler.npending_large == 0 && !sgc__sampler.observer) {
        hand_over(n, 1);
        sgc__sampler.synced_free = NULL;
        return;
    }
    for (size_t i = 0; i < n; i++) {
        /* A nursery object survived if the collection forwarded it (its
         * header is still in the nursery: nothing is reset yet); a large one
         * if it was reached (sgc__young_survived). */
        if (__builtin_expect(!list[i].rec.large, 1))
            list[i].rec.survival = (SGC_HDR(list[i].obj) & SGC_F_FORWARDED) ? SGC_SURVIVED : SGC_DIED;
        else
            list[i].rec.survival = sgc__young_survived(list[i].obj, NULL) ? SGC_SURVIVED : SGC_DIED;
    }
    hand_over(n, 0);
    /* The collector now resets the nursery, possibly to another buffer (the
     * poisoning mode alternates two): the next sync only rebases. */
    sgc__sampler.synced_free = NULL;
}

/* ---- Starting and stopping ------------------------------------------------ */

/* Ends the current session (if any): counts its last bytes, hands pending
 * samples over as unknown. */
static void end_session(void) {
    sgc__sample_sync();
    flush_unknown();
    sgc__sampler.period = 0;
    sgc__sampler.fixed_period = 0;
}

/* Starts a session; the runtime is initialised (or initialising). */
static int start_session(uint64_t period, sgc_sample_mode mode, uint64_t seed) {
    if ((unsigned)mode >= SGC_SAMPLE_NMODES)
        return -1;
    if (period > SGC_SAMPLE_MAX_PERIOD)
        return -1;
    if (period == 0) {
        sgc_sampling_stop();
        return 0;
    }
    end_session();
    sgc__sampler.sessions++;
    sgc__sampler.mode = mode;
    sgc__sampler.period = period;
    sgc__sampler.fixed_period = mode == SGC_SAMPLE_FIXED ? period : 0;
    sgc__sample_rng_seed(&sgc__sampler.rng, seed);
    /* B = 0: the first sample point is P (fixed) or one gap away (poisson). */
    sgc__sampler.remaining = next_gap();
    SGC_ASSERT(sgc__sampler.remaining >= 1, "the first sample point lies at least a byte ahead");
    sgc__profile_sampling_config(sgc__now_ns(), period, mode);
    sgc__alloc_reset_limit();
    return 0;
}

int sgc_sampling_start(uint64_t period, sgc_sample_mode mode, uint64_t seed) {
#ifdef SGC_NO_SAMPLER
    /* Compiled out (sgc_sample.h): sampling cannot be started. */
    (void)period, (void)mode, (void)seed;
    return -1;
#endif
    if ((unsigned)mode >= SGC_SAMPLE_NMODES)
        return -1;
    if (period > SGC_SAMPLE_MAX_PERIOD)
        return -1;
    if (sgc__shut_down)
        return -1; /* the profile has ended: no session may follow it */
    if (!sgc__initialized)
        sgc_init(); /* may start a session from SGC_ALLOC_PERIOD; this one replaces it */
    return start_session(period, mode, seed);
}

void sgc_sampling_stop(void) {
    if (!sgc__initialized)
        return;
    int was_on = sgc__sampler.period != 0;
    end_session();
    if (was_on)
        sgc__profile_sampling_config(sgc__now_ns(), 0, 0);
    sgc__alloc_reset_limit();
}

void sgc__sample_init(void) {
    /* A fresh state also after fork or re-initialisation (docs/DESIGN.md, pitfall 7). */
    sgc__sampler.npending = 0;
    sgc__sampler.npending_large = 0;
    sgc__sampler.period = 0;
    sgc__sampler.fixed_period = 0;
    sgc__sampler.synced_free = sgc_nursery.free;
#ifdef SGC_NO_SAMPLER
    if (sgc__settings.alloc_period) {
        fprintf(stderr,
                "freecheck: SGC_ALLOC_PERIOD=%llu: this runtime was built without the "
                "allocation sampler (SGC_NO_SAMPLER)\n",
                (unsigned long long)sgc__settings.alloc_period);
        exit(2);
    }
    return;
#endif
    if (sgc__settings.alloc_period) {
        if (start_session(sgc__settings.alloc_period, sgc__settings.alloc_mode, sgc__settings.seed) != 0) {
            fprintf(stderr, "freecheck: SGC_ALLOC_PERIOD=%llu: must be at most %llu bytes\n",
                    (unsigned long long)sgc__settings.alloc_period, (unsigned long long)SGC_SAMPLE_MAX_PERIOD);
            exit(2);
        }
        /* SGC_ALLOC_OFFSET (fixed mode, checked < P by the settings): the
         * first point is P - o instead of P, every later one P after it. */
        if (sgc__settings.alloc_offset) {
            sgc__sampler.remaining -= sgc__settings.alloc_offset;
            sgc__alloc_reset_limit();
        }
    }
}

void sgc__sample_shutdown(void) {
    int was_on = sgc__sampler.period != 0;
    end_session();
    if (was_on)
        sgc__profile_sampling_config(sgc__now_ns(), 0, 0);
    /* No sample may follow the profile's end. */
    sgc__alloc_reset_limit();
}

void sgc__sample_set_observer(sgc_sample_observer fn, void *ctx) {
    sgc__sampler.observer = fn;
    sgc__sampler.observer_ctx = ctx;
}
