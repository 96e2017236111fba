/* sgc_alt.h - in-process alternation: the runtime switches sampling on and
 * off between segments of one process, in ABBA blocks, and measures each
 * segment (docs/RUNTIME.md "In-process alternation", docs/FORMATS.md "The
 * segment series").
 *
 * Invariants:
 *  - Segments.  With SGC_ALTERNATE set, the run is cut into consecutive
 *    segments.  Segment 0 is a lead-in (excluded from estimates); then come
 *    blocks of four segments, all with the same pattern for the whole
 *    process: ABBA, or BAAB, chosen from SGC_SEED (the seeded random phase).
 *    The lead-in has the kind the pattern ends with (= the kind it starts
 *    with), so every block is preceded by a segment of the same kind as its
 *    last one: a cost that a segment leaves to the next one (first-order
 *    carry-over) then lands once on an A and once on a B segment of every
 *    block, and a linear drift cancels within each block.
 *  - B segments have the alternated samplers on, A segments have them off.
 *    SGC_ALTERNATE=none (A/A) labels segments the same way but switches
 *    nothing.  A sampler that is not alternated keeps its SGC_* setting for
 *    the whole run.  Every on-segment is a fresh sampling session (the
 *    allocation sampler is restarted, so in fixed mode an on-segment that
 *    allocates b bytes takes exactly floor(b / period) sample points; the
 *    timer is re-created), also when it follows another on-segment.
 *  - Boundaries happen only at safe points: at the very end of a minor
 *    collection (after the sampler settled its pending samples and the time
 *    samples were drained, so nothing of a segment's samples is left over
 *    for the next one) and in sgc_iteration() (a workload's iteration hook).
 *    Never in a signal handler, never inside a collection.
 *  - A segment's numbers are differences of counters read at its start and
 *    end.  The switch itself (stopping and starting samplers) happens between
 *    the end reading of one segment and the start reading of the next, so it
 *    is charged to no segment.
 *  - The fast path (sgc_alloc) is untouched: the driver runs only at minor
 *    collections and in the iteration hook.  sgc_iteration() is one
 *    decrement and one compare while the countdown has not run out.
 */
#ifndef SGC_ALT_H
#define SGC_ALT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "sgc.h"

/* What SGC_ALTERNATE alternates: the one table of the alternation modes, in
 * the style of sgc_modes.h.  X(ID, "name", switches the allocation sampler,
 * switches the time sampler, "what it does").  A mode's number (its row,
 * from 0) is sgc__settings.alt_mode; the name is SGC_ALTERNATE's value and
 * the series file's "alternate" line.  Row 0 is the default. */
#define SGC_ALT_MODES(X)                                                              \
    X(OFF, "off", 0, 0, "no segments (default)")                                      \
    X(NONE, "none", 0, 0, "A/A: segments and measurements, nothing switched")         \
    X(ALLOC, "alloc", 1, 0, "allocation sampling (SGC_ALLOC_PERIOD, SGC_ALLOC_MODE)") \
    X(TIME, "time", 0, 1, "time sampling (SGC_TIME_HZ, SGC_TIME_CLOCK)")              \
    X(BOTH, "both", 1, 1, "both samplers together")

/* Why a segment ended: X(ID, "name in the series file", "when"). */
#define SGC_ALT_ENDS(X)                             \
    X(GC, "gc", "at the end of a minor collection") \
    X(ITER, "iter", "in the iteration hook")        \
    X(EXIT, "exit", "the process ended: a partial segment")

#define SGC__ALT_MODE_ENUM(id, name, alloc, time, what) SGC_ALT_##id,
typedef enum sgc_alt_mode { SGC_ALT_MODES(SGC__ALT_MODE_ENUM) SGC_ALT_NMODES } sgc_alt_mode;
#undef SGC__ALT_MODE_ENUM
#define SGC__ALT_END_ENUM(id, name, what) SGC_ALT_END_##id,
typedef enum sgc_alt_end { SGC_ALT_ENDS(SGC__ALT_END_ENUM) SGC_ALT_NENDS } sgc_alt_end;
#undef SGC__ALT_END_ENUM

/* The name of alternation mode m (of segment end e), or NULL if there is
 * no such number. */
