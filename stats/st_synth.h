/* st_synth.h - synthetic sweeps and in-process series with this machine's
 * noise and a known effect, for the coverage benchmark (st_covbench.h,
 * docs/STATISTICS.md "Coverage under this machine's noise").
 *
 * A noise source is what one workload's runs in a committed sweep did
 * beyond what their cells explain:
 *  - Blocked sweeps (st_nsource): every block whose two runs are used, in
 *    execution order (the first run's seq), as the log residuals of its two
 *    runs in the order they ran: log(wall) minus the median log(wall) of the
 *    run's cell, and the same of the CPU time (user + system).  The
 *    residuals keep the tails and the correlation of two adjacent runs
 *    (what pairing cancels); the block series keeps the slow drift of the
 *    machine (what it does not).  wall0, cpu0: the medians of the
 *    workload's first baseline cell; med_wall, med_cpu: the medians of the
 *    2n pooled residuals, the population median of a synthetic run's noise.
 *    The block length of the circular block bootstrap is the larger of
 *    Politis and White's lengths (st_blockboot.h) of the level series
 *    (mean of a block's two wall residuals) and of the difference series
 *    (second minus first).
 *  - In-process sweeps (st_ipsource): every process (used run) of every
 *    cell of the workload with at least ST_SYNTH_MIN_BLOCKS complete
 *    blocks (as st_inproc.h defines them), its blocks in order.  Each
 *    block's B segments' CPU times are divided by exp(c), c the median
 *    per-block log-ratio r of the process's cell (all its processes
 *    pooled, work chosen as st_inproc chooses it), so that r becomes the
 *    noise r - c around the cell's own estimate; each segment's work (the
 *    one the estimator used) is stored as both its bytes and its
 *    iterations, so either choice gives that r.  Process-to-process
 *    differences within a cell stay.  Each process has its own block
 *    length (Politis-White of its r series).  truth_log: the median of the
 *    population the synthetic cell draws from (every process of the pool
 *    equally likely, each of its blocks equally likely); truth_proc_log:
 *    the mean of the processes' own medians (each process of the pool
 *    equally likely), the truth of a combination over processes (which
 *    estimates it without bias when a process's effect does not depend
 *    on its noise).
 *
 * A synthetic blocked sweep (st_synth_sweep) has one workload ("syn") and
 * five cells: a baseline (A/A blocks), a time cell with a known ratio R
 * (its role-1 runs' wall and CPU times multiplied by R; time samples =
 * rate x wall seconds, so samples per second are exactly the rate) and
 * three fixed-mode allocation cells with a known cost per sample (c ns
 * added to wall and CPU time per sample; samples per run S_k constant,
 * the integer nearest frac_k x wall0 / c, at least 1: counts are integers).  Each round holds one block of each of the five,
 * in a random order; within each cell's blocks the role-1 run goes first
 * in half of them (balanced, in random order), as the harness plans
 * them.  The noise of the sweep's blocks in execution order is a circular
 * block bootstrap of the source's blocks; a block's first run gets the
 * observed first run's residuals.  Run = level x exp(residual) (+ effect).
 * With adaptive rounds (plan extra), rounds after the planned ones hold
 * one block of each cell that still has extra blocks to run, in a random
 * order, the role-1 run first when it went first in fewer than half of the
 * cell's blocks so far (a tie: a coin), as sw_adapt.c orders them; their
 * noise continues with a fresh circular block bootstrap; every draw of the
 * planned rounds comes first, so the planned part is the same whatever the
 * extra blocks; the meta table records config (runs, halfwidth) and
 * adaptive_rule two-stage, as the sweep does.
 * Every quantity the truth needs follows from the design exactly: the
 * cell's and the baseline's runs have the same noise distribution (each
 * pooled residual is equally likely for either), a block's log-ratio is
 * symmetric about log R, and the noise does not depend on the samples.
 */
#ifndef ST_SYNTH_H
#define ST_SYNTH_H

#include "st_blockboot.h"
#include "st_db.h"
#include "st_inproc.h"

#include <gsl/gsl_rng.h>
#include <stddef.h>

/* The fewest complete blocks a process needs to enter an in-process pool. */
#define ST_SYNTH_MIN_BLOCKS 8

typedef struct st_nblock {
    double wall[2], cpu[2]; /* log residuals of the first and second run */
} st_nblock;

