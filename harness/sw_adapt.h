/* sw_adapt.h - adaptive rounds of a blocked sweep (--halfwidth): after the
 * planned rounds, more rounds for the cells whose planned rounds' paired
 * interval asks for more blocks to reach the target (docs/HARNESS.md,
 * "Adaptive rounds").
 *
 * Invariants:
 *  - A block type is a cell: the cell's blocks with its baseline, or for a
 *    baseline its A/A blocks.  Its log-ratios are log(wall of the role-1
 *    run / wall of the role-0 run) over its measured blocks whose two runs
 *    are both ok, in block order (the planned rounds' blocks first).
 *  - The rule is the sweep's meta adaptive_rule, stored when a sweep with
 *    --halfwidth starts: SW_ADAPT_RULE, the two-stage rule of stats/st_stop.h,
 *    the one analyze reads the intervals by.  The cell's pilot is its
 *    log-ratios of the planned rounds (round <= the sweep's runs), n0 of
 *    them; its interval st_paired_interval (bootstrap seed = the sweep's
 *    seed XOR the cell id, 2000 resamples at 95%) and st_stop_target(pilot,
 *    {H, n0, max-runs}) give the blocks N it needs, decided from the pilot
 *    alone: no block after it moves N, so a --resume decides the same N.  A
 *    cell gets another block while it has fewer than N measured pairs and
 *    fewer than max-runs measured blocks in the schedule (run or failed:
 *    failures buy no rounds beyond the maximum).
 *  - A sweep without adaptive_rule (started before the two-stage rule) is
 *    resumed by its own rule, the sequential st_adaptive_more
 *    (stats/st_paired.h) with min_blocks = the sweep's runs: another block
 *    while the cell's interval of all its blocks is wider than the target.
 *  - Each extra round holds one block of every cell that still needs one,
 *    shuffled; within a block the role-1 run goes first when that
 *    cell has so far had it first in fewer than half of its blocks, so the
 *    order stays balanced.  Block ids and seq continue the stored schedule;
 *    the round number is the last one plus 1.  The round is appended to the
 *    stored schedule before it runs, so --resume finishes it and then
 *    continues the rule.
 */
#ifndef SW_ADAPT_H
#define SW_ADAPT_H

#include <stdint.h>
#include "sw_db.h"
#include "sw_plan.h"

/* The rule of the adaptive rounds, as meta adaptive_rule stores it. */
#define SW_ADAPT_RULE "two-stage"

/* The blocks of the next adaptive round: returns their slot count (0 when
 * every cell has reached the target or max_rounds rounds are stored) and
 * appends them to the schedule; *out receives them (free it).  *active
 * receives the number of cells that still need blocks (fewer than their N;
 * by the sequential rule, still too wide). */
int sw_adapt_next_round(sw_db *db, const sw_cell *cells, int n_cells, double halfwidth, int min_rounds, int max_rounds,
                        uint64_t seed, sw_slot **out, int *active);

#endif /* SW_ADAPT_H */
