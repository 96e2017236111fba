/* st_covbench.h - the coverage benchmark: how often the intervals analyze
 * and compare print contain a known truth, under noise resampled from this
 * machine's committed sweeps (st_synth.h; docs/STATISTICS.md, "Coverage
 * under this machine's noise").
 *
 * Invariants:
 *  - Every interval is the one the suite prints, computed by the suite's
 *    own code on a synthetic sweep: st_analyze (st_analysis.h: the paired,
 *    unpaired, A/A, normalized and per-sample cost intervals and the
 *    per-sample cost regressions of st_costfit.h), st_compare
 *    (st_compare.h: the overhead change and the ratio) and
 *    st_inproc_estimate (st_inproc.h).  A change to any of them changes
 *    the benchmark's figures with no change here.
 *  - Each kind is judged on one interval per experiment, so its count of
 *    covering intervals is binomial: covered + above + below = judged, the
 *    experiments where it had an interval; "none" counts the others (a
 *    synthetic cell always has enough blocks for one, so a nonzero count
 *    is a fault to report).  An interval covers when lo <= truth <= hi.
 *  - The truths follow from the design (st_synth.h): R for the time cell's
 *    paired, CPU and unpaired ratios; 1 for the A/A ratios; 1 + (R - 1)
 *    1000 / rate for its normalized overheads; c (ns, us in the cells'
 *    columns) for the allocation cells' per-sample costs and the
 *    regression's slope on wall and on CPU time; 0 for the regression's
 *    fixed cost; 1 + 1000 c (m + c S) / (m 1e9) for the unpaired
 *    normalized overhead of the middle allocation cell, m the baseline's
 *    population median (wall0 x exp(med_wall)); R_B - R_A for compare's
 *    paired and unpaired overhead changes of the time cell and R_B / R_A
 *    for its ratio; R x exp(truth_log) for the in-process ratio over
 *    pooled blocks, R x exp(truth_proc_log) (the mean of the source
 *    processes' medians) for the ones over processes.
 *  - Experiment k of a run uses the k-th source in turn (k mod the number
 *    of sources), a generator seeded with seed XOR the FNV-1a hash of
 *    "sweep/workload/rounds/k", and analysis seed the same XOR 1: the
 *    figures depend only on the sources, the design and the seed, not on
 *    which other sources or sizes run with them.
 */
#ifndef ST_COVBENCH_H
#define ST_COVBENCH_H

#include "st_synth.h"

#include <stddef.h>
#include <stdint.h>

/* The interval kinds judged: X(ID, name, which interval, where it is printed). */
#define ST_COV_KINDS(X)                                                                                              \
    X(PAIRED, "paired ratio", "time cell: exp(Hodges-Lehmann) of per-block log-ratios, BCa over blocks",             \
      "summary.csv paired")                                                                                          \
    X(PAIRED_CPU, "paired CPU ratio", "time cell: the same of CPU times", "summary.csv paired_cpu")                  \
    X(PAIRED_AA, "paired A/A ratio", "baseline: its A/A blocks, as paired", "summary.csv paired (baseline)")         \
    X(UNPAIRED, "unpaired overhead", "time cell: ratio of medians, two-sample BCa", "summary.csv overhead")          \
    X(UNPAIRED_CPU, "unpaired CPU overhead", "time cell: the same of CPU times", "summary.csv cpu_overhead")         \
    X(AA, "A/A (odd/even rounds)", "baseline: odd rounds' median over even rounds'", "summary.csv aa_ratio")         \
    X(NORM_PAIRED, "paired normalized overhead", "time cell: 1 + HL of (ratio - 1) 1000 / samples per second",       \
      "summary.csv paired_norm")                                                                                     \
    X(NORM, "normalized overhead", "time cell: 1 + (overhead - 1) 1000 / median samples per second",                 \
      "summary.csv norm_overhead")                                                                                   \
    X(NORM_ALLOC, "normalized overhead (alloc)", "middle allocation cell: the same", "summary.csv norm_overhead")    \
    X(COST_PAIRED, "paired per-sample cost", "middle allocation cell: HL of (wall - baseline wall) / samples",       \
      "summary.csv paired_cost_us")                                                                                  \
    X(COST, "per-sample cost", "middle allocation cell: difference of medians over median samples",                  \
      "summary.csv sample_cost_us")                                                                                  \
    X(REG_COST, "regression cost (wall)", "allocation fit: weighted Theil-Sen slope, percentile", "regress.csv")     \
    X(REG_COST_CPU, "regression cost (CPU)", "the same fit on CPU time", "regress.csv")                              \
    X(REG_FIXED, "regression fixed cost", "allocation fit on wall time: intercept - baseline median", "regress.csv") \
    X(CMP_PAIRED, "compare: overhead change (paired)", "time cell: B's median pair value - A's, two-sample BCa",     \
      "compare.csv overhead_change")                                                                                 \
    X(CMP_UNPAIRED, "compare: overhead change (unpaired)", "time cell: from medians, four-group BCa",                \
      "compare.csv unpaired_overhead_change")                                                                        \
    X(CMP_RATIO, "compare: ratio B/A", "time cell: B's median over A's", "compare.csv ratio")                        \
    X(INPROC, "in-process ratio (pooled blocks)", "exp(median per-block log-ratio), BCa over pooled blocks",         \
      "inprocess.csv pooled_ratio")                                                                                  \
    X(INPROC_PROC, "in-process ratio (processes)",                                                                   \
      "the processes' median log-ratios combined, Hartung-Knapp at least random effects", "inprocess.csv ratio")     \
    X(INPROC_EQUAL, "in-process ratio (equal-weight processes)",                                                     \
      "the t interval of the processes' median log-ratios on k - 1 df", "not printed: a candidate rule")

