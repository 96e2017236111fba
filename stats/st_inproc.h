/* st_inproc.h - the in-process estimator: ABBA blocks of segment series
 * (runtime/sgc_alt.h, docs/FORMATS.md) -> per-block log-ratios -> the
 * steady-state marginal cost of sampling with a one-sample BCa interval
 * over blocks (docs/STATISTICS.md "In-process alternation").
 *
 * Invariants:
 *  - A block is used only when it is complete: its four segments (positions
 *    0..3 of one block of one run) are all present, ended at a boundary
 *    (not at exit), two are A and two are B, and the work of each half is
 *    positive.  The lead-in (block 0) is never used.  Blocks of different
 *    runs (processes) are pooled.
 *  - Work is the segments' hook iterations when every segment of every
 *    complete block has some, otherwise their bytes allocated.
 *  - Per block: r = log((cpu_B / work_B) / (cpu_A / work_A)), the sums over
 *    the block's two B and two A segments; s = samples_B / (cpu_B / 1e9),
 *    the B half's samples per CPU second.
 *  - Estimates are functions of the medians over blocks: ratio =
 *    exp(median r); per-sample cost (ns of CPU) = (1 - 1/ratio) * 1e9 /
 *    median s; normalized overhead per 1000 samples/s = 1 + (ratio - 1) *
 *    1000 / median s.  Their intervals come from one bootstrap over blocks
 *    (st_bootstrap with no group 0: one-sample BCa), so a block's r and s
 *    are drawn together.
 */
#ifndef ST_INPROC_H
#define ST_INPROC_H

#include <stddef.h>
#include <stdint.h>
#include "st_boot.h"
#include "st_changepoint.h"
#include "st_levels.h"

/* One segment as the estimator needs it. */
typedef struct st_seg {
    int64_t run;       /* the process it belongs to (e.g. the run id) */
    int64_t block;     /* block within the process; 0 = lead-in */
    int pos;           /* position in the block, 0..3 */
    char kind;         /* 'A' or 'B' */
    int complete;      /* 1 if it ended at a boundary, 0 at exit */
    double cpu_ns;     /* thread CPU time */
    double bytes;      /* bytes allocated */
    double iterations; /* hook iterations */
    double samples;    /* allocation samples + time samples */
    int uncounted;     /* 1: the writer does not count those samples ('unmeasured') */
} st_seg;

/* The blocks of a series. */
typedef struct st_blocks {
    size_t n;            /* complete blocks */
    double *log_ratio;   /* r per block */
    double *sps;         /* s per block */
    int64_t *run_of;     /* the run (process) of each block; blocks are in (run, block) order */
    int64_t *block_of;   /* its block number within the run */
    size_t runs;         /* processes contributing at least one block */
    size_t skipped;      /* incomplete blocks left out (lead-ins not counted) */
    int work_iterations; /* 1: work = iterations, 0: bytes */
    int uncounted;       /* 1: some B segment's samples are not counted: no per-sample cost */
} st_blocks;

/* One process of a cell: its steady state and its own estimates. */
typedef struct st_inproc_proc {
    int64_t run;       /* the run (process) */
    int replicate;     /* its replicate (st_replicates.h), 0 without one */
    size_t first;      /* its blocks are blocks[first .. first + blocks) of the cell */
    size_t blocks;     /* complete blocks */
    size_t kept;       /* of them, in its steady state (the last kept ones) */
    st_cp cp;          /* the changepoint analysis of its per-block log-ratios */
    st_interval ratio; /* over its kept blocks: one-sample BCa, as the pooled estimate */
    st_interval cost_ns, norm;
    double se[3];  /* bootstrap SEs of its ratio (log scale), cost and normalized overhead (st_inproc_proc_se) */
    double *draws; /* the resamples' median log-ratios less the process's own (ndraws; NULL without an SE) */
    size_t ndraws;
} st_inproc_proc;

/* The bootstrap standard errors of one process's three estimates over its
 * blocks lr[0..n-1], sps[] (the ratio exp(median lr) on the log scale, so
 * the median of lr; the per-sample cost and the normalized overhead from
 * both medians, as the process's interval computes them): the standard
 * deviation of each over `resamples` resamples of the n blocks drawn whole
 * (gsl_rng mt19937 seeded with the 32-bit fold of the seed, draws
 * gsl_rng_uniform_int(rng, n) in order), times sqrt(n / (n - 1)), as
 * st_hl_boot_se.  Cochran's Q over the processes (the HET flag) and their
 * random-effects combination weigh them by these, not by their interval's
 * width over 2 z.  NaN below 3 blocks, with a non-finite block, and for the
 * cost and normalized overhead when uncounted. */
