/* sw_adapt.c - the adaptive rounds of --halfwidth: which cells need more blocks, and their next round. */
#include "sw_adapt.h"
#include "sw_util.h"
#include "st_paired.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int sw_adapt_next_round(sw_db *db, const sw_cell *cells, int n_cells, double halfwidth, int min_rounds, int max_rounds,
                        uint64_t seed, sw_slot **out, int *active) {
    *out = NULL;
    *active = 0;
    int last_round = (int)sw_db_schedule_max(db, "round");
    /* Per cell: its paired log-ratios and how often its role-1 run went first. */
    double **d = sw_xcalloc((size_t)n_cells, sizeof *d);
    int *nd = sw_xcalloc((size_t)n_cells, sizeof *nd), *firsts = sw_xcalloc((size_t)n_cells, sizeof *firsts);
    int *blocks = sw_xcalloc((size_t)n_cells, sizeof *blocks);
    sw_db_pair *pairs;
    int n_pairs = sw_db_block_pairs(db, &pairs);
    for (int i = 0; i < n_pairs; i++) {
        int c = pairs[i].cell;
        if (c < 0 || c >= n_cells)
            continue;
        d[c] = sw_xrealloc(d[c], (size_t)(nd[c] + 1) * sizeof **d);
        d[c][nd[c]++] = log((double)pairs[i].wall_ns / (double)pairs[i].base_ns);
    }
    free(pairs);
    sw_db_block_balance(db, n_cells, blocks, firsts);
    int *want = sw_xcalloc((size_t)n_cells, sizeof *want), nwant = 0;
    /* The width is judged without the maximum; the maximum counts a cell's
     * planned blocks, run or failed, so failures buy no rounds beyond it. */
    st_adaptive rule = {halfwidth, (size_t)min_rounds, SIZE_MAX};
    for (int c = 0; c < n_cells; c++) {
        st_boot_opts bo = {2000, 0.95, seed ^ (uint64_t)(c + 1)};
        if (!st_adaptive_more(d[c], (size_t)nd[c], &rule, &bo, NULL))
            continue;
        (*active)++;
        if (blocks[c] < max_rounds)
            want[nwant++] = c;
    }
    int total = 0;
    if (nwant && last_round < max_rounds) {
        int64_t seq = sw_db_schedule_max(db, "seq"), block = sw_db_schedule_max(db, "block");
        sw_rng rng;
        sw_rng_seed(&rng, seed ^ ((uint64_t)(last_round + 1) * 0x9e3779b97f4a7c15ull));
        for (int i = nwant - 1; i > 0; i--) {
            int j = (int)sw_rng_below(&rng, (uint64_t)i + 1), t = want[i];
            want[i] = want[j];
            want[j] = t;
        }
        sw_slot *slots = sw_xcalloc((size_t)nwant * 2, sizeof *slots);
        for (int i = 0; i < nwant; i++) {
            int k = want[i], base = sw_plan_baseline_of(cells, n_cells, k);
            int first = 2 * firsts[k] < blocks[k] ? 1 : 2 * firsts[k] > blocks[k] ? 0 : (int)sw_rng_below(&rng, 2);
            block++;
            for (int pos = 1; pos <= 2; pos++) {
                int role = (pos == 1) == (first == 1);
                slots[total] = (sw_slot){.replicate = -1,
                                         .seq = (int)++seq,
                                         .cell = role ? k : base,
                                         .round = last_round + 1,
                                         .pass = -1,
                                         .block = (int)block,
                                         .pos = pos,
                                         .role = role};
                total++;
            }
        }
        sw_db_append_schedule(db, cells, slots, total);
        *out = slots;
    }
    for (int c = 0; c < n_cells; c++)
        free(d[c]);
    free(d), free(nd), free(firsts), free(blocks), free(want);
    return total;
}
