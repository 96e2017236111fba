/* sw_shard.h - a sweep split into shards across machines (sweep --shard K/N)
 * and the merge of the shards' databases back into one sweep (sweep --merge).
 *
 * Invariants:
 *  - The unit of sharding is a *group*: every cell of one workload that
 *    shares one baseline, i.e. (workload, depth), with the workload's
 *    simulated cells in its depth-0 group.  Every run of a cell and every
 *    run of its baseline therefore land on the same machine, and so does
 *    each workload's calibration (docs/HARNESS.md, "Sharding").
 *  - Every shard builds the whole plan from the same settings and seed: the
 *    same cells (ids 1..n), the same schedule (seq, rounds, blocks, roles,
 *    SGC_SEED); shard K keeps exactly the schedule rows of its groups, in
 *    the plan's order, with their plan seq.  So the shards' schedules
 *    partition the unsharded plan's schedule, and their union is it.
 *  - Groups go to shards by longest-processing-time first: groups in
 *    decreasing number of planned runs (plan order among equals), each to
 *    the shard with the fewest runs so far (the lowest number among
 *    equals).  A function of the plan alone, so every shard computes the
 *    same assignment.  N may not exceed the number of groups.
 *  - A shard's results.db holds every cell of the plan (foreign cells with
 *    size 0: calibrated by the shard that runs them), only its own
 *    schedule rows, runs and calibrations, and meta.shard = "K/N".
 *  - sw_shard_merge refuses (exit 2, with the reason) unless the shards
 *    belong together: each is a complete shard of the same N with a
 *    distinct K, together all of 1..N; the same settings (every config line
 *    but the machine-local ones: shard, cpu, out, tmp, bin-dir, list,
 *    valgrind, sim-jobs, progress), hence the same seed and plan; the same
 *    sha256 of every program; the same cells; a union of schedules equal to
 *    the plan rebuilt from the settings; every planned run present exactly
 *    once.  Nothing is created before every check has passed.
 */
#ifndef SW_SHARD_H
#define SW_SHARD_H

#include "sw_opts.h"
#include "sw_plan.h"

/* Bad combinations of --shard with other settings (exit 2): a seed must be
 * given (every shard must draw the same plan), and adaptive rounds, which
 * stop on a shard's own data, cannot keep the union equal to one plan. */
void sw_shard_check_opts(const sw_opts *o);

/* For a sharded sweep (o->shard_n > 0): a fresh array, owned[i] = 1 when
 * cell i belongs to shard o->shard_k; NULL when the sweep is not sharded.
 * Exits 2 when the plan has fewer groups than shards. */
int *sw_shard_owned(const sw_opts *o, const sw_cell *cells, int n_cells);

/* Keeps, in order, the slots whose cell is owned; returns their number. */
int sw_shard_keep(const int *owned, sw_slot *slots, int n_slots);

/* A line describing the shard's groups ("gcbench, deepstack --depth 16"),
 * fresh. */
char *sw_shard_describe(const sw_cell *cells, int n_cells, const int *owned);

/* sweep --merge OUT DIR...: checks that the shard directories belong
 * together (above) and writes the merged sweep into the new directory OUT
 * (results.db with every run and its node, runs.csv).  Returns the exit
 * status (0); bad input exits 2, failures exit 1. */
int sw_shard_merge(int argc, char **argv);

#endif /* SW_SHARD_H */
