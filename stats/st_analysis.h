/* st_analysis.h - the per-cell analysis of a sweep: overheads, rates, costs, tests, checks.
 *
 * Invariants:
 *  - One st_result per cell, in report order: by workload, then kind
 *    (baseline, alloc, time, alloc+time, anything else), alloc mode, period,
 *    time clock, rate, label.  Results point into the st_sweep they were
 *    computed from, which must outlive them.
 *  - Every interval is computed by st_bootstrap on the cell's used runs
 *    against its baseline's (docs/STATISTICS.md), with the seed
 *    opts.seed XOR fnv1a64(label): a cell's numbers depend only on its own
 *    runs, its baseline's runs and the options.
 *  - Anything left undefined (NaN, method NONE) has its reason in the
 *    result's note or in the interval's why, so outputs can always say why.
 *  - Nothing is removed: outliers are counted, failed runs are counted.
 */
#ifndef ST_ANALYSIS_H
#define ST_ANALYSIS_H

#include "st_boot.h"
#include "st_db.h"
#include "st_levels.h"
#include "st_paired.h"
#include "st_desc.h"
#include "st_rank.h"

#include <stddef.h>

/* The metrics bootstrapped per run (indices into st_sample.metric). */
enum { ST_M_WALL = 0, ST_M_CPU, ST_M_ASPS, ST_M_TSPS, ST_M_SPS, ST_M_SAMPLES, ST_M_COUNT };

/* One exactness mismatch, for the loud report. */
typedef struct st_mismatch {
    const st_cell *cell;
    const st_run *run;
    double points;   /* alloc_sample_points */
    double expected; /* floor(sampled_bytes / period) */
    double period;
} st_mismatch;

