/* st_peers.h - the peers report: freecheck's allocation sampler beside other
 * runtimes' (command workloads, harness/sw_cmd.h) measured in one sweep.
 *
 * Invariants:
 *  - A workload's system is the sweep's meta "workload_system:<workload>"
 *    (freecheck when absent) and where its sample check lives is meta
 *    "system_site:<system>"; its base workload (what is compared across
 *    systems) is the name without a trailing "-<system>".
 *  - One row per (base workload, system) with a matrix baseline, ordered by
 *    base workload, then freecheck first, then system name; in a sweep of
 *    the simulated part alone (no timed runs of a workload), one per
 *    workload with a simulated baseline and allocation cells: its
 *    simulated (and in-process) part, no process level, a note saying so.
 *  - The per-sample cost is the sweep's regression over periods
 *    (st_costfit.h, x = alloc_samples from the command's stats record).  A
 *    system whose runs carry no alloc_samples (it keeps no count of its
 *    samples: gperftools) has no per-sample cost: samples "not counted", the
 *    cost NaN and the note saying why.  Its overheads are measured like any
 *    other system's; bytes / period is not a count of the samples it took
 *    (docs/WORKLOADS.md, "How each system's samples are counted").
 *  - Overheads are the cells' paired wall-time ratios (st_analysis.h), as
 *    percentages; NaN when the period was not in the sweep.
 *  - The in-process part (an->inproc, st_inproc.h: the same sweep's series,
 *    or another sweep's, which peers-report --inprocess DIR sets): the
 *    row's in-process estimate is its workload's allocation cell at the
 *    smallest period with complete blocks (the most samples per second),
 *    its A/A floor the workload's baseline cell there.  A cell whose writer
 *    keeps no count gives the ratio and no cost.
 *  - The simulated part (an->sim, st_sim.h): instructions (and estimated
 *    cycles) per sample are the least-squares slope of each ok run's
 *    sim::Ir (sim::est-cycles) on its alloc_samples over the workload's
 *    simulated baseline (x = 0) and allocation cells, the fixed cost apart
 *    (the intercept minus the baseline's median: what turning sampling on
 *    costs once); the same slope fitted on each round's runs alone gives
 *    the repeat spread (no slope with fewer than two allocation cells:
 *    one cannot tell the fixed cost from it); exact when every simulated cell's runs agree in
 *    every count, else reported with its spread, never as exact.
 *  - The process level (the per-sample cost and the overheads) comes from
 *    the sweep's timed runs in the blocked design only: in a sweep of the
 *    in-process design (meta design = inprocess) or of the simulated part
 *    alone that level was not run, so the row's process_why says so and
 *    those values are NaN ("not measured" in peers.md, empty in peers.csv),
 *    never estimates from another level's runs.
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
    const char *base;                   /* base workload (binarytrees) */
    const char *workload;               /* the sweep's workload (binarytrees-go) */
    const char *system;                 /* freecheck, jemalloc, ... */
    const char *site;                   /* where its sample check lives */
    const char *samples;                /* "counted", or "not counted": the system keeps no count */
    st_reg_est cost_wall;               /* ns per sample */
    st_reg_est cost_cpu;                /* ns per sample */
    st_interval over_32k;               /* paired wall ratio at 32 KiB (ratio, not percent) */
    st_interval over_512k;              /* at 512 KiB */
    st_interval over_4m;                /* at 4 MiB */
    const struct st_inproc_cell *ip;    /* in-process: the allocation cell used (see above), or NULL */
    const struct st_inproc_cell *ip_aa; /* in-process: the workload's A/A cell, or NULL */
    size_t sim_cells;                   /* simulated allocation cells with ok runs (0: no simulated part) */
    double sim_ir, sim_cyc;             /* instructions, estimated cycles per sample (NaN: not counted) */
    double sim_fixed_ir, sim_fixed_cyc; /* the fixed cost: intercept minus the baseline's median */
    double sim_ir_lo, sim_ir_hi;        /* the slope fitted on each round's runs alone: extremes */
    double sim_spread;                  /* largest (max - min) / min of sim::Ir over one cell's runs */
    int sim_exact;                      /* 1 every cell's runs agree in every count, 0 not, -1 < 2 runs */
    const st_result *baseline;          /* its baseline */
    const st_result **cells;            /* its allocation cells, by period (ncells) */
    size_t ncells;
    char **series;           /* per cell: the figure's line, the system or
                                  "<system>-<mode>" when the workload was
                                  sampled in more than one mode */
    const char *process_why; /* NULL: the process level (the blocked design) was run for the row;
                                else why its columns are "not measured" (their values NaN) */
    char note[256];
} st_peer_row;

typedef struct st_peers {
    st_peer_row *rows;
    size_t n;
} st_peers;

/* For peers.dat: the row's in-process per-sample cost (which: 0 the
 * estimate, 1 lower, 2 upper end; NaN without one), and whether its
 * simulated counts repeat ("exact", "not_exact", "-"). */
double st_peer_inproc_cost(const st_peer_row *r, int which);
const char *st_peer_sim_repeat(const st_peer_row *r);

/* Builds the rows from an analysis (with its fits). */
void st_peers_compute(const st_analysis *an, st_peers *out);
void st_peers_free(st_peers *p);
/* 1 if the rows hold a system other than freecheck (a sweep of several
 * systems, which gets plotdata/peers.dat and figure 8), else 0. */
int st_peers_several(const st_peers *p);

/* Sample counts implausible against bytes / period (docs/WORKLOADS.md,
 * "Measuring your own runtime"): an allocation cell whose used runs carry
 * alloc_samples and bytes_allocated, with median samples n and median
 * bytes / period E, is implausible when n < E / 2 - 6 sqrt(E) or n > 2 E +
 * 6 sqrt(E) (a Poisson count of mean E is within 6 sd of it; the factor 2
 * leaves room for size classes, object headers and a system's own
 * allocations).  In the in-process design (the cell has segment series in
 * an->inproc) a run samples only in its B segments: E is then the median
 * of each run's sampled segments' bytes (st_inproc_cell.sampled_bytes)
 * over the period.  A count that misses samples (node --heap-prof keeps
 * only those of objects still live) gives per-sample costs far too large. */
typedef struct st_implausible {
    const st_result *r; /* the cell */
    double samples;     /* median samples per run */
    double expected;    /* median bytes_allocated (segments: sampled bytes) / alloc_period per run */
    int segments;       /* 1: an in-process cell, E from its sampled segments' bytes */
} st_implausible;
/* The implausible cells of an, in cell order; *out fresh (free it). */
size_t st_peers_implausible(const st_analysis *an, st_implausible **out);
/* The warning in summary.md (nothing when there is none). */
void st_peers_write_implausible_md(FILE *f, const st_analysis *an);
/* The same as "analyze: warning: ..." lines (stderr). */
void st_peers_print_implausible(FILE *f, const st_analysis *an);

/* peers.csv: one row per (base workload, system). */
void st_peers_write_csv(FILE *f, const st_peers *p);
/* peers.md: the table, the skipped systems, notes; inproc_dir names the
 * sweep the in-process estimates come from (NULL: an's own). */
void st_peers_write_md(FILE *f, const st_analysis *an, const st_peers *p, double confidence, const char *inproc_dir);
/* (plotdata/peers.dat: st_write_peers_dat, st_report.h.) */

#endif
