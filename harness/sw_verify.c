/* sw_verify.c - a stored sweep against the plan of its stored settings. */
#include "sw_verify.h"
#include "sw_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The rows of a query; a database that cannot answer it is not a sweep's. */
static sw_db_rows rows_of(sw_db *db, const char *where, const char *sql) {
    sw_db_rows r;
    char *why = NULL;
    if (sw_db_query(db, sql, NULL, &r, &why) != 0)
        sw_usage_error("%s: not a results database written by this sweep (%s)", where, why);
    return r;
}

/* A column's value as a number (0 for NULL). */
static long long num(const sw_db_rows *r, int row, int col) {
    const char *v = sw_db_at(r, row, col);
    return v ? strtoll(v, NULL, 10) : 0;
}

#define COL(rows, r, i) (sw_db_at(&(rows), r, i) ? sw_db_at(&(rows), r, i) : "")

void sw_verify_cells(sw_db *db, const char *where, const sw_cell *cells, int n_cells, const int *owned, int legacy) {
    /* A sweep from before the time_mode column (a shard to merge) reads it as NULL. */
    sw_db_rows probe;
    char *why = NULL;
    int has_mode = sw_db_query(db, "SELECT time_mode FROM cells LIMIT 0", NULL, &probe, &why) == 0;
    if (has_mode)
        sw_db_rows_free(&probe);
    free(why);
    sw_db_rows rows = rows_of(db, where,
                              has_mode ? "SELECT cell_id, label, workload, kind, alloc_period, alloc_mode, time_hz,"
                                         " time_clock, args, ifnull(depth, 0), backend, size, time_mode FROM cells"
                                         " ORDER BY cell_id"
                                       : "SELECT cell_id, label, workload, kind, alloc_period, alloc_mode, time_hz,"
                                         " time_clock, args, ifnull(depth, 0), backend, size, NULL FROM cells"
                                         " ORDER BY cell_id");
    int c = 0;
    for (int r = 0; r < rows.n; r++, c++) {
        const sw_cell *p = c < n_cells ? &cells[c] : NULL;
        /* The time sampler's mode: NULL only in a sweep from before the
         * column, whose stored config has no time-modes (the older form:
         * one mode, its labels today's); else the plan's. */
        const char *tm = sw_db_at(&rows, r, 12);
        if (p && (tm ? strcmp(tm, p->time_mode) : !legacy))
            sw_usage_error("%s: cell %d (%s) has time_mode %s, but the plan of its settings makes it in %s: the "
                           "database does not hold the plan it claims",
                           where, (int)num(&rows, r, 0), COL(rows, r, 1), tm ? (tm[0] ? tm : "none") : "NULL",
                           p->time_mode[0] ? p->time_mode : "no mode");
        if (!p || (int)num(&rows, r, 0) != p->id || strcmp(COL(rows, r, 1), p->label) ||
            strcmp(COL(rows, r, 2), p->workload) || strcmp(COL(rows, r, 3), p->kind) ||
            (uint64_t)num(&rows, r, 4) != p->alloc_period || strcmp(COL(rows, r, 5), p->alloc_mode) ||
            (unsigned)num(&rows, r, 6) != p->time_hz || strcmp(COL(rows, r, 7), p->time_clock) ||
            strcmp(COL(rows, r, 8), p->args) || (unsigned)num(&rows, r, 9) != p->depth ||
            strcmp(COL(rows, r, 10), p->sim ? "sim" : "native"))
            sw_usage_error("%s: cell %d is %s, but the plan of its settings has %s there: the database does not hold "
                           "the plan it claims",
                           where, (int)num(&rows, r, 0), COL(rows, r, 1), p ? p->label : "no cell");
        if ((!owned || owned[c]) && num(&rows, r, 11) <= 0)
            sw_usage_error("%s: cell %s has no calibrated size", where, p->label);
    }
    sw_db_rows_free(&rows);
    if (c != n_cells)
        sw_usage_error("%s has %d cells, the plan of its settings %d", where, c, n_cells);
}

