/* st_compare.h - compares two sweeps cell by cell: B against A (docs/STATISTICS.md, "Comparing two sweeps").
 *
 * Invariants:
 *  - Every statistic is of one run time per run, opts.time: the wall time
 *    (default) or the CPU time (user + system).  A run is used when it is
 *    ok, its wall time > 0 and (CPU time) its CPU time is recorded and > 0.
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
 *  - Paired overhead (blocked sweeps): a pair is a used role-1 run of the
 *    cell and the used role-0 run of the same block (runs.block, block_role;
 *    the adjacent run of its baseline), as analyze pairs them; its value is
 *    the cell run's time over the baseline run's.  When the cell has at
 *    least one pair in A and in B (paired = 1), a_overhead and b_overhead
 *    are the medians of the pair values of each sweep, and doverhead is
 *    b_overhead - a_overhead with a two-sample BCa interval
 *    (st_bootstrap_groups over two groups, A's pairs and B's, each pair
 *    drawn whole; seed opts.boot.seed XOR fnv1a64(label + "#paired")).
 *    In-process sweeps (both with segment series, st_inproc.h): without
 *    block pairs, the values are the cell's in-process blocks' ratios
 *    exp(r) (CPU per unit of work, sampling on over off; whatever
 *    opts.time), the same median, interval and test (paired = 2, a_pairs
 *    and b_pairs count those blocks).  Otherwise (paired = 0, a cell with
 *    an overhead says why in its note) doverhead is the unpaired change
 *    above.  doverhead_unpaired is always the unpaired change.
 *  - The gate (opts.gate) is the quantity the verdicts and the test are
 *    on.  ST_GATE_RATIO: the ratio, centre 1, Mann-Whitney of B's wall times
 *    against A's.  ST_GATE_OVERHEAD: the change in overhead (doverhead),
 *    centre 0, Mann-Whitney of B's pair values against A's when paired, else
 *    of B's wall times over B's baseline median against A's over A's; a
 *    baseline cell is then "ungated" (no overhead), never a verdict of the
 *    four below and outside the Benjamini-Hochberg family.
 *  - The threshold test: p_beyond = min(1, 2 min(p_up, p_down)), p_up the
 *    p-value of H0: change <= c + t and p_down of H0: change >= c - t, each
 *    inverting the gated interval (st_boot_p_greater), so that p_beyond <
 *    alpha exactly when the interval lies wholly beyond a threshold.  The
 *    p_beyond of the compared cells are adjusted by Benjamini-Hochberg too
 *    (beyond_adjusted): the expected share of cells called slower or
 *    faster whose change is within the threshold is then at most alpha.
 *  - Verdicts (threshold t, alpha = 1 - confidence, c the gate's centre):
 *    "slower" when the gated interval lies wholly above c + t, its
 *    adjusted p_beyond <= alpha and the adjusted Mann-Whitney p <= alpha,
 *    "faster" the same below c - t, "same" when wholly within [c - t, c +
 *    t], else "inconclusive" (with the reason in the note).  A regression
 *    is a "slower" cell.
 *  - Simulated cells (st_sim.h) are matched by label among the simulated
 *    cells of both sweeps and compared exactly: for instructions, estimated
 *    cycles and the overhead in each, the difference B - A of the medians
 *    and its bounds from the repeats, [B min - A max, B max - A min] (for an
 *    overhead, each side's extremes are cell min / baseline max and cell
 *    max / baseline min).  With s = opts.sim_threshold x |A's value|:
 *    "higher" when the bounds lie above s, "lower" when below -s, else
 *    "same" (s = 0: the two sides' repeated values overlap, the difference
 *    is within the repeat spread); NULL (no verdict) when a side has no
 *    value.  Simulated cells never set the exit status.
 *  - Runs that did not succeed: a matched cell with used runs in A gets the
 *    verdict "failed" when B has failed measured runs of it and A none, or
 *    when every measured run of it failed in B; "missing" when B has no
 *    measured run of it at all.  Either replaces any timing verdict (also
 *    "ungated"), the note saying how many runs failed and the first one's
 *    reason.  A cell failing in both is noted, not gated.  Cells only in A
 *    are missing too (counted in `missing`, listed in only_a); cells only
 *    in B are listed.  Neither is compared.  A failed or missing cell fails
 *    the gate (compare's exit status 3).  Metadata keys whose values differ
 *    are listed, the important ones first.
 *  - The comparison points into both sweeps, which must outlive it.
 *  - Outputs (Markdown, CSV, JSON, plot data) depend only on the comparison
 *    and the options: same inputs, same bytes.  Missing values are empty in
 *    CSV, null in JSON, n/a in Markdown, NaN in plot data.
 */