typedef struct st_result {
    const st_cell *cell;
    const st_cell *baseline;         /* its baseline cell; NULL if none; == cell for a baseline */
    int is_baseline;                 /* kind == "baseline" */
    int samples_alloc, samples_time; /* which samplers the cell turns on */
    size_t runs, failed, baseline_runs;
    st_desc wall, cpu;  /* descriptive statistics of the cell's used runs */
    int cpu_task_clock; /* CPU time is perf::task-clock (1) or user+sys (0) */
    st_interval overhead, cpu_overhead, alloc_sps, time_sps, sps, norm, cost;
    double alloc_samples, alloc_points, time_samples; /* medians per run */
    double hz_achieved, bytes_allocated, gc_ns;       /* medians per run */
    st_mw mw;                                         /* Mann-Whitney of wall times vs the baseline */
    const char *verdict;                              /* the cell's one verdict (st_verdicts_apply), baseline */
    char verdict_text[48];                            /* room for a verdict with the margin in it */
    size_t exact_checked, exact_mismatches, exact_missing;
    double samples_ratio;   /* median points / (sampled_bytes / period); NaN if n/a */
    st_interval aa;         /* baseline rows: odd rounds vs even rounds */
    size_t aa_odd, aa_even; /* runs in each half */
    double aa_floor;        /* max(hi - 1, 1 - lo), NaN if no interval */
    double baseline_median; /* median wall_ns of its baseline (NaN if none) */
    /* Paired comparison over blocks (blocked design; docs/STATISTICS.md).  For a
     * baseline, its A/A blocks.  Log-ratios are Hodges-Lehmann estimates with a
     * one-sample BCa interval, reported as ratios. */
    size_t pairs;            /* blocks with both runs used */
    st_interval paired;      /* wall time ratio, cell run / its adjacent baseline run */
    st_interval paired_cpu;  /* the same for CPU time */
    st_interval paired_norm; /* 1 + HL over blocks of (ratio - 1) * 1000 / samples per second */
    st_interval paired_cost; /* HL over blocks of (wall - baseline wall) / samples, us */
    st_verdict pverdict;     /* verdict of paired with the margin */
    double paired_floor;     /* baselines: max(hi - 1, 1 - lo) of the A/A blocks, else NaN */
    /* Per-block values of the paired normalized overhead (1 + z) and the
     * round of each block, for the allocation-vs-time difference (npz of
     * them; NULL outside the blocked design). */
    double *pair_norm;
    int64_t *pair_round;
    size_t npz;
    /* Levels (st_levels.h, st_replicates.h): what the intervals cover, and
     * the variance components of a replicated sweep. */
    size_t replicates;       /* replicates with used runs of the cell (1: not replicated) */
    st_level overhead_level; /* overhead, cpu_overhead, norm, cost */
    st_level paired_level;   /* paired, paired_cpu, paired_norm, paired_cost */
    double rep_overhead_tau; /* between-replicate SD of log(overhead): the cell's own estimate (NaN unless >= 2) */
    double rep_overhead_tau_family; /* its family's pooled estimate */
    double rep_overhead_within;     /* RMS of the replicates' standard errors of log(overhead) */
    double rep_paired_tau, rep_paired_tau_family, rep_paired_within;        /* the same for log(paired) */
    double rep_overhead_tau_used, rep_overhead_tau_lo, rep_overhead_tau_hi; /* the SD the interval used (its own or
                                                                             * its family's), Q-profile interval */
    double rep_paired_tau_used, rep_paired_tau_lo, rep_paired_tau_hi;
    st_re paired_re;   /* replicated sweeps: the combination the paired interval came from (log scale) */
    double *pair_log;  /* the per-block log-ratios of the paired ratio (pairs of them; NULL if none) */
    double *pair_cpu;  /* the per-block log-ratios of CPU time (pairs of them; NULL when CPU time is missing) */
    double *pair_cost; /* the per-block per-sample costs, us (npz of them, the rounds of pair_round; NULL if none) */
    /* The standard error of log(paired) at paired_level: over blocks the
     * kernel SE of the Hodges-Lehmann estimate of pair_log (st_hl_kernel_se,
     * the SE a replicate enters the combination with: st_replicates.h);
     * over replicates the combination's (paired_re.se).  NaN below 3 blocks. */
    double paired_se;
    /* The cell's used runs (round order) and its baseline's, as the unpaired
     * bootstrap saw them: run_m[m] the metric m of each of run_n runs (NULL
     * when not finite on every run), base_m[0..1] wall and CPU time of the
     * base_n baseline runs; for st_unpaired_se. */
    double *run_m[ST_M_COUNT], *base_m[2];
    size_t run_n, base_n;
    /* The family claim (docs/STATISTICS.md, "Families"): the fixed-mode
     * allocation cells of one period, or the wall-clock time cells of one
     * rate, over the workloads (depth cells excluded); each paired interval
     * at 1 - alpha / family_size (Bonferroni), all holding together at the
     * confidence level. */
    size_t family_size;        /* 0: in no family (no paired interval) */
    double sim_lo, sim_hi;     /* the simultaneous paired interval */
    st_verdict family_verdict; /* the verdict of the simultaneous interval at the margin */
    char note[768];            /* reasons, '; '-separated */
    /* Adaptive rounds (sweep --halfwidth; st_stop.h): the rounds after the
     * planned ones in which the cell ran a block (for a baseline, an A/A
     * block), and its pairs in the planned rounds (the pilot). */
    size_t adaptive_rounds;
    size_t pilot_pairs;
} st_result;

/* The rule the paired intervals of a blocked sweep come from. */
typedef enum st_paired_rule {
    ST_RULE_FIXED = 0,  /* no adaptive rounds (--halfwidth off): every block planned */
    ST_RULE_SEQUENTIAL, /* adaptive rounds by the sequential rule of sweeps before the two-stage one */
    ST_RULE_TWO_STAGE,  /* adaptive rounds by the two-stage rule: extended cells get its interval */
} st_paired_rule;

/* "fixed", "sequential", "two-stage". */
const char *st_paired_rule_name(st_paired_rule r);

struct st_costfits;

typedef struct st_analysis {
    const st_sweep *sweep;
    struct st_costfits *fits; /* per-sample cost by regression (st_costfit.h) */
    st_result *results;       /* ncells of them, report order */
    size_t nresults;
    st_mismatch *mismatches;
    size_t nmismatches;
    size_t used_runs, failed_runs;   /* over the whole sweep */
    int task_clock_event;            /* index of perf::task-clock in sweep->events, or -1 */
    size_t blocks;                   /* measured blocks with both runs used (0: not a blocked sweep) */
    double margin;                   /* the verdicts' equivalence margin */
    double confidence;               /* of every interval */
    size_t replicates;               /* replicates of the sweep (st_replicates.h); 1 when not replicated */
    const struct st_sim *sim;        /* the simulated cells' analysis (st_sim.h), or NULL; set by the caller */
    const struct st_inprocs *inproc; /* the in-process estimates (st_inproc.h), or NULL; set by the caller */
    struct st_normdiffs *normdiffs;  /* allocation against time per workload (st_normdiff.h), or NULL */
    /* Adaptive rounds, from the meta table's config (runs, halfwidth) and
     * adaptive_rule: planned_rounds 0 and rule fixed without them. */
    size_t planned_rounds;
    double halfwidth;
    st_paired_rule rule;
} st_analysis;

