/* st_peers.h - the peers report: freecheck's allocation sampler beside other
 * runtimes' (command workloads, harness/sw_cmd.h) measured in one sweep.
 *
 * Invariants:
 *  - A workload's system is the sweep's meta "workload_system:<workload>"
 *    (freecheck when absent) and where its sample check lives is meta
 *    "system_site:<system>"; its base workload (what is compared across
 *    systems) is the name without a trailing "-<system>".
 *  - One row per (base workload, system) with a matrix baseline, ordered by
 *    base workload, then freecheck first, then system name.
 *  - The per-sample cost is the sweep's regression over periods
 *    (st_costfit.h, x = alloc_samples from the command's stats record).  A
 *    system whose runs carry no alloc_samples (it keeps no count) is fitted
 *    the same way on the expected count x = bytes_allocated / alloc_period
 *    (the mean number of samples of geometric gaps of mean P), and its row
 *    says so (samples "expected"): never mixed with counted samples.
 *  - Overheads are the cells' paired wall-time ratios (st_analysis.h), as
 *    percentages; NaN when the period was not in the sweep.
 *  - Nothing is invented: a missing estimate is NaN with the reason in note.
 */
#ifndef ST_PEERS_H
#define ST_PEERS_H

#include <stdio.h>

#include "st_analysis.h"
#include "st_costfit.h"

typedef struct st_peer_row {
    const char *base;          /* base workload (binarytrees) */
    const char *workload;      /* the sweep's workload (binarytrees-go) */
    const char *system;        /* freecheck, jemalloc, ... */
    const char *site;          /* where its sample check lives */
    const char *samples;       /* "counted" or "expected" (bytes / period) */
    st_reg_est cost_wall;      /* ns per sample */
    st_reg_est cost_cpu;       /* ns per sample */
    st_interval over_512k;     /* paired wall ratio at 512 KiB (ratio, not percent) */
    st_interval over_4m;       /* at 4 MiB */
    const st_result *baseline; /* its baseline */
    char note[256];
} st_peer_row;

typedef struct st_peers {
    st_peer_row *rows;
    size_t n;
    st_costfit *own_fits; /* the expected-count fits (2 per such row) */
    size_t n_own;
} st_peers;

/* Builds the rows from an analysis (with its fits).  opts: the fits'
 * resamples, confidence and seed. */
void st_peers_compute(const st_analysis *an, const st_reg_opts *opts, st_peers *out);
void st_peers_free(st_peers *p);

/* peers.csv: one row per (base workload, system). */
void st_peers_write_csv(FILE *f, const st_peers *p);
/* peers.md: the table, the skipped systems, notes. */
void st_peers_write_md(FILE *f, const st_analysis *an, const st_peers *p, double confidence);
/* plotdata/peers.dat: one row per alloc cell of every row's workload,
 * grouped by (base workload, system), by period: base system period_bytes
 * overhead_pct lo_pct hi_pct samples_per_run; header lines "# workloads:"
 * and "# systems:" list the groups. */
void st_peers_write_dat(FILE *f, const st_analysis *an, const st_peers *p);

#endif
