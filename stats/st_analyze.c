/* st_analyze.c - the whole analysis of a sweep: cells, then cost fits (st_analyze.h). */
#include "st_analyze.h"
#include "st_costfit.h"
#include "st_normdiff.h"
#include "st_util.h"

#include <stdio.h>
#include <stdlib.h>

void st_analyze(const st_sweep *sw, const st_analysis_opts *opts, st_analysis *an) {
    st_analyze_cells(sw, opts, an);
    if (opts->no_fits)
        return;
    an->fits = ct_xcalloc(1, sizeof *an->fits);
    st_reg_opts ro = {opts->fit_resamples ? opts->fit_resamples : 1000, opts->boot.confidence, opts->boot.seed};
    if (opts->progress)
        fprintf(stderr, "analyze: per-sample cost regressions\n");
    st_costfits_compute(an, &ro, an->fits);
}

void st_analysis_free(st_analysis *an) {
    if (an->fits) {
        st_costfits_free(an->fits);
        free(an->fits);
        an->fits = NULL;
    }
    if (an->normdiffs) {
        st_normdiffs_free(an->normdiffs);
        free(an->normdiffs);
        an->normdiffs = NULL;
    }
    st_analysis_free_cells(an);
}
