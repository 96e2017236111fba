/* sw_verify.h - a stored sweep checked against the plan of its stored
 * settings, before anything is added to it: by --merge for every shard
 * (harness/sw_shard.c) and by --resume (harness/sw_sweep.c), the same checks
 * with the same words.
 *
 * Invariants:
 *  - The plan is rebuilt from the stored config alone (sw_plan_cells,
 *    sw_plan_schedule_all, the shard's part of it); the database holds that
 *    plan or the sweep is refused (exit 2, bad input), naming the first
 *    difference: an edited config (periods, runs, seed, env...), edited cells
 *    or schedule rows, or a database of another plan.
 *  - Cells: exactly the plan's, in order (id, label, workload, kind, period,
 *    mode, rate, clock, args, depth, backend), and every cell of the part a
 *    database runs has a calibrated size.
 *  - Schedule: exactly the plan's rows of the part it runs, in order, with
 *    their seq, round, block, position and role; after them (only with
 *    --halfwidth, blocked design) adaptive rounds of the form sw_adapt.c
 *    appends: rounds from the plan's last + 1 up to --max-runs in order,
 *    each a set of blocks of two adjacent rows (positions 1, 2, numbered on
 *    from the plan's last block), one run of a timed cell (role 1) and one of
 *    its baseline (role 0).
 *  - Runs: every run is its schedule row's (seq, cell, round, block,
 *    position and role), none is foreign; a block is stored whole or not at
 *    all (its two runs are committed together).
 *  - Meta: the values a sweep stores from its settings when it starts (seed,
 *    design, env, calibration_target_s, bin_dir, shard) agree with the stored
 *    config.
 */
#ifndef SW_VERIFY_H
#define SW_VERIFY_H

#include "sw_db.h"
#include "sw_opts.h"
#include "sw_plan.h"

/* Exits 2 unless db's cells are cells[0..n_cells), with a size for every
 * owned one (owned NULL: all), each in the plan's time sampler's mode (a
 * NULL time_mode, of a sweep from before the column, only when legacy:
 * the settings are the older form's).   where starts every message ("merge: DIR
 * (shard 2)", "--resume DIR"). */
void sw_verify_cells(sw_db *db, const char *where, const sw_cell *cells, int n_cells, const int *owned, int legacy);

/* Exits 2 unless db's schedule is the owned slots of slots[0..n_slots) (the
 * plan of o), then with adaptive set any adaptive rounds (o's --runs,
 * --max-runs).  plan names the plan in messages ("the plan of its settings,
 * shard 1 of 2"), tail says what a difference means ("not a shard of this
 * sweep"). */
void sw_verify_schedule(sw_db *db, const char *where, const sw_opts *o, const sw_cell *cells, int n_cells,
                        const sw_slot *slots, int n_slots, const int *owned, int adaptive, const char *plan,
                        const char *tail);

/* Exits 2 if a run of db is not its schedule row's, or (blocks) a block is
 * stored half. */
void sw_verify_runs(sw_db *db, const char *where, int blocks);

/* Exits 2 unless the start metadata agree with o (--resume). */
void sw_verify_meta(sw_db *db, const char *where, const sw_opts *o);

#endif /* SW_VERIFY_H */
