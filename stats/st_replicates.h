/* st_replicates.h - replication as a level of the design: which replicate
 * every run belongs to, the analysis of each replicate on its own, and the
 * cell's intervals over replicates (docs/STATISTICS.md, "Levels").
 *
 * Invariants:
 *  - A run's replicate is the pair (runs.replicate, runs.node): a sweep
 *    without the replicate column is replicate 0, one without the node
 *    column (or a NULL node) is on node "unknown".  So the replicates of a
 *    replicated sweep, the shards of a sweep that ran a cell on two nodes,
 *    and merged sweeps whose runs carry different replicate ids are all
 *    replicates.  Replicates are numbered 0..k-1 in the order of (replicate,
 *    node name).
 *  - A sweep with one replicate is analysed exactly as before (the pooled
 *    analysis is the analysis); only the level columns are added.
 *  - With several: every replicate is analysed alone (st_analyze on the
 *    sweep restricted to its runs, no cost fits), and each of a cell's
 *    intervals of the overhead, CPU overhead, normalized overhead,
 *    per-sample cost and the four paired statistics is replaced by the
 *    random-effects combination of the replicates' estimates (st_levels.h;
 *    ratios on the log scale).  Each replicate's standard error is its
 *    estimator's, from its data, never from its interval's width: for the
 *    four paired statistics the kernel SE of the Hodges-Lehmann
 *    estimate over the replicate's blocks (st_hl_kernel_se of pair_log,
 *    pair_cpu, pair_norm, pair_cost); for the four unpaired ones the
 *    bootstrap SE of the statistic of the medians over the replicate's runs
 *    and its baseline's (st_unpaired_se); for the allocation-vs-time
 *    difference the SD of its joint resampling by rounds (st_normdiff.h,
 *    se); min(ST_LEVEL_SE_RESAMPLES, --resamples) resamples, seeds from the
 *    cell's label and the quantity.  The between-replicate variance is the cell's own when it
 *    has at least ST_REP_OWN replicates, otherwise its family's (the
 *    workload's time-sampling cells, or its other cells), pooled over the
 *    family's cells with a t reference on the family's degrees of freedom.
 *    Verdicts follow the new intervals.
 */
#ifndef ST_REPLICATES_H
#define ST_REPLICATES_H

#include <stddef.h>
#include <stdint.h>

#include "st_analysis.h"
#include "st_levels.h"

#define ST_REP_OWN 5 /* replicates from which a cell's own between-replicate variance is used */

/* Run id -> replicate index, for the measured runs of a database. */
typedef struct st_repmap {
    int64_t *run_id; /* sorted */
    int *rep;        /* rep[i]: the replicate of run_id[i] */
    size_t n;
    size_t k;       /* distinct replicates */
    char **name;    /* [k]: "replicate R", "node N", or "replicate R, node N" */
    int has_column; /* the runs table has a replicate column */
} st_repmap;

/* Reads the measured runs' replicates from an open results.db (sqlite3 *).
 * Returns 0, or -1 with the reason in err. */
int st_repmap_read(void *db, st_repmap *out, char *err, size_t errlen);
/* The replicate of run_id, or 0 when it is not a measured run. */
int st_repmap_of(const st_repmap *m, int64_t run_id);
void st_repmap_free(st_repmap *m);

/* The family of a cell for pooling between-replicate variances: its
 * workload and "time" for a time-sampling cell, else "other". */
void st_rep_family(const st_cell *c, char *buf, size_t size);

/* One quantity over the replicates of many cells: est[i], se[i] of unit i
 * of cell cell[i] (0..ncells-1), family[c] the family of cell c
 * (0..nfamilies-1).  Fills out[c] for every cell: the combination, its own
 * and its family's between-replicate variance. */
typedef struct st_rep_comb {
    st_re re;                /* the interval over replicates (est, lo, hi on the units' scale) */
    size_t k;                /* replicates of the cell */
    double tau2_cell;        /* the cell's own DerSimonian-Laird estimate (NaN below 2 replicates) */
    double tau2_family;      /* its family's pooled estimate (NaN when nothing to pool) */
    double df_family;        /* the family's degrees of freedom */
    double within;           /* root mean square of the replicates' standard errors */
    int own;                 /* 1: the cell's own variance was used (>= ST_REP_OWN replicates) */
    double tau2_lo, tau2_hi; /* the Q-profile interval of the variance used (own or family) */
} st_rep_comb;

void st_rep_combine_cells(const double *est, const double *se, const size_t *cell, size_t n, size_t ncells,
                          const size_t *family, size_t nfamilies, double confidence, st_rep_comb *out);

/* The replicates of a loaded sweep: rep[r] for each of sw->runs (the
 * pooled analysis' sweep).  Returns 0, or 2 with the reason in err. */
int st_reps_load(const char *dir, const st_sweep *sw, int **rep, size_t *k, char *err, size_t errlen);

/* The intervals over replicates of an analysis an of sw with k replicates
 * (rep from st_reps_load): analyses each replicate alone and replaces the
 * cells' intervals as above; sets every result's replicates and levels.
 * With k = 1 it only sets the levels (processes for the overhead, blocks
 * for the paired statistics). */
void st_reps_apply(st_analysis *an, const int *rep, size_t k, const st_analysis_opts *opts);

#endif
