/* st_plotdata.h - the plot data files (DIR/plotdata/<file>.dat) and their
 * columns: one table, the only place a file's columns are written.
 *
 * Invariants:
 *  - analyze writes each file's header ("# col col ...") and every row from
 *    this table, columns in table order (stats/st_report.c); `analyze
 *    --print-plotdata-columns` prints it, and plots/figures.sh and the
 *    gnuplot scripts take the file names, column names and types from that
 *    output instead of keeping lists of their own (docs/STATISTICS.md, "Plot
 *    data", says what each column means).
 *  - A column is only ever appended at the end of its file's row; readers
 *    find columns by name.
 *  - Types: WORD (a word without blanks: "-" when empty, blanks become _),
 *    INT (an integer), NUMn (a number with n significant digits, NaN when
 *    missing), HUM6 (the same with 6 digits, but whole numbers from 10^6 up
 *    written without an exponent).  Only WORD columns may hold something other than a number.
 *
 * Each file is FILE(name, "what one row is", columns), each column
 * COL(name, TYPE, value).  value is the C expression st_report.c prints for
 * the row x (a st_pd_row: x->an the analysis, x->r the result of the row's
 * cell, x->c its cell, x->run the run of a per-run row, x->index and
 * x->workload for per-workload rows, x->a and x->t the chosen allocation and
 * time cells of normalized.dat, x->cmp their comparison, x->ip an in-process
 * cell (st_inproc.h), x->fit and x->k a cost regression and its cell (0: the
 * baseline; st_costfit.h), x->sc a simulated cell (st_sim.h), x->v and
 * x->period values of the row, x->peer and x->series a row of the peers
 * report and the figure's line of the cell (st_peers.h)); other users ignore it.  Adding a file: a
 * FILE row here and, in st_report.c, the loop that picks its rows.
 */
#ifndef ST_PLOTDATA_H
#define ST_PLOTDATA_H

#include <stdio.h>
#include <string.h>
#include "sgc_modes.h"

/* A time cell's line in figure 2 (time_series): its clock, and its time
 * sampler's mode after a '-' when that is not the first (signal): "wall",
 * "cpu", "wall-thread".  series_no orders them: the clocks of the first mode,
 * then those of the next.  c is a st_cell (st_db.h). */
#define st_pd_series(c) st_pd_series_((c)->time_clock, (c)->time_mode)
#define st_pd_series_no(c) st_pd_series_no_((c)->time_clock, (c)->time_mode)
static inline const char *st_pd_series_(const char *clock, const char *mode) {
    static char buf[4][64];
    static int k;
    if (!mode[0] || !strcmp(mode, sgc_time_mode_name(0)))
        return clock;
    char *b = buf[k++ % 4];
    snprintf(b, sizeof buf[0], "%s-%s", clock, mode);
    return b;
}
static inline int st_pd_series_no_(const char *clock, const char *mode) {
    int m = sgc_time_mode_parse(mode);
    return sgc_clock_parse(clock) + SGC_NCLOCKS * (m > 0 ? m : 0);
}