#ifndef ST_COMPARE_H
#define ST_COMPARE_H

#include "st_boot.h"
#include "st_db.h"
#include "st_inproc.h"
#include "st_rank.h"
#include "st_sim.h"

#include <stdio.h>

/* The quantities a comparison can gate on: X(ID, option name, meaning). */
#define ST_GATES(X)                                    \
    X(RATIO, "ratio", "B's median wall time over A's") \
    X(OVERHEAD, "overhead", "B's overhead minus A's (each sweep's median over its own baseline's median)")

typedef enum st_gate {
#define ST__GATE_ENUM(id, name, what) ST_GATE_##id,
    ST_GATES(ST__GATE_ENUM)
#undef ST__GATE_ENUM
        ST_NGATES
} st_gate;

/* The run time a comparison compares: X(ID, option name, meaning). */
#define ST_CMP_TIMES(X)                                   \
    X(WALL, "wall", "the run's wall time (runs.wall_ns)") \
    X(CPU, "cpu", "the run's CPU time, user + system, every thread of its process (runs.user_ns + runs.sys_ns)")

typedef enum st_cmp_time {
#define ST__TIME_ENUM(id, name, what) ST_CMP_TIME_##id,
    ST_CMP_TIMES(ST__TIME_ENUM)
#undef ST__TIME_ENUM
        ST_CMP_NTIMES
} st_cmp_time;

/* The option name of t. */
const char *st_cmp_time_name(st_cmp_time t);
/* The run time named s into *t: 0, or -1 if s names none. */
int st_cmp_time_parse(const char *s, st_cmp_time *t);

/* The option name of g. */
const char *st_gate_name(st_gate g);
/* The gate named s into *g: 0, or -1 if s names none. */
int st_gate_parse(const char *s, st_gate *g);

typedef struct st_cmp_cell {
    const char *label;
    const st_cell *a, *b;           /* the cell in each sweep */
    const st_cell *a_base, *b_base; /* their baselines (NULL if none; the cell itself for a baseline) */
    int is_baseline;
    size_t a_runs, b_runs;     /* used runs */
    double a_median, b_median; /* median run time (opts.time), ns */
    size_t a_pairs, b_pairs;   /* blocks with the cell's run and its baseline's run both used */
    int paired; /* overhead from the pairs of both sweeps (1), from their in-process blocks (2), else from unpaired medians (0) */
    double a_overhead, b_overhead;  /* median pair value if paired, else median / baseline median (NaN for a
                                      baseline or without one) */
    st_interval ratio;              /* b_median / a_median */
    st_interval doverhead;          /* b_overhead - a_overhead (paired or unpaired, as above) */
    st_interval doverhead_unpaired; /* the unpaired change, always */
    st_mw mw;                       /* the gate's test: B's wall times against A's (ratio gate), or B's pair
                                      values against A's, or each run over its sweep's baseline median
                                      (overhead gate, paired or not) */
    double p_adjusted;              /* Benjamini-Hochberg; NaN when mw.p is */
    double p_beyond;                /* the threshold test's p-value (above), NaN without a gated interval */
    double beyond_adjusted;         /* Benjamini-Hochberg over the compared cells' p_beyond */
    const char *verdict;            /* slower, faster, same, inconclusive; ungated (a baseline, overhead gate);
                                       failed, missing (runs that did not succeed or run in B) */
    char note[384];
    char failure[192]; /* verdict failed or missing: why (also in the note), else "" */
} st_cmp_cell;

