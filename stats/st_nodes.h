/* st_nodes.h - the machines (nodes) of a sweep merged from shards: every
 * overhead compares runs of one node, and nodes of different speed neither
 * widen nor bias the intervals (docs/STATISTICS.md, "Sweeps over several
 * machines").
 *
 * Invariants:
 *  - A *group* is a baseline cell with every cell whose baseline it is
 *    (analyze's rule: same workload and size, and depth).  Every comparison
 *    analyze makes (unpaired ratios of medians, paired blocks, the A/A
 *    floor, the per-sample cost fits) stays inside one group.
 *  - The node of a run is runs.node; a database without that column, or a
 *    run whose node is NULL, counts as one node named "unknown".
 *  - A group whose used runs all ran on one node is left exactly as loaded
 *    (bit for bit): its comparisons are within one node already.  This is
 *    every group of a sweep merged from shards, which never split a group.
 *  - A group whose used runs come from several nodes (a shard resumed on
 *    another machine) is put on one node's scale: the reference node is the
 *    one with the most used baseline runs of the group (the first name
 *    among equals); every run of the group on another node n has its time
 *    metrics multiplied by median(baseline on the reference) / median
 *    (baseline on n), per metric: wall time (and the stats record's
 *    run_ns, minor_ns, major_ns, gc_ns) by the wall-time ratio, user and
 *    system time by the CPU-time (user + system) ratio, the perf::task-clock
 *    counter by its own ratio.  Counts (instructions, cycles, samples,
 *    bytes) are left as counted.  A node without a used baseline run in the
 *    group cannot be scaled; the report says so.
 *  - Paired per-block ratios are unchanged by this (both runs of a block
 *    always ran on one node: blocks are committed whole).
 */
#ifndef ST_NODES_H
#define ST_NODES_H

#include <stddef.h>

#include "st_db.h"

typedef struct st_nodes {
    size_t nnodes;  /* distinct nodes of the measured runs */
    char **node;    /* their names, sorted */
    size_t *runs;   /* measured runs per node */
    size_t ngroups; /* groups with a baseline */
    size_t nmixed;  /* groups whose used runs span several nodes (rescaled) */
    int merged;     /* meta.shards is present: a sweep merged from shards */
    char *report;   /* the Markdown section for summary.md (st_report_opts.nodes_md), or NULL when there is nothing
                     * to say */
} st_nodes;

/* Reads every measured run's node from DIR/results.db and rescales the
 * groups that span nodes (above), in sw.  Returns 0, or 2 with a message in
 * err when the database cannot be read. */
int st_nodes_apply(const char *dir, st_sweep *sw, st_nodes *out, char *err, size_t errlen);

void st_nodes_free(st_nodes *n);

#endif /* ST_NODES_H */