typedef enum st_cov_kind {
#define ST__COV_ENUM(id, name, what, where) ST_COV_##id,
    ST_COV_KINDS(ST__COV_ENUM)
#undef ST__COV_ENUM
        ST_COV_NKINDS
} st_cov_kind;

const char *st_cov_kind_name(st_cov_kind k);
/* 1 for the in-process kinds (judged by st_cov_inproc only), else 0. */
int st_cov_kind_inproc(st_cov_kind k);
const char *st_cov_kind_what(st_cov_kind k);
const char *st_cov_kind_where(st_cov_kind k);

typedef struct st_cov_tally {
    size_t judged, covered, above, below, none;
    double width; /* sum of (hi - lo) / |truth| over the judged ones (truth 0: hi - lo) */
} st_cov_tally;

typedef struct st_cov_opts {
    size_t experiments;
    size_t resamples;     /* analyze's --resamples */
    size_t fit_resamples; /* analyze's --fit-resamples */
    double confidence;
    uint64_t seed;
    st_synth_plan plan; /* rounds is set per run */
    double ratio_b;     /* compare's B: the time cell's ratio */
    int compare;        /* also compare each sweep with a second one */
    /* Adaptive rounds (0: none): sweep --halfwidth's target; each cell's
     * blocks beyond the planned rounds are then the two-stage rule's
     * (st_stop.h), decided from the planned rounds as sw_adapt.c decides
     * them (2000 resamples at 95%, seed XOR the cell id), at most
     * max_blocks; compare's kinds are not judged. */
    double adaptive;
    size_t max_blocks;
} st_cov_opts;

/* The defaults: analyze's (10000 resamples, 1000 for the fits, 95%),
 * R = 1.05, rate 1000/s, c = 1000 ns, fractions 1%, 4%, 16%, R_B = 1.08,
 * compare on. */
void st_cov_defaults(st_cov_opts *o);

/* One experiment's interval of a kind and its truth. */
typedef struct st_cov_iv {
    int has;            /* the suite gave an interval (method not none, finite bounds) */
    double est, lo, hi; /* the estimate and interval as printed */
    double truth;
} st_cov_iv;

/* Experiment k of a blocked run: the synthetic sweep of source src with
 * `rounds` rounds (and compare's second sweep), analysed; out receives
 * every kind but the in-process ones (has 0 there).  Returns the blocks the
 * sweep ran (every cell's, the A/A ones included). */
size_t st_cov_experiment(const st_nsource *src, size_t rounds, const st_cov_opts *opts, size_t k,
                         st_cov_iv out[ST_COV_NKINDS]);

/* One interval judged against its truth into t. */
void st_cov_judge(st_cov_tally *t, double lo, double hi, int has_interval, double truth);

/* Runs opts->experiments synthetic blocked sweeps of `rounds` rounds over
 * the sources src[0..nsrc-1] in turn and adds their judgements to
 * tally[ST_COV_NKINDS] (the in-process kinds stay empty); per_source (NULL,
 * or nsrc x ST_COV_NKINDS tallies) receives them by source too; *blocks
 * (NULL: not wanted) the blocks the sweeps ran, summed. */
void st_cov_blocked(const st_nsource *src, size_t nsrc, size_t rounds, const st_cov_opts *opts, st_cov_tally *tally,
                    st_cov_tally *per_source, double *blocks);

/* The in-process kinds: opts->experiments synthetic cells of procs
 * processes x blocks blocks, ratio opts->plan.ratio, over src[0..nsrc-1]
 * in turn, each estimated by st_inproc_estimate (the pooled interval) and
 * st_inproc_levels (the processes' one, analyze's), and the candidate
 * equal-weight combination of the same processes' estimates
 * (st_re_combine without SEs), into tally[ST_COV_INPROC],
 * tally[ST_COV_INPROC_PROC] and tally[ST_COV_INPROC_EQUAL] (and
 * per_source[s * ST_COV_NKINDS + kind]). */
void st_cov_inproc(const st_ipsource *src, size_t nsrc, size_t procs, size_t blocks, const st_cov_opts *opts,
                   st_cov_tally *tally, st_cov_tally *per_source);

/* The exact (Clopper-Pearson) interval of a binomial proportion k of n at
 * level conf: [0, ...] when k = 0, [..., 1] when k = n; NaN for n = 0. */
void st_cov_binomial(size_t k, size_t n, double conf, double *lo, double *hi);

#endif /* ST_COVBENCH_H */