/* One simulated quantity of a cell in A and B. */
typedef struct st_cmp_simq {
    double a, b;         /* the medians (NaN if missing) */
    double diff, lo, hi; /* b - a and its bounds from the repeats */
    const char *verdict; /* same, higher, lower; NULL when a or b is missing */
} st_cmp_simq;

/* The simulated quantities compared, in output order: X(ID, column name, meaning). */
#define ST_CMP_SIMQ(X)                                                          \
    X(IR, "Ir", "instructions")                                                 \
    X(CYC, "est_cycles", "estimated cycles")                                    \
    X(OV_IR, "overhead_Ir", "overhead in instructions (ratio to the baseline)") \
    X(OV_CYC, "overhead_est_cycles", "overhead in estimated cycles (ratio to the baseline)")

enum {
#define ST__SIMQ_ENUM(id, name, what) ST_CMP_SIM_##id,
    ST_CMP_SIMQ(ST__SIMQ_ENUM)
#undef ST__SIMQ_ENUM
        ST_CMP_SIM_N
};

typedef struct st_cmp_simcell {
    const char *label;
    const st_simcell *a, *b;
    st_cmp_simq q[ST_CMP_SIM_N];
    int differs; /* some quantity is higher or lower */
    char note[384];
} st_cmp_simcell;

typedef struct st_cmp_meta {
    const char *key, *a, *b; /* a or b NULL when that sweep lacks the key */
    int important;           /* one of the keys listed first */
} st_cmp_meta;

typedef struct st_compare_opts {
    st_boot_opts boot;
    double threshold; /* 0.02 = 2%: of the ratio, or of the baseline's time for the overhead change */
    st_gate gate;
    st_cmp_time time;     /* the run time compared: wall (default) or CPU */
    double sim_threshold; /* simulated cells: a difference counts beyond this share of A's value (0: any) */
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
    int different_machines;    /* host or cpu_model differ */
    const st_inprocs *ia, *ib; /* the in-process estimates (NULL: none) */
    size_t compared;           /* cells with a p-value: the family Benjamini-Hochberg adjusts over */
    size_t tested;             /* cells with a threshold test (p_beyond), the family of its adjustment */
    size_t slower, faster, same, inconclusive, ungated;
    size_t failed;           /* cells whose verdict is failed */
    size_t missing;          /* cells whose verdict is missing, and cells only in A */
    size_t paired, unpaired; /* cells with an overhead: paired, and those that fell back to unpaired */
    /* The simulated cells (none when a sweep has none). */
    st_cmp_simcell *sim; /* matched simulated cells, by workload, kind, label */
    size_t nsim;
    const st_simcell **sim_only_a, **sim_only_b;
    size_t nsim_only_a, nsim_only_b;
    size_t sim_differ; /* matched simulated cells with some quantity higher or lower */
} st_comparison;

/* Compares b against a, the simulated cells of sb against sa (either may
 * be NULL: no simulated cells), with the in-process estimates ia and ib
 * (st_inproc_load; either may be NULL or empty: none).  Never fails
 * (allocation failure exits). */
void st_compare(const st_sweep *a, const st_sweep *b, const st_sim *sa, const st_sim *sb, const st_inprocs *ia,
                const st_inprocs *ib, const st_compare_opts *opts, st_comparison *c);

void st_comparison_free(st_comparison *c);

/* Benjamini-Hochberg adjusted p-values of p[0..n-1] into q (NaN entries
 * are left out of the family and stay NaN): q_(i) = min over j >= i of
 * p_(j) m / j, capped at 1, m the number of finite p. */
void st_bh_adjust(const double *p, size_t n, double *q);

/* The report formats (docs/STATISTICS.md).  Return 0, or -1 on a write error. */
int st_compare_md(FILE *f, const st_comparison *c);
int st_compare_csv(FILE *f, const st_comparison *c);
int st_compare_json(FILE *f, const st_comparison *c);
/* The simulated cells' CSV (compare_sim.csv): header, one row per matched simulated cell. */
int st_compare_sim_csv(FILE *f, const st_comparison *c);
/* Forest plot data: one row per matched cell (overhead gate: per cell with an
 * overhead), the gated change in percent with its interval. */
int st_compare_plotdata(FILE *f, const st_comparison *c);

#endif
