/* st_report.h - writes an analysis into the sweep directory: summary.csv, summary.json, metrics.csv, summary.md, plotdata/.
 *
 * Invariants:
 *  - The files and their columns are exactly those of docs/STATISTICS.md;
 *    a column is only ever added at the end of a row.
 *  - Every file is written to a temporary name in its directory and all are
 *    renamed into place together at the end (contracts/ct_out.h), so a failure never
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
 * not a regular file (contracts/ct_out.h). */
int st_write_outputs(const st_analysis *an, const st_report_opts *opts, char *err, size_t errlen);

/* plotdata/peers.dat (figure 8) of the peers report p of an (st_peers.h):
 * the header and rows of the plot data table.  st_write_outputs writes it
 * for a sweep of several systems (st_peers_several); build/bin/peers-report
 * writes the same file. */
struct st_peers;
void st_write_peers_dat(FILE *f, const st_analysis *an, const struct st_peers *p);

#endif
