/* sw_adapt.h - adaptive rounds of a blocked sweep (--halfwidth): after the
 * planned rounds, more rounds for the blocks whose paired interval is still
 * wider than the target (docs/HARNESS.md, "Adaptive rounds").
 *
 * Invariants:
 *  - A block type is a cell: the cell's blocks with its baseline, or for a
 *    baseline its A/A blocks.  Its log-ratios are log(wall of the role-1
 *    run / wall of the role-0 run) over its measured blocks whose two runs
 *    are both ok, in block order; the rule is st_adaptive_more
 *    (stats/st_paired.h) with min_blocks = the sweep's runs, bootstrap seed
 *    = the sweep's seed XOR the cell id, 2000 resamples at 95%; a cell gets
 *    another block while the rule wants one and it has fewer than max-runs
 *    measured blocks in the schedule (run or failed).
 *  - Each extra round holds one block of every cell still wider than the
 *    target, shuffled; within a block the role-1 run goes first when that
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

/* The blocks of the next adaptive round: returns their slot count (0 when
 * every cell has reached the target or max_rounds rounds are stored) and
 * appends them to the schedule; *out receives them (free it).  *active
 * receives the number of cells still too wide. */
int sw_adapt_next_round(sw_db *db, const sw_cell *cells, int n_cells, double halfwidth, int min_rounds, int max_rounds,
                        uint64_t seed, sw_slot **out, int *active);

#endif /* SW_ADAPT_H */
