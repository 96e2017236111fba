/* st_changepoint.h - steady state of one process's series: changepoints in
 * the level of its per-block log-ratios by PELT, and where the steady state
 * starts (docs/STATISTICS.md, "Steady state per process").
 *
 * Invariants:
 *  - The series is standardized robustly before the search: s = 1.4826 *
 *    MAD of the first differences / sqrt(2) (a level shift moves one
 *    difference, not the scale); a block further than ST_CP_OUTLIER * s from
 *    the median of its window of ST_CP_HALF blocks each side stands in at
 *    that median (a Hampel filter: one wild block cannot make a segment of
 *    its own, a change of level is no outlier of its own window); z_i =
 *    (y_i - median y) / s.
 *  - The segmentation minimises sum over segments of sum (z_i - mean)^2 plus
 *    ST_CP_PENALTY * ln(n) per changepoint, exactly (PELT, Killick et al.
 *    2012: optimal partitioning with pruning, which drops no candidate that
 *    could still be optimal since splitting a segment never raises its
 *    cost).  Ties go to the earliest changepoint.  The same series gives
 *    the same answer, bit for bit.
 *  - A series of fewer than ST_CP_MIN blocks is not tested; one whose scale
 *    is 0 (no variation between neighbours) has no changepoint.
 *  - Steady state, after Barrett et al. 2017 ("Virtual machine warmup
 *    blows hot and cold"): no changepoint, the whole series (flat); every
 *    changepoint in the first quarter of the series, a warm-up: the steady
 *    state starts at the last of them, and the blocks before it are left
 *    out; a changepoint later than the first quarter, no steady state: the
 *    level still moves inside the run (a workload's phase, such as the last
 *    phase of binarytrees or gcbench), so no segment is the steady one; the
 *    process is flagged and its blocks are all kept.  (Barrett et al. take
 *    the last segment as the steady state; here that would keep only a
 *    workload's last phase, measured in docs/STATISTICS.md.)
 */
#ifndef ST_CHANGEPOINT_H
#define ST_CHANGEPOINT_H

#include <stddef.h>

#define ST_CP_MIN 8       /* shortest series tested */
#define ST_CP_HALF 2      /* the Hampel filter's window: blocks each side */
#define ST_CP_OUTLIER 3.0 /* its threshold, in robust standard deviations */
#define ST_CP_PENALTY 8.0 /* beta = ST_CP_PENALTY * ln(n) per changepoint (docs/STATISTICS.md: why 8) */
#define ST_CP_MAX 64      /* changepoints reported (the search has no limit) */

typedef enum st_steady {
    ST_STEADY_FLAT = 0, /* no changepoint: every block is steady */
    ST_STEADY_AFTER,    /* steady after a warm-up: from the last changepoint on (all in the first quarter) */
    ST_STEADY_NONE,     /* a changepoint after the first quarter: no steady state */
    ST_STEADY_UNTESTED  /* fewer than ST_CP_MIN blocks */
} st_steady;

typedef struct st_cp {
    size_t n;             /* blocks in the series */
    size_t ncp;           /* changepoints found */
    size_t cp[ST_CP_MAX]; /* the first ST_CP_MAX of them: index of the first block of each new segment, ascending */
    size_t start;         /* first steady block (0 unless ST_STEADY_AFTER) */
    st_steady steady;
    double scale; /* s above (NaN when untested) */
} st_cp;

/* Segments x[0..n-1] (in the order the blocks ran) and classifies it. */
void st_cp_find(const double *x, size_t n, st_cp *out);

/* The exact minimiser for already standardized values z[0..n-1] with
 * penalty beta per changepoint; writes the changepoints (ascending) into
 * cp (room for n) and returns their number.  Exposed for the tests, which
 * check it against optimal partitioning without pruning. */
size_t st_cp_pelt(const double *z, size_t n, double beta, size_t *cp);

/* "flat", "steady after a changepoint", "no steady state", "untested". */
const char *st_steady_name(st_steady s);

#endif