typedef struct st_analysis_opts {
    st_boot_opts boot;
    size_t fit_resamples;     /* bootstrap resamples of the cost regressions (st_costfit.h) */
    int progress;             /* print one line per workload on stderr */
    double margin;            /* equivalence margin of the verdicts (0.02 = 2%) */
    const struct st_sim *sim; /* the simulated part (st_sim.h), or NULL: its cost fits join an->fits */
    int no_fits;              /* 1: no cost fits (the analysis of one replicate, st_replicates.h) */
} st_analysis_opts;

/* Analyses every cell of sw, without the cost fits (an->fits stays NULL):
 * st_analyze (st_analyze.h) calls it first and then fits the costs, which
 * need these results, so the cost fits sit above this module, not inside it.
 * Never fails (allocation failure exits). */
void st_analyze_cells(const st_sweep *sw, const st_analysis_opts *opts, st_analysis *an);

/* Frees what st_analyze_cells allocated and zeroes *an; st_analysis_free
 * (st_analyze.h) frees the cost fits and the normalised differences first. */
void st_analysis_free_cells(st_analysis *an);

/* The paired comparisons of every result (st_analyze calls it last): pairs
 * each used role-1 run with the used role-0 run of its block, and fills
 * pairs, paired*, pverdict and paired_floor (st_pairs.c).  The seed of a
 * cell is opts.seed XOR fnv1a64(label + "#paired").  In a sweep with
 * adaptive rounds by the two-stage rule (an->rule), every cell gets the
 * two-stage intervals (st_stop_interval, its pairs of the planned rounds
 * the pilot) for all four paired statistics; adaptive_rounds and pilot_pairs are filled for every
 * sweep with adaptive rounds. */
void st_analyze_paired(st_analysis *an, const st_analysis_opts *opts);

/* The families of the paired comparisons (st_pairs.c): family_size, sim_lo,
 * sim_hi and family_verdict of every result; the last step of an analysis
 * (after st_reps_apply, whose intervals over replicates it uses). */
void st_analyze_families(st_analysis *an, const st_analysis_opts *opts);

/* The unpaired statistics st_unpaired_se knows: the overhead, the CPU
 * overhead, the normalized overhead and the per-sample cost. */
typedef enum st_unpaired_stat { ST_UP_OVERHEAD = 0, ST_UP_CPU, ST_UP_NORM, ST_UP_COST } st_unpaired_stat;

/* The bootstrap standard error of result r's unpaired statistic s (log
 * scale for the two ratios) from its kept runs (run_m, base_m): the SD of
 * the statistic of the medians over `resamples` resamples that draw the
 * cell's runs and then the baseline's, whole and with replacement (gsl_rng
 * mt19937 seeded with the 32-bit fold of seed), as the unpaired interval's
 * bootstrap does, times sqrt(m / (m - 1)) with m the smaller group's runs.
 * NaN with fewer than 3 runs on a side, a metric missing, or a resample
 * where the statistic is not finite. */
double st_unpaired_se(const st_result *r, st_unpaired_stat s, size_t resamples, uint64_t seed);

/* The run's CPU time in the cell's chosen source, NaN if unavailable. */
double st_run_cpu(const st_analysis *an, const st_result *r, const st_run *run);

/* Samples per second of a run: alloc (which=0), time (1), or both (2);
 * NaN when a needed stats key is missing. */
double st_run_sps(const st_result *r, const st_run *run, int which);

/* The baseline cell of c: kind baseline, same workload, size and depth (the
 * first by cell_id; *several set when more than one matches), NULL if none.
 * Used by analyze and compare alike. */
const st_cell *st_find_baseline(const st_sweep *sw, const st_cell *c, int *several);

/* Stores c's used runs (status ok, wall_ns > 0) in round order in out
 * (room for c->nruns) and returns their number. */
size_t st_used_runs(const st_sweep *sw, const st_cell *c, const st_run **out);

/* Kind order used for sorting and grouping: baseline 0, alloc 1, time 2,
 * alloc+time 3, other 4. */
int st_kind_rank(const char *kind);

#endif