#define ST_PLOTDATA_FILES(FILE, COL)                                                                                   \
    FILE(workloads, "one workload, in report order", COL(index, INT, x->index) COL(workload, WORD, x->workload))       \
    FILE(alloc_runs, "one measured run of an allocation-sampling cell",                                                \
         COL(workload, WORD, x->c->workload) COL(alloc_mode, WORD, x->c->alloc_mode)                                   \
             COL(alloc_period, INT, x->c->alloc_period) COL(round, INT, x->run->round)                                 \
                 COL(wall_ns, NUM12, x->run->wall_ns) COL(ratio, NUM8, x->run->wall_ns / x->r->baseline_median)        \
                     COL(alloc_samples, NUM12, x->run->key[ST_K_alloc_samples])                                        \
                         COL(alloc_sps, NUM8, st_run_sps(x->r, x->run, 0))                                             \
                             COL(mode_no, INT, sgc_alloc_mode_parse(x->c->alloc_mode)))                                \
    FILE(time_runs, "one measured run of a time-sampling cell",                                                        \
         COL(workload, WORD, x->c->workload) COL(time_clock, WORD, x->c->time_clock) COL(time_hz, INT, x->c->time_hz)  \
             COL(round, INT, x->run->round) COL(wall_ns, NUM12, x->run->wall_ns)                                       \
                 COL(ratio, NUM8, x->run->wall_ns / x->r->baseline_median)                                             \
                     COL(time_samples, NUM12, x->run->key[ST_K_time_samples]) COL(time_sps, NUM8,                      \
                                                                                  st_run_sps(x->r, x->run, 1))         \
                         COL(clock_no, INT, sgc_clock_parse(x->c->time_clock)) COL(time_mode, WORD, x->c->time_mode)   \
                             COL(time_series, WORD, st_pd_series(x->c)) COL(series_no, INT, st_pd_series_no(x->c)))    \
    FILE(baseline_runs, "one measured run of a baseline cell",                                                         \
         COL(workload, WORD, x->c->workload) COL(round, INT, x->run->round) COL(wall_ns, NUM12, x->run->wall_ns)       \
             COL(ratio, NUM8, x->run->wall_ns / x->r->wall.median))                                                    \
    FILE(alloc_cells, "one allocation-sampling cell",                                                                  \
         COL(workload, WORD, x->c->workload) COL(alloc_mode, WORD, x->c->alloc_mode) COL(                              \
             alloc_period, INT, x->c->alloc_period) COL(runs, INT, x->r->runs) COL(overhead, NUM8, x->r->overhead.est) \
             COL(overhead_lo, NUM8, lo_of(&x->r->overhead)) COL(overhead_hi, NUM8, hi_of(&x->r->overhead))             \
                 COL(alloc_sps, NUM8, x->r->alloc_sps.est) COL(alloc_sps_lo, NUM8, lo_of(&x->r->alloc_sps))            \
                     COL(alloc_sps_hi, NUM8, hi_of(&x->r->alloc_sps)) COL(norm_overhead, NUM8, x->r->norm.est)         \
                         COL(norm_lo, NUM8, lo_of(&x->r->norm)) COL(norm_hi, NUM8, hi_of(&x->r->norm))                 \
                             COL(cost_us, NUM8, x->r->cost.est) COL(cost_lo, NUM8, lo_of(&x->r->cost))                 \
                                 COL(cost_hi, NUM8, hi_of(&x->r->cost))                                                \
                                     COL(ci, WORD, st_ci_name(x->r->overhead.method)) COL(pairs, INT, x->r->pairs)     \
                                         COL(paired, NUM8, x->r->paired.est)                                           \
                                             COL(paired_lo, NUM8, lo_of(&x->r->paired))                                \
                                                 COL(paired_hi, NUM8, hi_of(&x->r->paired))                            \
                                                     COL(mode_no, INT, sgc_alloc_mode_parse(x->c->alloc_mode)))        \
    FILE(time_cells, "one time-sampling cell",                                                                         \
         COL(workload, WORD, x->c->workload) COL(time_clock, WORD, x->c->time_clock) COL(time_hz, INT, x->c->time_hz)  \
             COL(runs, INT, x->r->runs) COL(overhead, NUM8, x->r->overhead.est)                                        \
                 COL(overhead_lo, NUM8, lo_of(&x->r->overhead)) COL(overhead_hi, NUM8, hi_of(&x->r->overhead))         \
                     COL(time_sps, NUM8, x->r->time_sps.est) COL(time_sps_lo, NUM8, lo_of(&x->r->time_sps))            \
                         COL(time_sps_hi, NUM8, hi_of(&x->r->time_sps)) COL(hz_achieved, NUM8, x->r->hz_achieved)      \
                             COL(norm_overhead, NUM8, x->r->norm.est) COL(norm_lo, NUM8, lo_of(&x->r->norm))           \
                                 COL(norm_hi, NUM8, hi_of(&x->r->norm)) COL(cost_us, NUM8, x->r->cost.est)             \
                                     COL(cost_lo, NUM8, lo_of(&x->r->cost)) COL(cost_hi, NUM8, hi_of(&x->r->cost))     \
                                         COL(ci, WORD, st_ci_name(x->r->overhead.method)) COL(pairs, INT, x->r->pairs) \
                                             COL(paired, NUM8, x->r->paired.est)                                       \
                                                 COL(paired_lo, NUM8, lo_of(&x->r->paired))                            \
                                                     COL(paired_hi, NUM8, hi_of(&x->r->paired))                        \
                                                         COL(clock_no, INT, sgc_clock_parse(x->c->time_clock))         \
                                                             COL(time_mode, WORD, x->c->time_mode)                     \
                                                                 COL(time_series, WORD, st_pd_series(x->c))            \
                                                                     COL(series_no, INT, st_pd_series_no(x->c)))       \
    FILE(normalized, "one workload: its allocation and time cells nearest 1000 samples/s",                             \
         COL(index, INT, x->index) COL(workload, WORD, x->workload) COL(alloc_period, NUM12,                           \
                                                                        x->a ? (double)x->a->cell->alloc_period : NAN) \
             COL(alloc_sps, NUM8, x->a ? x->a->sps.est : NAN) COL(alloc_norm, NUM8, x->a ? x->a->norm.est : NAN) COL(  \
                 alloc_norm_lo, NUM8, x->a ? lo_of(&x->a->norm) : NAN) COL(alloc_norm_hi, NUM8,                        \
                                                                           x->a ? hi_of(&x->a->norm) : NAN)            \
                 COL(time_hz, NUM12, x->t ? (double)x->t->cell->time_hz : NAN) COL(                                    \
                     time_sps, NUM8, x->t ? x->t->sps.est : NAN) COL(time_norm, NUM8, x->t ? x->t->norm.est : NAN)     \
                     COL(time_norm_lo, NUM8,                                                                           \
                         x->t ? lo_of(&x->t->norm) : NAN) COL(time_norm_hi, NUM8, x->t ? hi_of(&x->t->norm) : NAN)     \
                         COL(alloc_pairs, INT, x->a ? x->a->pairs : 0) COL(alloc_paired, NUM8,                         \
                                                                           x->a ? x->a->paired_norm.est : NAN)         \
                             COL(alloc_paired_lo, NUM8, x->a ? lo_of(&x->a->paired_norm) : NAN)                        \
                                 COL(alloc_paired_hi, NUM8, x->a ? hi_of(&x->a->paired_norm) : NAN)                    \
                                     COL(time_pairs, INT, x->t ? x->t->pairs : 0) COL(                                 \
                                         time_paired, NUM8, x->t ? x->t->paired_norm.est : NAN)                        \
                                         COL(time_paired_lo, NUM8, x->t ? lo_of(&x->t->paired_norm) : NAN)             \
                                             COL(time_paired_hi, NUM8, x->t ? hi_of(&x->t->paired_norm) : NAN) COL(    \
                                                 basis, WORD, st_normcmp_basis(x->cmp)) COL(resolved, WORD,            \
                                                                                            st_normcmp_word(x->cmp))   \
                                                 COL(diff, NUM8, x->cmp->diff ? x->cmp->diff->est : NAN)               \
                                                     COL(diff_lo, NUM8, x->cmp->diff ? lo_of(x->cmp->diff) : NAN) COL( \
                                                         diff_hi, NUM8, x->cmp->diff ? hi_of(x->cmp->diff) : NAN)      \
                                                         COL(diff_level, WORD,                                         \
                                                             x->cmp->diff ? st_level_name(x->cmp->level) : "-")        \
                                                             COL(time_mode, WORD, x->t ? x->t->cell->time_mode : "-")) \
    FILE(exactness, "one measured run of a cell that samples allocations",                                             \
         COL(workload, WORD, x->c->workload) COL(alloc_mode, WORD, x->c->alloc_mode)                                   \
             COL(alloc_period, INT, x->c->alloc_period) COL(round, INT, x->run->round)                                 \
                 COL(sampled_bytes, NUM15, x->run->key[ST_K_sampled_bytes]) COL(expected, NUM12, exact_expected(x))    \
                     COL(sample_points, NUM15, x->run->key[ST_K_alloc_sample_points]) COL(match, NUM1, exact_match(x)) \
                         COL(mode_no, INT, sgc_alloc_mode_parse(x->c->alloc_mode)))                                    \
    FILE(depth, "one sampling cell of the depth experiment (deepstack at a --depth)",                                  \
         COL(workload, WORD, x->c->workload) COL(depth, NUM10, x->c->depth) COL(kind, WORD, x->c->kind)                \
             COL(alloc_period, INT, x->c->alloc_period) COL(time_hz, INT, x->c->time_hz) COL(runs, INT, x->r->runs)    \
                 COL(samples, NUM12, depth_samples(x->r)) COL(cost_us, NUM8, x->r->cost.est)                           \
                     COL(cost_lo, NUM8, lo_of(&x->r->cost)) COL(cost_hi, NUM8, hi_of(&x->r->cost)))                    \
    FILE(inprocess, "one cell of a sweep in the in-process design (steady-state marginal cost)",                       \
         COL(index, INT, x->index) COL(workload, WORD, x->ip->workload) COL(label, WORD, x->ip->label)                 \
             COL(alloc_period, INT, x->ip->alloc_period) COL(time_hz, INT, x->ip->time_hz)                             \
                 COL(ratio, NUM6, x->ip->e.lv_ratio.est) COL(lo, NUM6, lo_of(&x->ip->e.lv_ratio))                      \
                     COL(hi, NUM6, hi_of(&x->ip->e.lv_ratio)) COL(half_width_pct, NUM4, ip_half_width(x->ip))          \
                         COL(blocks, INT, x->ip->e.blocks.n) COL(kind, WORD, x->ip->kind)                              \
                             COL(runs, INT, x->ip->e.blocks.runs) COL(verdict, WORD, ip_verdict(x))                    \
                                 COL(margin, NUM6, x->an->margin) COL(level, WORD, st_level_name(x->ip->e.level)))     \
    FILE(regress, "one cell of a per-sample cost regression (row 0 of a fit: its baseline)",                           \
         COL(workload, WORD, x->fit->workload) COL(kind, WORD, x->fit->kind)                                           \
             COL(metric, WORD, st_fit_metric_name(x->fit->metric)) COL(samples, HUM6, fit_x(x))                        \
                 COL(median_y, HUM6, fit_y(x)) COL(fitted, HUM6, fit_fitted(x))                                        \
                     COL(residual, HUM6, x->fit->fit.residual[x->k])                                                   \
                         COL(residual_frac, HUM6, x->fit->fit.residual[x->k] / x->fit->fit.base.est)                   \
                             COL(cell_cost_us, HUM6, fit_cell_cost(x, 0)) COL(cell_cost_lo, HUM6, fit_cell_cost(x, 1)) \
                                 COL(cell_cost_hi, HUM6, fit_cell_cost(x, 2)))                                         \
    FILE(sim_alloc, "one simulated allocation cell (fixed mode; a workload without fixed-mode cells: its own mode)",   \
         COL(workload, WORD, x->sc->workload) COL(alloc_period, INT, x->sc->alloc_period)                              \
             COL(overhead_Ir, NUM12, x->sc->overhead_ir) COL(overhead_est_cycles, NUM12, x->sc->overhead_cyc)          \
                 COL(alloc_samples, NUM12, x->sc->alloc_samples) COL(per_sample_Ir, NUM8, x->sc->per_sample_ir)        \
                     COL(per_sample_est_cycles, NUM8, x->sc->per_sample_cyc) COL(sps_native, NUM8, x->sc->sps_native)  \
                         COL(normalized_Ir, NUM10, x->sc->norm_ir) COL(normalized_est_cycles, NUM10, x->sc->norm_cyc)) \
    FILE(sim_time, "one simulated time cell (wall clock), modelled at the native rate",                                \
         COL(workload, WORD, x->sc->workload) COL(time_hz, INT, x->sc->time_hz) COL(time_samples, NUM10,               \
                                                                                    x->sc->time_samples)               \
             COL(per_sample_Ir, NUM8, x->sc->per_sample_ir) COL(per_sample_est_cycles, NUM8, x->sc->per_sample_cyc)    \
                 COL(model_user_ns, NUM6, x->sc->model_user_ns) COL(model_kernel_ns, NUM6, x->sc->model_kernel_ns)     \
                     COL(model_overhead, NUM8, x->sc->model_overhead) COL(model_normalized, NUM8, x->sc->model_norm))  \
    FILE(sim_normalized, "one workload of the simulated part: its allocation cell nearest 1000 native samples/s",      \
         COL(index, INT, x->index) COL(workload, WORD, x->workload)                                                    \
             COL(alloc_period, INT, x->sc ? x->sc->alloc_period : 0)                                                   \
                 COL(alloc_sps_native, NUM8, x->sc ? x->sc->sps_native : NAN)                                          \
                     COL(normalized_Ir, NUM10, x->sc ? x->sc->norm_ir : NAN)                                           \
                         COL(normalized_est_cycles, NUM10, x->sc ? x->sc->norm_cyc : NAN)                              \
                             COL(time_normalized_model, NUM10, x->v))                                                  \
    FILE(sim_compare, "one workload and period (32K, 4M): counted and timed overheads side by side",                   \
         COL(workload, WORD, x->workload) COL(index, INT, x->index) COL(alloc_period, INT, x->period)                  \
             COL(overhead_Ir, NUM12, x->sc ? x->sc->overhead_ir : NAN)                                                 \
                 COL(overhead_est_cycles, NUM12, x->sc ? x->sc->overhead_cyc : NAN)                                    \
                     COL(overhead_wall, NUM8, x->r ? x->r->overhead.est : NAN)                                         \
                         COL(overhead_wall_lo, NUM8, x->r ? lo_of(&x->r->overhead) : NAN)                              \
                             COL(overhead_wall_hi, NUM8, x->r ? hi_of(&x->r->overhead) : NAN))                         \
    FILE(peers, "one allocation cell of a workload on one system (sweeps of several systems: make peers)",             \
         COL(workload, WORD, x->peer->base) COL(system, WORD, x->series) COL(period_bytes, INT, x->c->alloc_period)    \
             COL(overhead_pct, NUM6, pct_of(x->r->paired.est)) COL(lo_pct, NUM6, pct_of(lo_of(&x->r->paired)))         \
                 COL(hi_pct, NUM6, pct_of(hi_of(&x->r->paired))) COL(samples_per_run, NUM6, x->r->alloc_samples)       \
                     COL(samples, WORD, x->peer->samples) COL(cost_ns, NUM6, x->peer->cost_wall.est)                   \
                         COL(cost_lo, NUM6, x->peer->cost_wall.lo) COL(cost_hi, NUM6, x->peer->cost_wall.hi)           \
                             COL(inproc_cost_ns, NUM6, st_peer_inproc_cost(x->peer, 0))                                \
                                 COL(inproc_cost_lo, NUM6, st_peer_inproc_cost(x->peer, 1))                            \
                                     COL(inproc_cost_hi, NUM6, st_peer_inproc_cost(x->peer, 2))                        \
                                         COL(sim_ir_per_sample, NUM6, x->peer->sim_ir)                                 \
                                             COL(sim_repeat, WORD, st_peer_sim_repeat(x->peer))                        \
                                                 COL(sim_spread_pct, NUM6, 100 * x->peer->sim_spread))

/* The files as numbers: ST_PD_<name>. */
#define ST__PD_ENUM(name, what, cols) ST_PD_##name,
#define ST__PD_NOCOL(name, type, value)
typedef enum st_plotfile { ST_PLOTDATA_FILES(ST__PD_ENUM, ST__PD_NOCOL) ST_PD_NFILES } st_plotfile;
#undef ST__PD_ENUM
#undef ST__PD_NOCOL

/* A file's name ("alloc_runs"), and its header line without the newline
 * ("# workload alloc_mode ..."). */
const char *st_plotdata_name(st_plotfile f);
const char *st_plotdata_header(st_plotfile f);

/* Prints the table, one line per file: "<file> <column>:<type> ...", type
 * word, int or num (the form plots/figures.sh reads). */
void st_plotdata_print(void *stream);

#endif
