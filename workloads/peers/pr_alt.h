/* pr_alt.h - in-process alternation for the C peers: the segment driver that
 * switches the allocator's own sampler on and off in ABBA segments of the
 * thread's CPU time and writes the segment series (docs/FORMATS.md, "The
 * segment series"; docs/WORKLOADS.md, "In-process alternation in the peers").
 *
 * Settings (the protocol of freecheck's runtime, docs/RUNTIME.md): SGC_ALTERNATE
 * (off, none or alloc; time and both exit 2: a C peer has no time sampler),
 * SGC_ALT_SEGMENT (a CPU time, 1ms..60000ms, default 5ms; a count of minor
 * collections exits 2: there is no collector), SGC_ALT_OUT (the series file),
 * SGC_SEED (the phase).  The period of the on segments is the allocator's own
 * setting (MALLOC_CONF lg_prof_sample, TCMALLOC_SAMPLE_PARAMETER).
 *
 * Invariants:
 *  - Segment 0 (the lead-in) starts in pr_alt_start, the last segment ends in
 *    pr_alt_finish (end "exit"); every other boundary is in the check point
 *    pr_alt_tick, which pr_alloc/pr_calloc call once per object, so the
 *    segments' iterations are the objects allocated in them.
 *  - Blocks of four segments, ABBA or BAAB for the whole run, from the
 *    seed's phase (the function of docs/FORMATS.md, the runtime's); the
 *    lead-in has the kind the pattern starts and ends with.
 *  - A segment's numbers are counter differences between its start reading
 *    and its end reading.  End reading: CPU time first, then the counters;
 *    start reading: the counters first, CPU time last; the switch between
 *    them, so the switch and the readings of the counters are charged to no
 *    segment (their CPU time is the next segment's switch_ns).
 *  - Nothing between an end reading and the next start reading allocates
 *    through malloc (the series is kept in mmap'ed memory), so no sample
 *    falls between segments: the series' samples and bytes add up to the
 *    run's.
 *  - Off: pr_alt_countdown is INT64_MAX and pr_alt_tick never leaves its
 *    decrement.
 */
#ifndef PR_ALT_H
#define PR_ALT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- The allocator's switch (pr_jemalloc.c, pr_gperftools.cc) ------------- */

typedef struct pr_alt_sampler {
    const char *system;  /* "jemalloc", "gperftools" */
    uint64_t period;     /* the mean period of the on segments (bytes) */
    int on_at_start;     /* 1 if the allocator samples as the program starts */
    int counts;          /* 1: pr_alt_sampler_count() is the allocator's exact count */
    const char *nocount; /* why not, when counts is 0 */
} pr_alt_sampler;

/* Reads the allocator's sampling settings into s for SGC_ALTERNATE mode
 * ("none" or "alloc").  Returns 0, or -1 with the reason (what to set) in
 * why, when the allocator cannot do what mode asks. */
int pr_alt_sampler_prepare(const char *mode, pr_alt_sampler *s, char *why, size_t whylen);
/* Switches the allocator's sampler on (period s->period) or off; exact:
 * the first allocation after it is sampled by the new state's rule.  Does
 * not allocate through the program's counters. */
void pr_alt_sampler_set(int on);
/* The samples the allocator has taken so far (when s->counts). */
uint64_t pr_alt_sampler_count(void);

/* ---- The driver (pr_alt.c) -------------------------------------------------- */

extern int64_t pr_alt_countdown;
__attribute__((noinline)) void pr_alt_slow(void);

/* The check point: once per allocated object. */
static inline void pr_alt_tick(void) {
    if (__builtin_expect(--pr_alt_countdown <= 0, 0))
        pr_alt_slow();
}

/* Reads the settings (bad ones: message naming it, exit 2) and, when
 * SGC_ALTERNATE is none or alloc, begins the lead-in. */
void pr_alt_start(const char *program);

/* What the run's stats record needs from the driver. */
typedef struct pr_alt_totals {
    int active;              /* alternation ran */
    int counts;              /* the samples are counted */
    uint64_t period;         /* the on segments' period (0 under none without sampling) */
    uint64_t samples;        /* samples over the series' span */
    uint64_t samples_before; /* samples the allocator took before the lead-in */
} pr_alt_totals;

/* Ends the last segment (end "exit") and writes the series to SGC_ALT_OUT
 * (atomically; failure: message, exit 1).  Fills t (t->active 0 when
 * alternation is off). */
void pr_alt_finish(const char *program, pr_alt_totals *t);

#ifdef __cplusplus
}
#endif

#endif /* PR_ALT_H */
