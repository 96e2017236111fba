/* st_compare.h - compares two sweeps cell by cell: B against A (docs/STATISTICS.md, "Comparing two sweeps").
 *
 * Invariants:
 *  - Cells are matched by label.  A matched cell's numbers depend only on
 *    its runs and its baseline's runs in A and in B, the options and the
 *    seed opts.boot.seed XOR fnv1a64(label) (st_util.h).
 *  - The ratio (B's median wall time over A's) and the change in overhead
 *    (B's overhead minus A's, overhead = median / its baseline's median)
 *    come from the same resamples: st_bootstrap_groups over four groups,
 *    A's cell, B's cell, A's baseline, B's baseline, each run drawn whole.
 *  - Multiple comparisons: the Mann-Whitney p-values of the matched cells
 *    that have one are adjusted by Benjamini-Hochberg (false discovery rate
 *    at 1 - confidence); `compared` says how many there were.
 *  - Verdicts (threshold t, alpha = 1 - confidence): "slower" when the
 *    ratio's interval lies wholly above 1 + t and the adjusted p <= alpha,
 *    "faster" when wholly below 1 - t and adjusted p <= alpha, "same" when
 *    wholly within [1 - t, 1 + t], else "inconclusive" (with the reason in
 *    the note).  A regression is a "slower" cell.
 *  - Cells only in A or only in B are listed, never compared.  Metadata
 *    keys whose values differ are listed, the important ones first.
 *  - The comparison points into both sweeps, which must outlive it.
 *  - Outputs (Markdown, CSV, JSON, plot data) depend only on the comparison
 *    and the options: same inputs, same bytes.  Missing values are empty in
 *    CSV, null in JSON, n/a in Markdown, NaN in plot data.
 */
#ifndef ST_COMPARE_H
#define ST_COMPARE_H

#include "st_boot.h"
#include "st_db.h"
#include "st_rank.h"

#include <stdio.h>

typedef struct st_cmp_cell {
    const char *label;
    const st_cell *a, *b;           /* the cell in each sweep */
    const st_cell *a_base, *b_base; /* their baselines (NULL if none; the cell itself for a baseline) */
    int is_baseline;
    size_t a_runs, b_runs;         /* used runs */
    double a_median, b_median;     /* median wall time, ns */
    double a_overhead, b_overhead; /* median / baseline median (NaN for a baseline or without one) */
    st_interval ratio;             /* b_median / a_median */
    st_interval doverhead;         /* b_overhead - a_overhead */
    st_mw mw;                      /* B's wall times against A's */
    double p_adjusted;             /* Benjamini-Hochberg; NaN when mw.p is */
    const char *verdict;           /* slower, faster, same, inconclusive */
    char note[384];
} st_cmp_cell;

typedef struct st_cmp_meta {
    const char *key, *a, *b; /* a or b NULL when that sweep lacks the key */
    int important;           /* one of the keys listed first */
} st_cmp_meta;

typedef struct st_compare_opts {
    st_boot_opts boot;
    double threshold; /* 0.02 = 2% */
} st_compare_opts;

typedef struct st_comparison {
    const st_sweep *a, *b;
    st_compare_opts opts;
    st_cmp_cell *cells; /* matched cells, by workload, kind, label */
    size_t ncells;
    const st_cell **only_a, **only_b;
    size_t nonly_a, nonly_b;
    st_cmp_meta *meta; /* differing keys, important first, then by key */
    size_t nmeta;
    int different_machines; /* host or cpu_model differ */
    size_t compared;        /* cells with a p-value: the family Benjamini-Hochberg adjusts over */
    size_t slower, faster, same, inconclusive;
} st_comparison;

/* Compares b against a.  Never fails (allocation failure exits). */
void st_compare(const st_sweep *a, const st_sweep *b, const st_compare_opts *opts, st_comparison *c);

void st_comparison_free(st_comparison *c);

/* Benjamini-Hochberg adjusted p-values of p[0..n-1] into q (NaN entries
 * are left out of the family and stay NaN): q_(i) = min over j >= i of
 * p_(j) m / j, capped at 1, m the number of finite p. */
void st_bh_adjust(const double *p, size_t n, double *q);

/* The report formats (docs/STATISTICS.md).  Return 0, or -1 on a write error. */
int st_compare_md(FILE *f, const st_comparison *c);
int st_compare_csv(FILE *f, const st_comparison *c);
int st_compare_json(FILE *f, const st_comparison *c);
/* Forest plot data: one row per matched cell, change in percent with its interval. */
int st_compare_plotdata(FILE *f, const st_comparison *c);

#endif
