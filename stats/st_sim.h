/* st_sim.h - the analysis of the simulated cells (cells.backend = 'sim'):
 * exact counts from valgrind's cachegrind, no statistics needed.
 *
 * Invariants:
 *  - Per cell, every metric of sw_simdef.h is the median of its ok runs
 *    (they agree to the count when the cell is deterministic); its spread is
 *    (max - min) / min over those runs.  A cell without time sampling whose
 *    ok runs all recorded the runtime's virtual clock (run_stats
 *    virtual_clock_ns > 0, as the harness sets it) must repeat exactly: it
 *    is flagged NOT DETERMINISTIC when any of its counts differs between
 *    runs.  Runs without it (an older harness's: their runtimes recorded
 *    real times, whose digits and encodings moved the counts by up to a few
 *    hundred instructions) are flagged when the spread of sim::Ir or
 *    sim::est-cycles exceeds ST_SIM_TOLERANCE (0.01%).  Time cells are not
 *    expected to repeat (the timer fires by real time, and a run under
 *    valgrind is slow by a varying amount) and are never flagged, their
 *    spread being reported.
 *  - Overheads are ratios to the baseline of the same workload and size
 *    among the simulated cells; the per-sample cost is (cell - baseline) /
 *    samples (the cell's median samples); the per-sample slope and fixed
 *    cost of allocation (fixed mode) and time sampling (wall clock) come
 *    from the regression over runs that fits the timed cells too
 *    (st_costfit.h, metrics sim_instructions and sim_est_cycles): its
 *    intercept minus the baseline is the cost of turning sampling on.
 *  - Rates are native: samples per second are the samples over the native
 *    CPU time of the workload's baseline at the simulated size (table
 *    sim_native); the normalized overhead is 1 + (overhead - 1) x 1000 /
 *    (native samples per second).
 *  - Time cells are modelled, not counted: under valgrind the timer fires
 *    far more often per unit of work and the kernel's signal delivery is not
 *    counted.  The counted part is the user-space instructions per time
 *    sample (handler and drain); the measured part is the kernel's delivery
 *    cost per signal (meta time_delivery_ns, time-bench, native).  At the
 *    native rate f the modelled overhead is 1 + f x (instructions per sample
 *    x native seconds per instruction + delivery ns x 1e-9), the native
 *    seconds per instruction being the baseline's native CPU time over its
 *    instructions; likewise in estimated cycles.
 *  - Anything undefined is NaN with the reason in the cell's note.
 */
#ifndef ST_SIM_H
#define ST_SIM_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "../contracts/sw_simdef.h"

/* Relative spread above which repeated counts of runs without the virtual
 * clock are flagged (0.01%). */
#define ST_SIM_TOLERANCE 1e-4

typedef struct st_simcell {
    int64_t cell_id;
    char *workload, *kind, *label, *alloc_mode, *time_clock;
    int64_t alloc_period, time_hz, size;
    size_t runs, ok;                       /* runs recorded, runs ok with every count */
    char *failure;                         /* the first failed run's reason, or NULL */
    double v[SW_SIM_N];                    /* median counts of the ok runs (NaN if none) */
    double vmin[SW_SIM_N], vmax[SW_SIM_N]; /* their extremes */
    double spread[SW_SIM_N];               /* (max - min) / min over the ok runs (NaN if < 2) */
    double alloc_samples, time_samples;    /* median samples per run */
    int deterministic;                     /* 1 yes, 0 flagged, -1 not checked (time cell or < 2 runs) */
    int exact;                             /* checked: 1 to the count (virtual clock), 0 within the tolerance; -1 */
    const struct st_simcell *baseline;     /* NULL if none; itself for a baseline */
    double overhead_ir, overhead_cyc;      /* ratio to the baseline */
    double per_sample_ir, per_sample_cyc;  /* (cell - baseline) / samples */
    double native_s;                       /* native CPU seconds of the baseline at this size */
    double sps_native;                     /* samples per native second */
    double norm_ir, norm_cyc;              /* normalized overhead per 1000 samples/s */
    double model_overhead;                 /* time cells: modelled overhead at the native rate */
    double model_user_ns, model_kernel_ns; /* time cells: ns per sample, counted and measured parts */
    double model_norm;                     /* time cells: modelled normalized overhead per 1000 samples/s */
    size_t nrun;                           /* the ok runs, in round order, for the cost regressions: */
    double *run_alloc, *run_time;          /*   their allocation and time samples */
    double *run_v[2];                      /*   their sim::Ir and sim::est-cycles */
    char note[512];
} st_simcell;

/* The workloads of the simulated part.  Their per-sample costs (instructions
 * and estimated cycles per allocation and per time sample, and the fixed cost)
 * are the per-sample cost regressions of stats/st_costfit.h, the same fit as
 * the timed cells', on the runs above. */
typedef struct st_simfit {
    const char *workload;
} st_simfit;

typedef struct st_sim {
    st_simcell *cells; /* in cell_id order */
    size_t ncells;
    st_simfit *fits; /* one per workload, in order of first appearance */
    size_t nfits;
    size_t runs, ok_runs, flagged; /* over all simulated cells */
    double delivery_ns;            /* meta time_delivery_ns, NaN if unknown */
    char *delivery_note;           /* why it is unknown, or NULL */
} st_sim;

/* Loads and analyses the simulated cells of DIR/results.db.  Returns 0
 * (sim->ncells may be 0: a sweep without them), or 2 with a message in err
 * when the database cannot be read. */
int st_sim_load(const char *dir, st_sim *sim, char *err, size_t errlen);
void st_sim_free(st_sim *sim);

/* The cell of workload with this kind and period (alloc, fixed mode) or
 * rate (time, wall clock), or NULL. */
const st_simcell *st_sim_find(const st_sim *sim, const char *workload, const char *kind, int64_t period, int64_t hz);

/* The modelled overhead of time sampling at rate_hz: 1 + rate_hz x
 * (user_instr x native_s / baseline_instr + delivery_ns x 1e-9).  NaN if an
 * input is missing or not positive (user_instr may be 0). */
double st_sim_time_model(double rate_hz, double user_instr, double baseline_instr, double native_s, double delivery_ns);

/* Outputs: the summary.md section and sim.csv (the plot data files sim_*.dat
 * are rows of stats/st_plotdata.h, written by st_report.c). */
void st_sim_write_md(FILE *f, const st_sim *sim);
void st_sim_write_csv(FILE *f, const st_sim *sim);
/* The fixed-mode allocation cell of workload w whose native samples/s is
 * nearest 1000 (log scale), or NULL (sim_normalized.dat). */
const st_simcell *st_sim_pick_alloc(const st_sim *sim, const char *w);
/* w's modelled normalized overhead of time sampling (the 1000 Hz cell's,
 * else the last time cell's: it is the same at every rate), NaN if none. */
double st_sim_time_norm(const st_sim *sim, const char *w);
/* metrics.csv rows (workload,label,metric,n,median,q1,q3,mad,min,max,outliers) of every simulated metric. */
void st_sim_write_metrics(FILE *f, const st_sim *sim);

#endif
