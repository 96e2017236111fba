/* sgc_statswrite.h - the stats record's writer (SGC_STATS, docs/FORMATS.md,
 * "The stats record"): the record's lines from the values the collector
 * hands it, for the atomic replace of sgc_output.h.
 *
 * Invariants:
 *  - One line per row of sgc_stats_keys.h, in its order, after the line
 *    "sgc-stats 1"; a row's value is its expression of the table, which reads
 *    only the fields of sgc_statsw_in (by the names the table documents).
 *  - The writer reads nothing but its argument: the collector fills
 *    sgc_statsw_in once at shutdown (runtime/sgc_gc.c, sgc_shutdown) with the
 *    run's statistics, the settings, the run time, the sampler thread's CPU
 *    and whether huge pages were in effect, so this module includes no
 *    collector, sampler or timer header (make test-include-graph: no loop).
 */
#ifndef SGC_STATSWRITE_H
#define SGC_STATSWRITE_H

#include <stdint.h>
#include <stdio.h>

#include "sgc_internal.h"

/* What the record's keys are computed from. */
typedef struct sgc_statsw_in {
    sgc_stats s;             /* the run's statistics (sgc_get_stats) */
    const sgc_settings *st;  /* the settings in force */
    uint64_t run_ns;         /* time from runtime start to the record (sgc__now_ns) */
    int time_sampler_cpu;    /* thread mode: the sampler thread's CPU, -1 if none */
    int hugepages_in_effect; /* 1: every heap mapping was advised MADV_HUGEPAGE */
} sgc_statsw_in;

/* Writes the record's lines to f; ctx is a const sgc_statsw_in *.  The
 * signature of sgc__output_replace's fill; returns 0. */
int sgc__statsw_fill(FILE *f, void *ctx);

#endif /* SGC_STATSWRITE_H */