void st_inproc_proc_se(const double *lr, const double *sps, size_t n, int uncounted, size_t resamples, uint64_t seed,
                       double se[3], double *draws);

/* The HET flag's p-value: Cochran's Q of the processes' median log-ratios
 * est[i] with SEs se[i] against its bootstrap distribution under "the
 * processes do not differ", not against chi-square(k - 1) (which, with
 * SEs estimated from about 100 heavy-tailed blocks, fired on 0.072 of null
 * cells at p < 0.05: docs/STATISTICS.md, "Levels").  Resample b's Q* is
 * the Q of draws[i][b] (process i's resampled median less its own median:
 * every process centred on 0, so the null holds) with the same se[i];
 * p = (1 + #{Q* >= Q}) / (1 + B).  NaN with fewer than 2 processes. */
/* At most this many processes in one Q test (more: no p-value). */
#define ST_INPROC_QMAX 64

double st_inproc_q_boot_p(const double *est, const double *se, double *const *draws, size_t k, size_t B);

/* One replicate of a cell: its processes combined. */
typedef struct st_inproc_rep {
    int replicate;     /* st_replicates.h's index */
    size_t processes;  /* processes combined */
    st_level level;    /* blocks (one process) or processes */
    st_interval ratio; /* its ratio, per-sample cost and normalized overhead at that level */
    st_interval cost_ns, norm;
    st_re re; /* the ratio's combination (log scale) */
} st_inproc_rep;

/* The estimate for one cell. */
typedef struct st_inproc {
    st_blocks blocks;    /* what it was computed from */
    st_interval ratio;   /* CPU per unit of work, B over A: every complete block pooled (blocks level) */
    st_interval cost_ns; /* per-sample cost, ns of CPU (pooled, blocks level) */
    st_interval norm;    /* normalized overhead per 1000 samples/s (pooled, blocks level) */
    double sps;          /* median samples per CPU second in B halves */
    double sd_log;       /* standard deviation of r over blocks */
    /* The levels (docs/STATISTICS.md, "Levels"; st_inproc_levels): the
     * steady-state blocks of each process, each process estimated on its
     * own, and the processes combined by a random-effects model. */
    st_level level;       /* what lv_* cover: blocks (one process), processes, replicates */
    st_interval lv_ratio; /* the cell's ratio at that level */
    st_interval lv_cost_ns, lv_norm;
    st_re re;              /* the ratio's combination over processes (log scale; the first replicate) */
    st_re lv_re;           /* the combination lv_ratio came from (log scale; k < 2: none) */
    int heterogeneous;     /* re.q_p below alpha: the processes differ beyond their blocks' noise */
    st_inproc_proc *procs; /* nprocs processes with at least one complete block */
    size_t nprocs;
    st_inproc_rep *reps; /* one per replicate with processes, by replicate index */
    size_t nreps;
    size_t steady_after, steady_none, untested; /* processes by st_cp steady state (flat ones: the rest) */
    size_t dropped;                             /* blocks left out before a steady state */
    size_t kept;                                /* blocks used by the levels */
    double rep_tau, rep_tau_family, rep_within; /* replicated sweeps: the ratio's components (log scale) */
} st_inproc;

/* Groups segs (any order) into complete blocks.  Fills out (arrays owned by
 * it: st_blocks_free).  Never fails. */
void st_inproc_blocks(const st_seg *segs, size_t n, st_blocks *out);
void st_blocks_free(st_blocks *b);

/* Blocks and estimates; out->blocks is filled too (free with
 * st_inproc_free).  Fewer than ST_BOOT_MIN_RUNS blocks give no interval
 * (method ST_CI_NONE with the reason). */
void st_inproc_estimate(const st_seg *segs, size_t n, const st_boot_opts *opts, st_inproc *out);
void st_inproc_free(st_inproc *e);

/* The levels of an estimate made by st_inproc_estimate: each process's
 * series through st_cp_find (blocks before a steady state left out), each
 * process's kept blocks bootstrapped alone (seed opts->seed XOR
 * fnv1a64("#proc" + its index)), and per replicate (replicate_of(run, ctx),
 * NULL: all one replicate) the processes combined by st_re_combine: the
 * ratio on the log scale, the per-sample cost and the normalized overhead on
 * theirs.  One process: its blocks-level interval.  Several replicates:
 * lv_* is the first replicate's until st_inproc_load combines them. */
void st_inproc_levels(st_inproc *e, const st_boot_opts *opts, int (*replicate_of)(int64_t run, void *ctx), void *ctx);

