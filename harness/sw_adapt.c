/* sw_adapt.c - the adaptive rounds of --halfwidth: which cells need more blocks, and their next round. */
#include "sw_adapt.h"
#include "sw_util.h"
#include "st_paired.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static sqlite3_stmt *prep(sw_db *d, const char *sql) {
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(d->db, sql, -1, &st, NULL) != SQLITE_OK)
        sw_fatal("%s: adaptive rounds: %s", d->path, sqlite3_errmsg(d->db));
    return st;
}

static int64_t one_int(sw_db *d, const char *sql) {
    sqlite3_stmt *st = prep(d, sql);
    int64_t v = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
    sqlite3_finalize(st);
    return v;
}

int sw_adapt_next_round(sw_db *db, const sw_cell *cells, int n_cells, double halfwidth, int min_rounds, int max_rounds,
                        uint64_t seed, sw_slot **out, int *active) {
    *out = NULL;
    *active = 0;
    int last_round = (int)one_int(db, "SELECT max(round) FROM schedule");
    /* Per cell: its paired log-ratios and how often its role-1 run went first. */
    double **d = sw_xcalloc((size_t)n_cells, sizeof *d);
    int *nd = sw_xcalloc((size_t)n_cells, sizeof *nd), *firsts = sw_xcalloc((size_t)n_cells, sizeof *firsts);
    int *blocks = sw_xcalloc((size_t)n_cells, sizeof *blocks);
    sqlite3_stmt *st = prep(db, "SELECT a.cell_id, a.wall_ns, b.wall_ns, a.block_pos FROM runs a JOIN runs b"
                                " ON a.block = b.block AND a.block_role = 1 AND b.block_role = 0"
                                " WHERE a.round >= 1 AND a.status = 'ok' AND b.status = 'ok' AND a.wall_ns > 0"
                                " AND b.wall_ns > 0 ORDER BY a.block");
    while (sqlite3_step(st) == SQLITE_ROW) {
        int c = sqlite3_column_int(st, 0) - 1;
        if (c < 0 || c >= n_cells)
            continue;
        d[c] = sw_xrealloc(d[c], (size_t)(nd[c] + 1) * sizeof **d);
        d[c][nd[c]++] = log((double)sqlite3_column_int64(st, 1) / (double)sqlite3_column_int64(st, 2));
    }
    sqlite3_finalize(st);
    st = prep(db, "SELECT cell_id, count(*), sum(block_pos = 1) FROM schedule WHERE block_role = 1 AND round >= 1"
                  " GROUP BY cell_id");
    while (sqlite3_step(st) == SQLITE_ROW) {
        int c = sqlite3_column_int(st, 0) - 1;
        if (c >= 0 && c < n_cells) {
            blocks[c] = sqlite3_column_int(st, 1);
            firsts[c] = sqlite3_column_int(st, 2);
        }
    }
    sqlite3_finalize(st);
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
        int64_t seq = one_int(db, "SELECT max(seq) FROM schedule"),
                block = one_int(db, "SELECT max(block) FROM schedule");
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
                slots[total] = (sw_slot){.seq = (int)++seq,
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
