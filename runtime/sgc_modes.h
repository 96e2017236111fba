/* sgc_modes.h - the allocation sampling modes and the time-sampling clocks:
 * one table each, the only place their names and numbers are written.
 *
 * Invariants:
 *  - A mode's (clock's) number is its position in the table, starting at 0.
 *    The number is what the runtime stores in a profile's ALLOC_CONFIG
 *    (TIME_CONFIG) record (docs/PROFILE.md), so rows are only ever appended.
 *  - The name is the word every stage uses for it: SGC_ALLOC_MODE and
 *    SGC_TIME_CLOCK, the stats record's alloc_mode and time_clock, sweep's
 *    --modes and --time-clock, the cells table of results.db, the plot data
 *    and sgcprof's report.  The first row is the default.
 *  - Nothing here depends on the rest of the runtime: the harness, analyze
 *    and sgcprof include this header without linking libsgc.
 *
 * Three tables: allocation sampling modes, time-sampling clocks, and
 * time-sampling modes (how a time sample is taken).  Each row is
 * X(ID, "name", "what it does, for messages and --help"); the clocks have a
 * fourth column, the POSIX clock the timer counts.  Adding a
 * mode: a row here, then its gap rule in runtime/sgc_sample.c (next_gap);
 * docs/ARCHITECTURE.md lists the rest.
 */
#ifndef SGC_MODES_H
#define SGC_MODES_H

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#define SGC_ALLOC_MODES(X)                                                       \
    X(FIXED, "fixed", "a sample at every multiple of the period (exact counts)") \
    X(POISSON, "poisson", "independent exponential gaps of mean period (unbiased profiles)")

#define SGC_TIME_CLOCKS(X)                                                      \
    X(WALL, "wall", "elapsed time, the thread running or not", CLOCK_MONOTONIC) \
    X(CPU, "cpu", "the process's CPU time", CLOCK_PROCESS_CPUTIME_ID)

/* How a time sample is taken: a timer signal interrupts the thread and its
 * handler records the stack (signal), or a sampler thread woken on its own
 * timer reads the shadow stack without interrupting it (thread; wall clock
 * only).  docs/PROFILE.md compares the two. */
#define SGC_TIME_MODES(X)                                                \
    X(SIGNAL, "signal", "a timer signal; the handler records the stack") \
    X(THREAD, "thread", "a sampler thread reads the shadow stack (wall clock only)")

#define SGC__MODE_ENUM(id, name, what) SGC_SAMPLE_##id,
#define SGC__CLOCK_ENUM(id, name, what, clockid) SGC_CLOCK_##id,
typedef enum sgc_sample_mode { SGC_ALLOC_MODES(SGC__MODE_ENUM) SGC_SAMPLE_NMODES } sgc_sample_mode;
typedef enum sgc_clock { SGC_TIME_CLOCKS(SGC__CLOCK_ENUM) SGC_NCLOCKS } sgc_clock;
#define SGC__TIME_MODE_ENUM(id, name, what) SGC_TIME_##id,
typedef enum sgc_time_mode { SGC_TIME_MODES(SGC__TIME_MODE_ENUM) SGC_NTIME_MODES } sgc_time_mode;
#undef SGC__TIME_MODE_ENUM
#undef SGC__MODE_ENUM
#undef SGC__CLOCK_ENUM

/* The name of mode (clock) number m, or NULL if there is no such number. */
static inline const char *sgc_alloc_mode_name(int m) {
#define SGC__NAME(id, name, ...) name,
    static const char *const names[] = {SGC_ALLOC_MODES(SGC__NAME)};
    return m >= 0 && m < SGC_SAMPLE_NMODES ? names[m] : NULL;
}

static inline const char *sgc_clock_name(int c) {
    static const char *const names[] = {SGC_TIME_CLOCKS(SGC__NAME)};
    return c >= 0 && c < SGC_NCLOCKS ? names[c] : NULL;
}

static inline const char *sgc_time_mode_name(int m) {
    static const char *const names[] = {SGC_TIME_MODES(SGC__NAME)};
#undef SGC__NAME
    return m >= 0 && m < SGC_NTIME_MODES ? names[m] : NULL;
}

/* The number of the mode (clock) called s, or -1. */
static inline int sgc_alloc_mode_parse(const char *s) {
    for (int m = 0; m < SGC_SAMPLE_NMODES; m++)
        if (s && strcmp(s, sgc_alloc_mode_name(m)) == 0)
            return m;
    return -1;
}

static inline int sgc_clock_parse(const char *s) {
    for (int c = 0; c < SGC_NCLOCKS; c++)
        if (s && strcmp(s, sgc_clock_name(c)) == 0)
            return c;
    return -1;
}

static inline int sgc_time_mode_parse(const char *s) {
    for (int m = 0; m < SGC_NTIME_MODES; m++)
        if (s && strcmp(s, sgc_time_mode_name(m)) == 0)
            return m;
    return -1;
}

/* Every name of a table, for messages: "fixed or poisson" with sep ", " and
 * last " or "; "fixed, poisson" with both ", ".  Returns buf. */
static inline const char *sgc_names_join(char *buf, size_t len, const char *(*name)(int), const char *sep,
                                         const char *last) {
    size_t n = 0;
    buf[0] = '\0';
    for (int i = 0; name(i); i++) {
        const char *s = i == 0 ? "" : name(i + 1) ? sep : last;
        int k = snprintf(buf + n, len - n, "%s%s", s, name(i));
        if (k < 0 || (size_t)k >= len - n)
            break;
        n += (size_t)k;
    }
    return buf;
}

#endif /* SGC_MODES_H */
