/* st_preport.h - the paired comparisons and the noise diagnosis in the
 * outputs: sections of summary.md, columns of summary.csv and of the
 * cells plot data (docs/STATISTICS.md, "Paired comparisons" and "Noise").
 *
 * Invariants:
 *  - Written only from the analysis (st_analysis, st_noise): no clocks, no
 *    addresses; missing values are "n/a" in Markdown, empty in CSV and NaN in
 *    plot data, as in st_report.h.
 *  - The paired section appears only for a sweep with blocks; the noise
 *    section always.
 */
#ifndef ST_PREPORT_H
#define ST_PREPORT_H

#include "st_analysis.h"

#include <stdio.h>

/* "## Paired comparisons" of summary.md (nothing when an has no blocks). */
void st_write_paired_md(FILE *f, const st_analysis *an, double confidence);
/* "## Noise" of summary.md. */
void st_write_noise_md(FILE *f, const st_analysis *an);
/* The warning line(s) of summary.md's top when an A/A floor is wider than the margin. */
void st_write_floor_warning_md(FILE *f, const st_analysis *an);
/* (The paired columns of summary.csv are rows of ST_SUMMARY_COLUMNS in st_report.c.) */
/* (The paired columns of the cells plot data are rows of stats/st_plotdata.h.) */

/* The paragraph "Levels" of summary.md: what variation every kind of interval
 * covers, and, for a replicated sweep, the between-replicate components per
 * family with the within-replicate errors. */
void st_write_levels_md(FILE *f, const st_analysis *an);

#endif
