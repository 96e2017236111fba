/* st_report.h - writes an analysis into the sweep directory: summary.csv, summary.json, metrics.csv, summary.md, plotdata/.
 *
 * Invariants:
 *  - The files and their columns are exactly those of docs/STATISTICS.md;
 *    a column is only ever added at the end of a row.
 *  - Every file is written to a temporary name in its directory and all are
 *    renamed into place together at the end (st_out.h), so a failure never
 *    leaves a half-written file and never destroys the previous ones; a
 *    target that is not a regular file is refused before anything is
 *    written.
 *  - Output depends only on the analysis and the options: no time stamps,
 *    no addresses, no locale (numbers use '.' as decimal point).
 *  - Missing values are an empty field in CSV, NaN in plot data and "n/a"
 *    in Markdown; the reason is always in the cell's note.
 */
#ifndef ST_REPORT_H
#define ST_REPORT_H

#include "st_analysis.h"

#include <stdio.h>

typedef struct st_report_opts {
    uint64_t seed;        /* recorded in the outputs */
    size_t resamples;     /* recorded */
    double confidence;    /* recorded, and the level of every interval */
    const char *nodes_md; /* the section "Nodes" of summary.md (st_nodes.h), or NULL */
} st_report_opts;

/* Writes every output file into an->sweep->dir: summary.csv, summary.json,
 * metrics.csv, regress.csv, plotdata/, sim.csv, inprocess.csv (a sweep with
 * segment series, an->inproc) and summary.md, which ends with opts->nodes_md
 * and the in-process section (st_inproc_write_md).  Returns 0, or the exit
 * status with a message in err: 1 a file cannot be written, 2 a target is
 * not a regular file (st_out.h). */
int st_write_outputs(const st_analysis *an, const st_report_opts *opts, char *err, size_t errlen);

/* plotdata/peers.dat (figure 8) of the peers report p of an (st_peers.h):
 * the header and rows of the plot data table.  st_write_outputs writes it
 * for a sweep of several systems (st_peers_several); build/bin/peers-report
 * writes the same file. */
struct st_peers;
void st_write_peers_dat(FILE *f, const st_analysis *an, const struct st_peers *p);

/* The allocation (fixed mode, kind alloc) and time cells of a workload whose
 * median samples/s is nearest 1000 on a log scale (NULL if none); used by
 * headline 2 and normalized.dat. */
void st_pick_normalized(const st_analysis *an, const char *workload, const st_result **alloc, const st_result **time);

/* Allocation against time sampling for one workload (headline 2 and
 * normalized.dat): the cells st_pick_normalized chooses and which is cheaper
 * per 1000 samples/s, judged from the interval of their difference
 * (st_normdiff.h: alloc minus time, resampled jointly; st_diff_verdict):
 * ALLOC / TIME: the difference's interval lies below / above 0;
 * EQUIVALENT: it lies within [-margin, margin]; UNRESOLVED: none of these;
 * NA: a cell or the interval is missing.  The intervals shown beside it are
 * the paired ones (paired_norm: Hodges-Lehmann over blocks, one-sample BCa)
 * when both cells have one, else the unpaired ones (norm). */
typedef enum st_normres { ST_NR_NA = 0, ST_NR_ALLOC, ST_NR_TIME, ST_NR_EQUIVALENT, ST_NR_UNRESOLVED } st_normres;

typedef struct st_normcmp {
    const st_result *a, *t;     /* the cells compared (NULL if none) */
    int paired;                 /* 1: the paired intervals are shown (and the difference is of matched blocks) */
    const st_interval *ai, *ti; /* the intervals shown (NULL with a missing cell) */
    const st_interval *diff;    /* the difference alloc - time the verdict judged (NULL without one) */
    st_level level;             /* what diff covers */
    st_normres res;
} st_normcmp;

void st_normcmp_make(const st_analysis *an, const char *workload, st_normcmp *out);
/* The verdict of an interval [lo, hi] of the difference alloc - time of
 * normalized overheads, by the rules above (NA if an end is not a number).
 * The cell-based table (st_normdiff.h) and the regression-based line under
 * the per-sample cost table (st_costfit.c) both judge with it. */
st_normres st_norm_verdict(double lo, double hi, double margin);
/* One word: alloc_cheaper, time_cheaper, equivalent, not_resolved, na. */
const char *st_normres_word(st_normres r);
/* "paired", "unpaired" (the intervals judged), "-" without a verdict. */
const char *st_normcmp_basis(const st_normcmp *c);
/* One word for plot data: alloc_cheaper, time_cheaper, equivalent, not_resolved, na. */
const char *st_normcmp_word(const st_normcmp *c);

#endif