/* The largest segment series read (64 MiB: a million segments of the longest
 * lines the runtime writes), and the longest line. */
#define ST_SERIES_MAX_BYTES (64ull << 20)
#define ST_SERIES_MAX_TEXT "64 MiB"
#define ST_SERIES_MAX_LINE 1024

/* Reads a segment series file (docs/FORMATS.md) and appends its segments
 * to *segs (grown with realloc; *n counts them), tagged with run.  Which
 * samples count: the sampler(s) the series alternates ("alternate" line, a
 * mode of SGC_ALT_MODES in runtime/sgc_alt.h: the samples of the samplers
 * the mode switches, alloc -> allocation samples, time -> time samples,
 * both -> both; a mode that switches none, none (A/A) -> both).  Segment
 * ends are names of SGC_ALT_ENDS; a segment that ended at exit is
 * incomplete.  Nothing of the file is skipped: it must be a regular file of
 * at most ST_SERIES_MAX_BYTES (checked before reading), every line at most
 * ST_SERIES_MAX_LINE characters ending in LF, fields separated by one
 * space; the header line, then each setting of docs/FORMATS.md at most once
 * (alternate required; numbers are unsigned decimal integers, words the
 * runtime's names), one columns line of known, distinct fields (the
 * estimator's nine required), seg lines of exactly those fields (index, if
 * given, counting from 0; pos 0..3; on, if given, 1 exactly for B segments
 * but under none), and the "segments N" line last with N the seg lines.
 * Returns 0, or -1 with the reason (file and line) in err; *segs is then
 * unchanged in content up to the old *n. */
int st_inproc_read_series(const char *path, int64_t run, st_seg **segs, size_t *n, char *err, size_t errlen);

/* The in-process estimates of a sweep: one per cell (cell_id order). */
typedef struct st_inproc_cell {
    char *workload, *label, *kind, *alloc_mode, *time_clock;
    long long alloc_period, time_hz;
    double depth; /* cells.depth, NaN when none */
    /* The family claim (docs/STATISTICS.md, "Families"): the cells of one
     * kind and setting over the workloads (depth cells excluded), each
     * interval at 1 - alpha / family_size (Bonferroni), so that all of them
     * hold together at the confidence level. */
    size_t family_size;                     /* 0: not in a family (no interval, or a depth cell) */
    double sim_lo, sim_hi;                  /* the simultaneous interval of lv_ratio */
    size_t exact_checked, exact_mismatches; /* fixed-mode segments checked, and wrong */
    char cpu_clock[16];                     /* its segments' CPU clock: thread, process, mixed ("" without segments) */
    /* The median over its runs of the bytes allocated in a run's sampled
     * segments (on = 1), NaN without segments: what the run's samples come
     * from in this design (st_peers_implausible's bytes). */
    double sampled_bytes;
    st_inproc e;
} st_inproc_cell;

typedef struct st_inprocs {
    st_inproc_cell *cells;
    size_t n;             /* 0: the sweep has no segment series */
    int design_inprocess; /* meta design is inprocess */
    size_t replicates;    /* replicates of the sweep's measured runs (st_replicates.h) */
    double confidence;    /* of every interval */
} st_inprocs;

/* The in-process part of analyze: when DIR/results.db has segment series
 * (a sweep in the in-process design), estimates every cell from its used
 * runs' series (bootstrap seed: opts->seed XOR fnv1a64(label + "#inproc")).
 * A segment whose samples are NULL in the table (the writer listed them as
 * unmeasured) is uncounted: the cell gets the ratio and no per-sample cost.
 * The cell's CPU clock is its segments' cpu_clock (thread when the table
 * has no such column: freecheck's runtime before it was added).
 * Returns 0 (out->n = 0: no series), or -1 with the reason in err. */
int st_inproc_load(const char *dir, const st_boot_opts *opts, st_inprocs *out, char *err, size_t errlen);
void st_inprocs_free(st_inprocs *p);

/* The in-process part of analyze's outputs, which st_write_outputs
 * (st_report.h) writes with the others (plotdata/inprocess.dat from the same
 * estimates): inprocess.csv (header, one row per cell), and the section "In-
 * process alternation" at the end of summary.md; each ratio with its verdict
 * at the equivalence margin (st_paired_verdict). */
#include <stdio.h>
void st_inproc_write_csv(FILE *f, const st_inprocs *ip, double margin);
void st_inproc_write_md(FILE *f, const st_inprocs *ip, double margin);

#endif /* ST_INPROC_H */
