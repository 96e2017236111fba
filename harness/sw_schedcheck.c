/* sw_schedcheck.c - the schedule's invariants checked (sw_schedcheck.h). */
#include "sw_schedcheck.h"
#include "sw_util.h"

#include <stdlib.h>

#if SGC_CHECKS
/* A blocked schedule's pair at slots[i], slots[i + 1]: positions, block,
 * round, replicate, roles and the baseline; returns the role-1 slot. */
static const sw_slot *check_pair(const sw_cell *cells, int n_cells, const sw_slot *a, const sw_slot *b, int i,
                                 int n_native, int prev_block) {
    SW_ASSERT(a->pos == 1 && i + 1 < n_native, "a block's first run has position 1 and a second run after it");
    SW_ASSERT(b->pos == 2 && b->block == a->block,
              "a block is two adjacent runs, positions 1 and 2, of one block (sw_plan.h)");
    SW_ASSERT(b->round == a->round && b->pass == a->pass && b->replicate == a->replicate,
              "both runs of a block have the block's round and replicate");
    SW_ASSERT(a->block == prev_block + 1, "block ids are 1, 2, 3 ... in execution order");
    SW_ASSERT(a->role + b->role == 1 && (a->role == 0 || a->role == 1),
              "one run of a block has role 1 (the compared run), the other role 0 (its baseline)");
    const sw_slot *cmp = a->role ? a : b, *base = a->role ? b : a;
    SW_ASSERT(base->cell == sw_plan_baseline_of(cells, n_cells, cmp->cell),
              "the role-0 run of a block is its cell's own baseline (the baseline itself in an A/A block), so every "
              "run of a cell has a run of its baseline as its neighbour");
    return cmp;
}
#endif

void sw_schedcheck(const sw_opts *o, const sw_cell *cells, int n_cells, const sw_slot *slots, int n_slots) {
#if SGC_CHECKS
    int blocked = o->design == SW_DESIGN_BLOCKED, passes = o->warmup + o->runs;
    int reps = o->replicates > 1 ? o->replicates : 1;
    int n_native = 0;
    for (int i = 0; i < n_slots; i++) {
        SW_ASSERT(slots[i].seq == i + 1, "seq is the 1-based position in the schedule, without gaps (sw_plan.h)");
        SW_ASSERT(slots[i].cell >= 0 && slots[i].cell < n_cells, "every slot runs a cell of the plan");
        int sim = cells[slots[i].cell].sim;
        if (!sim) {
            SW_ASSERT(n_native == i, "the simulated part's runs come after every native run (sw_plan.h)");
            n_native++;
        } else
            SW_ASSERT(slots[i].block == 0 && slots[i].round >= 1 && slots[i].round <= o->sim_runs &&
                          slots[i].replicate == -1,
                      "a simulated cell runs sim_runs times, rounds 1..sim_runs, outside blocks and replicates");
    }
    /* once[(rep * passes + pass) * n_cells + cell]: the cell's runs (its
     * role-1 runs in the blocked design) in that replicate's pass. */
    int *once =
        ct_xcalloc((size_t)reps * (size_t)(passes ? passes : 1) * (size_t)(n_cells ? n_cells : 1), sizeof *once);
    int *first = ct_xcalloc((size_t)reps * (size_t)(n_cells ? n_cells : 1), sizeof *first);
    int prev_block = 0, prev_step = 0, seq_order = sw_opts_reporder(o) == SW_REPORDER_SEQUENTIAL;
    for (int i = 0; i < n_native; i++) {
        const sw_slot *s = &slots[i];
        int rep = s->replicate < 0 ? 0 : s->replicate;
        /* The step a slot belongs to, in execution order: replicate by
         * replicate (sequential) or round by round, round p starting with
         * replicate p mod K (interleaved). */
        int step = seq_order ? rep * passes + s->pass : s->pass * reps + ((rep - s->pass) % reps + reps) % reps;
        SW_ASSERT(step >= prev_step, "the replicates run in the order --replicate-order says (sw_plan.h)");
        prev_step = step;
        SW_ASSERT(rep < reps && (reps == 1 ? s->replicate == -1 || s->replicate == 0 : s->replicate >= 0),
                  "a slot's replicate is one of the plan's (-1 without --replicates)");
        SW_ASSERT(s->pass >= 0 && s->pass < passes, "passes are 0 .. warmup + runs - 1");
        SW_ASSERT(s->round <= o->runs && s->round > -o->warmup,
                  "warm-up rounds are 0, -1, ... (warmup of them), measured rounds 1..runs (sw_plan.h)");
        const sw_slot *counted = s;
        if (blocked) {
            counted = check_pair(cells, n_cells, s, &slots[i + 1], i, n_native, prev_block);
            prev_block = s->block;
            if (s->round >= 1 && s->role == 1)
                first[rep * n_cells + counted->cell]++;
            i++;
        } else
            SW_ASSERT(s->block == 0 && s->pos == 0, "the independent schedule has no blocks");
        once[(rep * passes + s->pass) * n_cells + counted->cell]++;
    }
    for (int r = 0; r < reps; r++)
        for (int p = 0; p < passes; p++)
            for (int c = 0; c < n_cells; c++)
                SW_ASSERT(cells[c].sim || once[(r * passes + p) * n_cells + c] == 1,
                          "every round runs every cell exactly once (in the blocked design: one block per cell, the "
                          "cell as its role-1 run)");
    for (int r = 0; blocked && r < reps; r++)
        for (int c = 0; c < n_cells; c++)
            SW_ASSERT(cells[c].sim || first[r * n_cells + c] == o->runs / 2 ||
                          first[r * n_cells + c] == (o->runs + 1) / 2,
                      "which run of a block goes first is balanced over the measured rounds: role 1 first in "
                      "floor(runs/2) or, with an odd number of runs, ceil(runs/2) of them");
    free(once);
    free(first);
#else
    (void)o, (void)cells, (void)n_cells, (void)slots, (void)n_slots;
#endif
}
