/* sw_schedcheck.h - the schedule's invariants (sw_plan.h), checked with
 * SW_ASSERT (sw_util.h) where the sweep builds a schedule: a plan that
 * breaks one would measure something other than the design it names.
 *
 * Invariants it checks, on the full schedule (before --shard keeps its part):
 *  - seq is 1, 2, ... without gaps; every slot runs a cell of the plan; the
 *    native slots come first, the simulated ones after them (block 0,
 *    rounds 1..sim_runs, replicate -1).
 *  - A native slot's round is a warm-up round (<= 0, at most warmup of them)
 *    or a measured one (1..runs), its pass 0 .. warmup + runs - 1.
 *  - Independent and in-process designs: no blocks; every (replicate, pass)
 *    runs every native cell exactly once.
 *  - Blocked design (block pairing): runs come in adjacent pairs, positions
 *    1 then 2, of one block, round and replicate, one with role 1 and the
 *    other role 0; the role-0 run is of the role-1 cell's own baseline (the
 *    baseline itself in an A/A block); block ids are 1, 2, 3 ... in
 *    execution order; every (replicate, pass) holds one block per native
 *    cell (the cell as role 1); over the measured rounds each block runs
 *    role 1 first floor(runs/2) or ceil(runs/2) times.
 * Without SGC_CHECKS, sw_schedcheck does nothing.
 */
#ifndef SW_SCHEDCHECK_H
#define SW_SCHEDCHECK_H

#include "sw_plan.h"

/* Checks slots[0 .. n_slots - 1], the schedule sw_plan_schedule_all built
 * for o and cells; aborts (SW_ASSERT) at the first invariant broken. */
void sw_schedcheck(const sw_opts *o, const sw_cell *cells, int n_cells, const sw_slot *slots, int n_slots);

#endif /* SW_SCHEDCHECK_H */
