/* st_verdict.h - the verdict rules of the statistics outputs: which cells headline 2 compares and how an
 * interval of the allocation-minus-time difference is judged.  The report writer (st_report.c), the
 * cost regressions (st_costfit.c) and the differences (st_normdiff.c) all judge by these rules, so one
 * cell gets one verdict wherever it is printed.
 *
 * Invariants:
 *  - Pure functions of the analysis and their arguments: nothing here writes
 *    a file or keeps state.
 *  - Depends on the analysis (st_analysis.h) only, never on a writer.
 */
#ifndef ST_VERDICT_H
#define ST_VERDICT_H

#include "st_analysis.h"

/* The allocation (kind alloc) and time cells of a workload (a key of
 * st_cell_in_key) whose median samples/s is nearest 1000 on a log scale
 * (NULL if none); the allocation cell in fixed mode when the workload has
 * one with a normalized overhead, else in poisson mode (a poisson-only sweep,
 * another system's command cells); used by headline 2, normalized.dat and
 * the differences (st_normdiff.h). */
void st_pick_normalized(const st_analysis *an, const char *workload, const st_result **alloc, const st_result **time);

/* Which sampler is cheaper per 1000 samples/s, judged from the interval of
 * the difference alloc - time (st_normdiff.h: resampled jointly;
 * st_diff_verdict): ALLOC / TIME: the difference's interval lies below /
 * above 0; EQUIVALENT: it lies within [-margin, margin]; UNRESOLVED: none of
 * these; NA: a cell or the interval is missing. */
typedef enum st_normres { ST_NR_NA = 0, ST_NR_ALLOC, ST_NR_TIME, ST_NR_EQUIVALENT, ST_NR_UNRESOLVED } st_normres;

/* The verdict of an interval [lo, hi] of the difference alloc - time of
 * normalized overheads, by the rules above (NA if an end is not a number).
 * The cell-based table (st_normdiff.h) and the regression-based line under
 * the per-sample cost table (st_costfit.c) both judge with it. */
st_normres st_norm_verdict(double lo, double hi, double margin);
/* One word: alloc_cheaper, time_cheaper, equivalent, not_resolved, na. */
const char *st_normres_word(st_normres r);

/* The one verdict of a cell, wherever it is printed (the per-workload
 * tables, the paired tables and their marks, summary.csv's verdict and
 * paired_verdict): the verdict of its paired ratio when it has a paired
 * interval (a blocked sweep), else of its overhead (the ratio of medians),
 * by st_paired_verdict's rule at the margin (slower, faster, no effect above
 * M, not resolved, n/a), except that slower or faster becomes not resolved
 * when the estimate lies closer to 1 than the A/A floor of the cell's
 * baseline at the same level (paired_floor for the paired ratio, aa_floor for
 * the overhead): an effect smaller than the floor is not resolved by this
 * sweep (docs/STATISTICS.md, "verdict"). */
st_verdict st_cell_verdict_of(const st_analysis *an, const st_result *r, double margin);

/* Sets verdict (text in verdict_text) and, for a cell with a paired
 * interval, pverdict of every result that is not a baseline to
 * st_cell_verdict_of; the last step of an analysis (st_analyze_families). */
void st_verdicts_apply(st_analysis *an, double margin);

#endif
