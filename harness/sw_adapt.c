/* sw_adapt.c - the adaptive rounds of --halfwidth: which cells need more blocks, and their next round. */
#include "sw_adapt.h"
#include "sw_util.h"
#include "st_paired.h"
#include "st_stop.h"

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
    double **d = ct_xcalloc((size_t)n_cells, sizeof *d);
    int **pairs_round = ct_xcalloc((size_t)n_cells, sizeof *pairs_round);
    int *nd = ct_xcalloc((size_t)n_cells, sizeof *nd), *firsts = ct_xcalloc((size_t)n_cells, sizeof *firsts);
    int *blocks = ct_xcalloc((size_t)n_cells, sizeof *blocks);
    sw_db_pair *pairs;
    int n_pairs = sw_db_block_pairs(db, &pairs);
    for (int i = 0; i < n_pairs; i++) {
        int c = pairs[i].cell;
        if (c < 0 || c >= n_cells)
            continue;
        d[c] = ct_xrealloc(d[c], (size_t)(nd[c] + 1) * sizeof **d);
        pairs_round[c] = ct_xrealloc(pairs_round[c], (size_t)(nd[c] + 1) * sizeof **pairs_round);
        pairs_round[c][nd[c]] = pairs[i].round;
        d[c][nd[c]++] = log((double)pairs[i].wall_ns / (double)pairs[i].base_ns);
    }
    free(pairs);
    sw_db_block_balance(db, n_cells, blocks, firsts);
    int *want = ct_xcalloc((size_t)n_cells, sizeof *want), nwant = 0;
    char *rule_name = sw_db_meta_get(db, "adaptive_rule");
    int two_stage = rule_name && !strcmp(rule_name, SW_ADAPT_RULE);
    free(rule_name);
    for (int c = 0; c < n_cells; c++) {
        st_boot_opts bo = {2000, 0.95, seed ^ (uint64_t)(c + 1)};
        if (two_stage) {
            /* The blocks the pilot asks for, decided from the planned rounds' pairs alone (they come
             * first: pairs are in block order, the adaptive rounds' blocks after the planned ones). */
            size_t n0 = 0;
            while (n0 < (size_t)nd[c] && pairs_round[c][n0] <= min_rounds)
                n0++;
            st_interval pilot;
            st_paired_interval(d[c], n0, &bo, &pilot);
            /* N judged without the maximum, as the width is below: a cell short of it at max-runs is
             * still counted (active); the maximum stops it through its scheduled blocks. */
            st_stop s = {ST_STOP_TWO_STAGE, halfwidth, n0, SIZE_MAX, 0.95};
            if ((size_t)nd[c] >= st_stop_target(&pilot, &s))
                continue;
        } else {
            /* The sequential rule of the sweeps started before the two-stage one (no adaptive_rule in
             * meta): resumed as they began.  The width is judged without the maximum; the maximum
             * counts a cell's planned blocks, run or failed, so failures buy no rounds beyond it. */
            st_adaptive rule = {halfwidth, (size_t)min_rounds, SIZE_MAX};
            if (!st_adaptive_more(d[c], (size_t)nd[c], &rule, &bo, NULL))
                continue;
        }
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
        sw_slot *slots = ct_xcalloc((size_t)nwant * 2, sizeof *slots);
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
        free(d[c]), free(pairs_round[c]);
    free(d), free(pairs_round), free(nd), free(firsts), free(blocks), free(want);
    return total;
}
