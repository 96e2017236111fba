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
 *    system whose runs carry no alloc_samples (it keeps no count of its
 *    samples: gperftools) has no per-sample cost: samples "not counted", the
 *    cost NaN and the note saying why.  Its overheads are measured like any
 *    other system's; bytes / period is not a count of the samples it took
 *    (docs/WORKLOADS.md, "How each system's samples are counted").
 *  - Overheads are the cells' paired wall-time ratios (st_analysis.h), as
 *    percentages; NaN when the period was not in the sweep.
 *  - Nothing is invented: a missing estimate is NaN with the reason in note.
 *  - The figure's data (plotdata/peers.dat, figure 8) is a file of the plot
 *    data table (st_plotdata.h), written by st_report.c from the rows'
 *    cells; a sweep whose rows are all freecheck's has none
 *    (st_peers_several).
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
    const char *samples;       /* "counted", or "not counted": the system keeps no count */
    st_reg_est cost_wall;      /* ns per sample */
    st_reg_est cost_cpu;       /* ns per sample */
    st_interval over_512k;     /* paired wall ratio at 512 KiB (ratio, not percent) */
    st_interval over_4m;       /* at 4 MiB */
    const st_result *baseline; /* its baseline */
    const st_result **cells;   /* its allocation cells, by period (ncells) */
    size_t ncells;
    char **series; /* per cell: the figure's line, the system or
                                  "<system>-<mode>" when the workload was
                                  sampled in more than one mode */
    char note[256];
} st_peer_row;

typedef struct st_peers {
    st_peer_row *rows;
    size_t n;
} st_peers;

/* Builds the rows from an analysis (with its fits). */
void st_peers_compute(const st_analysis *an, st_peers *out);
void st_peers_free(st_peers *p);
/* 1 if the rows hold a system other than freecheck (a sweep of several
 * systems, which gets plotdata/peers.dat and figure 8), else 0. */
int st_peers_several(const st_peers *p);

/* peers.csv: one row per (base workload, system). */
void st_peers_write_csv(FILE *f, const st_peers *p);
/* peers.md: the table, the skipped systems, notes. */
void st_peers_write_md(FILE *f, const st_analysis *an, const st_peers *p, double confidence);
/* (plotdata/peers.dat: st_write_peers_dat, st_report.h.) */

#endif