void sw_verify_schedule(sw_db *db, const char *where, const sw_opts *o, const sw_cell *cells, int n_cells,
                        const sw_slot *slots, int n_slots, const int *owned, int adaptive, const char *plan,
                        const char *tail) {
    sw_db_rows rows = rows_of(db, where,
                              "SELECT seq, cell_id, round, ifnull(block, 0), ifnull(block_pos, 0),"
                              " ifnull(block_role, 0), ifnull(replicate, -1) FROM schedule ORDER BY seq");
    int j = 0, r = 0, last_seq = 0, last_round = 0, last_block = 0;
    for (; r < rows.n; r++) {
        while (j < n_slots && owned && !owned[slots[j].cell])
            j++;
        if (j >= n_slots)
            break; /* the plan's rows are all there: adaptive ones may follow */
        int seq = (int)num(&rows, r, 0);
        if (seq != slots[j].seq || (int)num(&rows, r, 1) != cells[slots[j].cell].id ||
            (int)num(&rows, r, 2) != slots[j].round || (int)num(&rows, r, 3) != slots[j].block ||
            (int)num(&rows, r, 4) != slots[j].pos || (int)num(&rows, r, 5) != slots[j].role ||
            (int)num(&rows, r, 6) != slots[j].replicate)
            sw_usage_error("%s: its schedule's run %d is not the plan's (%s, differs there): %s", where, seq, plan,
                           tail);
        j++;
    }
    while (j < n_slots && owned && !owned[slots[j].cell])
        j++;
    if (j < n_slots)
        sw_usage_error("%s: its schedule lacks the plan's run %d and later ones", where, slots[j].seq);
    for (int i = 0; i < n_slots; i++) {
        if (slots[i].seq > last_seq)
            last_seq = slots[i].seq;
        if (slots[i].round > last_round)
            last_round = slots[i].round;
        if (slots[i].block > last_block)
            last_block = slots[i].block;
    }
    /* Adaptive rounds (sw_adapt.c): blocks of a timed cell and its baseline,
     * two adjacent rows each, in rounds after the plan's. */
    for (; r < rows.n; r += 2) {
        int seq = (int)num(&rows, r, 0);
        if (!adaptive)
            sw_usage_error("%s: its schedule's run %d is not the plan's (%s, has no more runs): %s", where, seq, plan,
                           tail);
        const char *bad = NULL;
        int round = (int)num(&rows, r, 2), block = (int)num(&rows, r, 3);
        int cell = -1, base = -1, roles = 0;
        if (r + 1 >= rows.n)
            bad = "a block of one run";
        else if (seq != last_seq + 1 || (int)num(&rows, r + 1, 0) != seq + 1)
            bad = "not right after the rows before it";
        else if (round < 1 || (round != last_round && round != last_round + 1) || round > o->max_runs ||
                 (int)num(&rows, r + 1, 2) != round)
            bad = "not in the next adaptive round (up to --max-runs)";
        else if (block != last_block + 1 || (int)num(&rows, r + 1, 3) != block || num(&rows, r, 4) != 1 ||
                 num(&rows, r + 1, 4) != 2)
            bad = "not the next block, positions 1 and 2";
        if (!bad) {
            for (int k = 0; k < 2; k++) {
                int id = (int)num(&rows, r + k, 1), role = (int)num(&rows, r + k, 5);
                if (id < 1 || id > n_cells || cells[id - 1].sim)
                    bad = "a cell that is not a timed cell of the plan";
                else if (role)
                    cell = id - 1, roles++;
                else
                    base = id - 1;
            }
            if (!bad && (roles != 1 || cell < 0 || base != sw_plan_baseline_of(cells, n_cells, cell)))
                bad = "not a cell's run (role 1) and its baseline's (role 0)";
        }
        if (bad)
            sw_usage_error("%s: its schedule's run %d is not the plan's (%s) nor an adaptive round's (%s): %s", where,
                           seq, plan, bad, tail);
        last_seq = seq + 1;
        last_round = round;
        last_block = block;
    }
    sw_db_rows_free(&rows);
}

void sw_verify_runs(sw_db *db, const char *where, int blocks) {
    sw_db_rows rows =
        rows_of(db, where,
                "SELECT count(*), min(r.seq) FROM runs r LEFT JOIN schedule s ON s.seq = r.seq WHERE s.seq IS NULL"
                " OR s.cell_id != r.cell_id OR s.round != r.round OR ifnull(s.block, 0) != ifnull(r.block, 0)"
                " OR ifnull(s.block_pos, 0) != ifnull(r.block_pos, 0)"
                " OR ifnull(s.block_role, 0) != ifnull(r.block_role, 0)"
                " OR ifnull(s.replicate, -1) != ifnull(r.replicate, -1)");
    long foreign = rows.n ? (long)num(&rows, 0, 0) : 0;
    sw_db_rows_free(&rows);
    if (foreign)
        sw_usage_error("%s: it holds %ld runs that its schedule does not plan", where, foreign);
    if (!blocks)
        return;
    rows = rows_of(db, where,
                   "SELECT block, min(seq), count(*) FROM runs WHERE block IS NOT NULL GROUP BY block"
                   " HAVING count(*) != 2 ORDER BY block LIMIT 1");
    if (rows.n)
        sw_usage_error("%s: it holds half of block %lld (run %lld without the other): a block's two runs are stored "
                       "together, so the database was edited; start a new sweep",
                       where, num(&rows, 0, 0), num(&rows, 0, 1));
    sw_db_rows_free(&rows);
}

void sw_verify_meta(sw_db *db, const char *where, const sw_opts *o) {
    char seed[32], target[32], shard[32];
    snprintf(seed, sizeof seed, "%llu", (unsigned long long)o->seed);
    snprintf(target, sizeof target, "%.3f", o->target);
    snprintf(shard, sizeof shard, "%d/%d", o->shard_k, o->shard_n);
    sw_buf env = {0};
    for (int i = 0; i < o->n_env; i++)
        sw_buf_printf(&env, "%s%s", i ? " " : "", o->env[i]);
    const struct {
        const char *key, *want;
    } facts[] = {
        {"seed", seed},
        {"design", sw_design_name(o->design)},
        {"env", o->n_env ? env.data : "none"},
        {"calibration_target_s", target},
        {"bin_dir", o->bin_dir},
        {"shard", o->shard_n ? shard : NULL},
    };
    for (size_t i = 0; i < sizeof facts / sizeof *facts; i++) {
        char *got = sw_db_meta_get(db, facts[i].key);
        int same = facts[i].want ? got && !strcmp(got, facts[i].want) : !got;
        if (!same)
            sw_usage_error("%s: its stored config says %s %s, but the sweep started with %s %s (meta.%s): the config "
                           "was edited, and the runs stored so far were made with the other; start a new sweep",
                           where, facts[i].key, facts[i].want ? facts[i].want : "none", facts[i].key,
                           got ? got : "none", facts[i].key);
        free(got);
    }
    sw_buf_free(&env);
}