typedef struct st_nsource {
    char *sweep, *workload;
    st_nblock *blocks;
    size_t n;                 /* blocks, in execution order */
    double wall0, cpu0;       /* baseline medians, ns */
    double med_wall, med_cpu; /* medians of the pooled residuals */
    st_blocklen len_level, len_diff;
    size_t L;                  /* block length used */
    double sd_diff, kurt_diff; /* of the difference series (wall) */
    double acf1_level, acf1_diff;
    double acf1_runs, kurt_runs; /* of the wall residuals of the workload's runs in execution order */
} st_nsource;

typedef struct st_ipblock {
    char kind[4];      /* 'A' or 'B' by position 0..3 */
    double cpu[4];     /* ns, B segments centred */
    double work[4];    /* the estimator's work of each segment */
    double samples[4]; /* the alternated sampler's samples */
} st_ipblock;

typedef struct st_ipproc {
    st_ipblock *b;
    double *r; /* centred log-ratio per block */
    size_t n;
    size_t L; /* its block length */
} st_ipproc;

typedef struct st_ipsource {
    char *sweep, *workload;
    st_ipproc *p;
    size_t np;
    double truth_log;      /* the population median of the centred r */
    double truth_proc_log; /* the mean of the processes' medians of the centred r (the processes-level estimand) */
    double sd, kurt;       /* of the pooled centred r */
    double acf1;           /* median over processes of rho(1) of r */
    double sd_proc;        /* standard deviation of the processes' medians */
    size_t median_L;       /* median of the processes' block lengths */
} st_ipsource;

/* Loads one noise source per workload of DIR/results.db: blocked sources
 * (a sweep whose runs have blocks) into *ns, in-process sources (a sweep
 * with segment series) into *ips; either may come back empty.  Returns 0,
 * or 2 with the reason in err (DIR not a readable sweep: st_sweep_load's
 * rules, or neither blocks nor segment series in it). */
int st_sources_load(const char *dir, st_nsource **ns, size_t *nns, st_ipsource **ips, size_t *nips, char *err,
                    size_t errlen);
void st_nsources_free(st_nsource *ns, size_t n);
void st_ipsources_free(st_ipsource *ips, size_t n);

/* Computes a blocked source's derived fields (medians, block lengths,
 * descriptive statistics) from its blocks, wall0 and cpu0: the loader
 * calls it, and so can a caller that fills blocks itself (the tests). */
void st_nsource_finish(st_nsource *s);
/* The same for an in-process source whose processes' b and r are filled. */
void st_ipsource_finish(st_ipsource *s);

/* Cell indices in the synthetic sweep (cells[] order = cell_id - 1). */
enum { ST_SYN_BASE = 0, ST_SYN_TIME, ST_SYN_ALLOC1, ST_SYN_ALLOC2, ST_SYN_ALLOC3, ST_SYN_NCELLS };

/* The design of a synthetic blocked sweep. */
typedef struct st_synth_plan {
    size_t rounds;  /* planned rounds: blocks per cell */
    double ratio;   /* R of the time cell */
    double rate;    /* its samples per second */
    double cost_ns; /* c of the allocation cells, per sample */
    double frac[3]; /* their overhead c S_k / wall0 */
    /* Adaptive rounds (all 0: none): each cell's blocks after the planned
     * rounds, and the target of sweep --halfwidth the meta table records. */
    size_t extra[ST_SYN_NCELLS];
    double halfwidth;
} st_synth_plan;

/* Builds the synthetic sweep into *out (free with st_sweep_free): the
 * layout above, noise drawn with rng.  samples[k] receives each cell's
 * samples per run (0 for the baseline and NaN for the time cell, whose
 * samples follow its wall time). */
void st_synth_sweep(const st_nsource *src, const st_synth_plan *plan, gsl_rng *rng, st_sweep *out,
                    double samples[ST_SYN_NCELLS]);

/* The segments of a synthetic in-process cell: procs processes, each one
 * of src's drawn at random, blocks blocks per process by a circular block
 * bootstrap of its blocks (its own block length), B segments' CPU times
 * multiplied by ratio; a lead-in is not written, blocks count from 1, every
 * segment complete.  *segs receives 4 x procs x blocks segments (free it).
 * The pooled estimate's truth is ratio x exp(src->truth_log), the
 * processes-level one's ratio x exp(src->truth_proc_log). */
void st_synth_inproc(const st_ipsource *src, size_t procs, size_t blocks, double ratio, gsl_rng *rng, st_seg **segs,
                     size_t *nsegs);

/* The median of a population given as values with weights (each > 0):
 * the smallest value whose cumulative weight reaches half the total, or
 * the mean of it and the next value when the cumulative weight equals half
 * exactly (within 1e-12 of the total).  Reorders v and w together. */
double st_weighted_median(double *v, double *w, size_t n);

#endif /* ST_SYNTH_H */
