/* st_analyze.h - the whole analysis of a sweep: every cell (st_analysis.h), then the
 * per-sample cost fits (st_costfit.h) that read those results.
 *
 * Invariants:
 *  - st_analyze is st_analyze_cells followed, unless opts->no_fits, by
 *    st_costfits_compute into a fresh an->fits; nothing else is added, so a
 *    result is the same whichever of the two a caller uses.
 *  - st_analysis_free releases an->fits and an->normdiffs (st_normdiff.h), then
 *    everything st_analysis_free_cells releases, and leaves *an zeroed.
 *  - This module sits above st_analysis, st_costfit and st_normdiff: they never
 *    include it, so the analysis and the fits built on it form no include loop
 *    (scripts/include-graph.py checks it).
 */
#ifndef ST_ANALYZE_H
#define ST_ANALYZE_H

#include "st_analysis.h"

/* Analyses every cell of sw and, unless opts->no_fits, fits the per-sample
 * costs.  Never fails (allocation failure exits). */
void st_analyze(const st_sweep *sw, const st_analysis_opts *opts, st_analysis *an);

void st_analysis_free(st_analysis *an);

#endif