static inline const char *sgc_alt_mode_name(int m) {
#define SGC__ALT_NAME(id, name, ...) name,
    static const char *const names[] = {SGC_ALT_MODES(SGC__ALT_NAME)};
    return m >= 0 && m < SGC_ALT_NMODES ? names[m] : NULL;
}

static inline const char *sgc_alt_end_name(int e) {
    static const char *const names[] = {SGC_ALT_ENDS(SGC__ALT_NAME)};
#undef SGC__ALT_NAME
    return e >= 0 && e < SGC_ALT_NENDS ? names[e] : NULL;
}

/* The number of the alternation mode called s, or -1. */
static inline int sgc_alt_mode_parse(const char *s) {
    for (int m = 0; m < SGC_ALT_NMODES; m++)
        if (s && strcmp(s, sgc_alt_mode_name(m)) == 0)
            return m;
    return -1;
}

/* Whether mode m switches the allocation (time) sampler on and off. */
static inline int sgc_alt_switches_alloc(int m) {
#define SGC__ALT_ALLOC(id, name, alloc, time, what) alloc,
    static const unsigned char v[] = {SGC_ALT_MODES(SGC__ALT_ALLOC)};
#undef SGC__ALT_ALLOC
    return m >= 0 && m < SGC_ALT_NMODES && v[m];
}

static inline int sgc_alt_switches_time(int m) {
#define SGC__ALT_TIME(id, name, alloc, time, what) time,
    static const unsigned char v[] = {SGC_ALT_MODES(SGC__ALT_TIME)};
#undef SGC__ALT_TIME
    return m >= 0 && m < SGC_ALT_NMODES && v[m];
}

/* One segment's measurements (counter differences over the segment). */
typedef struct sgc_alt_segment {
    uint32_t index;         /* 0 = lead-in, then 1, 2, ... */
    uint32_t block;         /* 0 for the lead-in, then 1, 2, ... */
    uint8_t pos;            /* position in the block, 0..3 (3 for the lead-in) */
    char kind;              /* 'A' (alternated samplers off) or 'B' (on) */
    uint8_t on;             /* 1 if a sampler was switched on for it (B, not A/A) */
    uint8_t end;            /* sgc_alt_end */
    uint64_t cpu_ns;        /* CLOCK_THREAD_CPUTIME_ID */
    uint64_t wall_ns;       /* CLOCK_MONOTONIC */
    uint64_t bytes;         /* footprint bytes allocated (nursery + large) */
    uint64_t iterations;    /* sgc_iteration() calls */
    uint64_t alloc_samples; /* sampled objects */
    uint64_t alloc_points;  /* sample points hit */
    uint64_t sampled_bytes; /* bytes allocated while allocation sampling was on */
    uint64_t time_samples;  /* time samples taken */
    uint64_t minor;         /* minor collections that ended in it */
    uint64_t major;         /* major collections */
    uint64_t gc_ns;         /* time in collections (CLOCK_MONOTONIC) */
    uint64_t major_cpu_ns;  /* thread CPU time in major collections */
} sgc_alt_segment;

/* The segments recorded so far (complete ones; the running segment is added
 * at exit).  Valid until the next boundary. */
const sgc_alt_segment *sgc_alt_series(size_t *count);

/* The ABBA pattern in force: 0 = ABBA, 1 = BAAB.  -1 when alternation is off. */
int sgc_alt_phase(void);

/* ---- The iteration hook ------------------------------------------------- */

/* Counts down to the next time the hook must look at the clock.  Starts at
 * INT64_MAX, so a program without alternation never reaches the slow part. */
extern int64_t sgc__alt_countdown;
__attribute__((noinline)) void sgc__alt_iteration_slow(void);

/* Call once per natural unit of work (an iteration of the main loop) where
 * the program has one: it is counted as the segment's work, and lets the
 * driver end segments in programs that seldom or never collect.  Cheap: a
 * decrement and a compare, plus a clock reading a few times per segment. */
static inline void sgc_iteration(void) {
    if (__builtin_expect(--sgc__alt_countdown <= 0, 0))
        sgc__alt_iteration_slow();
}

#endif /* SGC_ALT_H */
