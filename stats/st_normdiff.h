/* st_normdiff.h - allocation against time sampling, estimated directly: the
 * interval of the difference of their normalized overheads per 1000
 * samples/s (docs/STATISTICS.md, headline 2).
 *
 * Invariants:
 *  - One comparison per key (st_db.h, st_cell_in_key): per workload, one
 *    per time sampler's mode of its time cells (the workload itself for
 *    signal, "gcbench/thread" for thread), so a sweep of both modes compares
 *    allocation sampling against each time sampler.  The cells compared
 *    are st_pick_normalized's for the key (the fixed-mode allocation cell
 *    and the key's time cell nearest 1000 samples/s).
 *  - Paired (both cells with per-block values, the blocked design): the
 *    blocks of the two cells are matched by round (a round holds one block of
 *    each), and rounds are resampled: each resample draws the matched rounds
 *    with replacement and takes HL(alloc blocks) - HL(time blocks) of the
 *    same rounds, so whatever a round's hour did to both cells stays in the
 *    difference.  BCa with the jackknife over rounds.  The estimate is that
 *    of the matched rounds (the cells' own paired values use all their
 *    blocks).  Fewer than 3 rounds in common (blocks not laid out in
 *    rounds): each cell's blocks resampled on their own (rounds = 0).
 *  - Unpaired: the two cells' runs and their shared baseline's runs are
 *    resampled together (st_bootstrap_groups over the three groups), the
 *    difference computed from each resample's medians as each cell's
 *    normalized overhead is.
 *  - A replicated sweep: the replicates' differences combined as every
 *    other statistic (st_replicates.h), pooled over the workloads.
 *  - The verdict (st_diff_verdict): allocation cheaper when the interval
 *    lies below 0, time cheaper above 0, equivalent within M when it lies in
 *    [-M, M] and contains 0, not resolved otherwise.
 *  - Seed: opts.seed XOR fnv1a64(workload + "#normdiff").
 */
#ifndef ST_NORMDIFF_H
#define ST_NORMDIFF_H

#include "st_analysis.h"
#include "st_verdict.h"

typedef struct st_normdiff {
    const char *workload;   /* the key: the workload (owned by the sweep) or "<workload>/<mode>" (by keys) */
    const st_result *a, *t; /* the cells (NULL when the workload lacks one) */
    st_interval diff;       /* alloc minus time, normalized overhead per 1000 samples/s */
    double se;              /* the SD of diff's resampled values times sqrt(m / (m - 1)), m the rounds
                             * (paired) or the smallest group; the SE a replicate enters the
                             * combination with (st_replicates.h); NaN without an interval */
    int paired;             /* 1: matched rounds of blocks; 0: runs */
    size_t rounds;          /* matched rounds (paired; 0: the cells' blocks resampled on their own) */
    st_level level;         /* blocks, processes, or replicates */
    st_normres res;
} st_normdiff;

typedef struct st_normdiffs {
    st_normdiff *d;
    size_t n;
    const char **keys; /* the keys of d, in order (nkeys == n) */
    size_t nkeys;
    char **owned; /* the keys made here ("<workload>/<mode>") */
    size_t nowned;
} st_normdiffs;

/* The verdict of a difference interval (alloc - time) with margin M. */
st_normres st_diff_verdict(const st_interval *d, double margin);

/* Every workload's difference (report order), into an->normdiffs. */
void st_analyze_normdiff(st_analysis *an, const st_analysis_opts *opts);

/* The report's list of comparisons: the keys (in *w, nkeys returned) once
 * st_analyze_normdiff made them, else w and nw as given (the workloads). */
size_t st_normdiff_keys(const st_analysis *an, const char ***w, size_t nw);

/* The difference of one key (a workload, or "<workload>/<mode>"), or NULL. */
const st_normdiff *st_normdiff_find(const st_analysis *an, const char *workload);

void st_normdiffs_free(st_normdiffs *d);

/* Allocation against time sampling for one workload (headline 2 and
 * normalized.dat): the cells st_pick_normalized chooses and which is cheaper
 * per 1000 samples/s (st_verdict.h), judged from the interval of their difference
 * (st_normdiff.h: alloc minus time, resampled jointly; st_diff_verdict):
 * ALLOC / TIME: the difference's interval lies below / above 0;
 * EQUIVALENT: it lies within [-margin, margin]; UNRESOLVED: none of these;
 * NA: a cell or the interval is missing.  The intervals shown beside it are
 * the paired ones (paired_norm: Hodges-Lehmann over blocks, one-sample BCa)
 * when both cells have one, else the unpaired ones (norm). */
typedef struct st_normcmp {
    const st_result *a, *t;     /* the cells compared (NULL if none) */
    int paired;                 /* 1: the paired intervals are shown (and the difference is of matched blocks) */
    const st_interval *ai, *ti; /* the intervals shown (NULL with a missing cell) */
    const st_interval *diff;    /* the difference alloc - time the verdict judged (NULL without one) */
    st_level level;             /* what diff covers */
    st_normres res;
} st_normcmp;

void st_normcmp_make(const st_analysis *an, const char *workload, st_normcmp *out);
/* "paired", "unpaired" (the intervals judged), "-" without a verdict. */
const char *st_normcmp_basis(const st_normcmp *c);
/* One word for plot data: alloc_cheaper, time_cheaper, equivalent, not_resolved, na. */
const char *st_normcmp_word(const st_normcmp *c);

#endif
