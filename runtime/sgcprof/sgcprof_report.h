/* sgcprof_report.h - what sgcprof prints from a loaded profile: the dump,
 * the report, the folded-stack and speedscope exports.
 *
 * Invariants:
 *  - Every function takes a reader on which sgc_pr_load succeeded (except
 *    sgcprof_dump, which walks a freshly opened one itself) and only reads it.
 *  - Estimated bytes of an allocation sample = sample points x the period in
 *    force when it was taken (sgc_pr_period_at); samples taken while no
 *    period was in force (cannot happen with the runtime's writer) count 0.
 *  - Function names are the CCT's frame names; time samples taken during a
 *    collection get a pseudo-frame "[minor GC]" or "[major GC]" on top of the
 *    mutator stack that triggered it, so GC time shows as its own leaf.
 *  - Inclusive figures count a function once per sample even when it appears
 *    several times on the stack (recursion).
 *  - Exports write names escaped as sgcprof_names.h says (valid UTF-8).
 */
#ifndef SGCPROF_REPORT_H
#define SGCPROF_REPORT_H

#include <stdio.h>

#include "sgc_profread.h"

/* Prints every record as one line of text.  0, or -1 (r->err set) when the
 * file is corrupt or truncated; the records before the bad one are printed. */
int sgcprof_dump(sgc_pr_reader *r, FILE *out);
/* The human-readable report; top is the number of rows per table; exact =
 * 1 prints byte figures as integers (bytes) instead of B/KiB/MiB/GiB. */
void sgcprof_report(const sgc_pr_reader *r, FILE *out, unsigned top, int exact);
/* Collapsed stacks ("root;...;leaf weight" per line) for flame graphs:
 * time = 1 weighs time samples by count, time = 0 weighs allocation
 * samples by estimated bytes. */
void sgcprof_folded(const sgc_pr_reader *r, FILE *out, int time);
/* Nanoseconds one time sample stands for: the time sampling was on (from
 * the TIME_CONFIG records to the END record) / (samples written + dropped),
 * rounded to the nearest ns; 0 if no time sampling was recorded. */
uint64_t sgcprof_ns_per_time_sample(const sgc_pr_reader *r);
/* The deepest stack's number of frames. */
uint32_t sgcprof_max_depth(const sgc_pr_reader *r);
/* A speedscope JSON file (https://www.speedscope.app) with two profiles:
 * time samples in time order weighted by sgcprof_ns_per_time_sample (unit
 * nanoseconds), and allocation samples weighted by estimated bytes. */
void sgcprof_speedscope(const sgc_pr_reader *r, FILE *out, const char *name);

#endif /* SGCPROF_REPORT_H */
