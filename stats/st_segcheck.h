/* st_segcheck.h - the conformance checker of the segment series: a file
 * (and the run's stats record) against every rule of docs/FORMATS.md, "The
 * segment series" (the file's form, its header, its columns and the eleven
 * invariants), each violation reported in words.  `inproc-estimate --check
 * FILE [--stats RECORD]` is its command line; the harness judges every
 * in-process run's series by it (harness/sw_run.c), so that a writer in any
 * language is held to one set of rules.
 *
 * Invariants:
 *  - Independent of the readers (st_inproc_read_series, harness/sw_alt.c):
 *    it parses the text itself, and refuses what the contract does not
 *    allow even where a reader would take it (an unknown header key, a
 *    number with a leading zero).
 *  - Every violation found is reported, in file order where it belongs to a
 *    line; a violation that leaves the rest unreadable (no first line, a
 *    segment line before the columns line, a header it cannot use) ends the
 *    check there.  The count returned is the number reported.
 *  - The stats record, when given, is read as "key value" lines after its
 *    first line "sgc-stats 1"; the totals are compared with its values as
 *    written (decimal text).
 *  - No state, nothing kept: thread-safe (the harness checks runs of the
 *    simulated part in parallel, and may check in-process runs so too).
 */
#ifndef ST_SEGCHECK_H
#define ST_SEGCHECK_H

#include <stddef.h>
#include <stdint.h>

typedef struct st_segcheck_opts {
    const char *stats;    /* the run's stats record (text), or NULL: totals not checked */
    int objects;          /* the check point is once per allocated object: iterations = objects_allocated */
    const char *mode;     /* the alternation mode it must have (none, alloc, time, both), or NULL */
    const char *system;   /* the system it must name ("freecheck": no system line), or NULL */
    int64_t alloc_period; /* the alloc_period it must have, or -1 */
    int require_complete; /* 1: at least one complete block (four segments ended at boundaries) */
} st_segcheck_opts;

/* What the series holds (valid when the check got that far: segments > 0). */
typedef struct st_segcheck_summary {
    size_t segments, blocks; /* segments; blocks with a segment that ended at a boundary */
    char pattern[8];         /* ABBA or BAAB */
    char system[40];         /* its system line, "freecheck" when absent */
    char cpu_clock[16];      /* thread (also when absent) or process */
    char unmeasured[256];    /* the unmeasured fields, space separated ("" for none) */
    uint64_t on_samples, on_bytes, off_samples, off_bytes, on_cpu_ns, off_cpu_ns;
    int has_switch; /* a switch_ns column: the medians below are set */
    uint64_t switch_on_ns, switch_off_ns, switch_same_ns;
} st_segcheck_summary;

/* Called once per violation with its description (no file name, no line
 * end; valid during the call). */
typedef void (*st_segcheck_report)(void *ctx, const char *msg);

/* Checks the series text[0..len) (need not be NUL-terminated); returns the
 * number of violations reported.  sum may be NULL. */
size_t st_segcheck(const char *text, size_t len, const st_segcheck_opts *opts, st_segcheck_report report, void *ctx,
                   st_segcheck_summary *sum);

#endif /* ST_SEGCHECK_H */
