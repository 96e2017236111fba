/* st_report.h - writes an analysis into the sweep directory: summary.csv, summary.json, metrics.csv, summary.md, plotdata/.
 *
 * Invariants:
 *  - The files and their columns are exactly those of docs/STATISTICS.md;
 *    a column is only ever added at the end of a row.
 *  - Each file is written to a temporary name in the same directory and
 *    renamed into place, so a failure never leaves a half-written file and
 *    never destroys the previous one.
 *  - Output depends only on the analysis and the options: no time stamps,
 *    no addresses, no locale (numbers use '.' as decimal point).
 *  - Missing values are an empty field in CSV, NaN in plot data and "n/a"
 *    in Markdown; the reason is always in the cell's note.
 */
#ifndef ST_REPORT_H
#define ST_REPORT_H

#include "st_analysis.h"

typedef struct st_report_opts {
    uint64_t seed;     /* recorded in the outputs */
    size_t resamples;  /* recorded */
    double confidence; /* recorded, and the level of every interval */
} st_report_opts;

/* Writes every output file into an->sweep->dir.  Returns 0, or 1 with a
 * message in err if a file cannot be written. */
int st_write_outputs(const st_analysis *an, const st_report_opts *opts, char *err, size_t errlen);

/* The allocation (fixed mode, kind alloc) and time cells of a workload whose
 * median samples/s is nearest 1000 on a log scale (NULL if none); used by
 * headline 2 and normalized.dat. */
void st_pick_normalized(const st_analysis *an, const char *workload, const st_result **alloc, const st_result **time);

#endif
