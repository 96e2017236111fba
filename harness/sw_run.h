/* sw_run.h - one measured run of a cell: its environment, its execution,
 * and the judgement of its result (checksum, stats record, settings).
 *
 * Invariants:
 *  - A timed run's environment is the harness's own without any SGC_*
 *    variable, plus exactly the cell's settings: SGC_ALLOC_PERIOD and
 *    SGC_TIME_HZ always (0 when off), SGC_ALLOC_MODE / SGC_TIME_CLOCK when
 *    on, SGC_SEED (derived from the sweep seed and the run's seq, in
 *    SW_RUN_SEED_DIGITS digits), SGC_STATS, and SGC_PROFILE for cells that
 *    sample; then the sweep's --env settings (runtime settings the cells do
 *    not control, e.g. SGC_NURSERY), the same for every run, calibration and
 *    --check runs included.  Every value whose width could vary from run to
 *    run has a fixed one (the environment's size moves the stack).
 *  - A simulated run's environment is built from the plan alone: SW_SIM_PATH,
 *    SW_SIM_TUNABLES, SW_SIM_CLOCK, the cell's settings and --env's, nothing
 *    of the harness's; it starts in the private temporary directory (whose
 *    path has a fixed width, harness/sw_sweep.c) with its files named
 *    relative to it, so that its counts depend on nothing outside the plan.
 *  - The stats record is judged by the rules every reader uses
 *    (runtime/sgc_statsrec.h): every key of the table from freecheck's
 *    runtime, the core keys from another system's; a record that breaks a
 *    rule fails the run with the line and the rule, and none of its keys is
 *    kept.
 *  - A run is "ok" only if it exited with status 0, printed a checksum line
 *    equal to the workload's reference checksum, and left a stats record
 *    ("sgc-stats N" first line) whose settings match the cell's, and whose
 *    nursery_size (when it has one) is the --env SGC_NURSERY rounded down to
 *    a multiple of 8 (the runtime's rounding), and whose sample_spin_ns and
 *    sample_spin_clock are the --env SGC_SAMPLE_SPIN_NS and
 *    SGC_SAMPLE_SPIN_CLOCK (when given), and whose hugepages_in_effect
 *    (when it has one) is 1 with --env SGC_HUGEPAGES=1, and whose time_mode
 *    is the cell's in a time-sampling cell of freecheck's runtime (the run
 *    gets SGC_TIME_MODE of its cell, or in the older form --env's), so a setting that did not
 *    reach the runtime cannot pass as a measurement.  Anything
 *    else is "failed" with a reason in words and the tail of its output.
 *  - Every run of a cell gets the cell's extra workload arguments after
 *    "--size N" (calibration and --check runs too, through sw_run_plain).
 *  - In the in-process design (runner.alternate) a run also gets
 *    SGC_ALTERNATE (sw_alt_mode of its cell), SGC_ALT_OUT and, when set,
 *    SGC_ALT_SEGMENT (a command's system's segment= first); a command
 *    workload of another system gets them too, with its in-process
 *    templates (sw_cmd.h).  It is "ok" only if it also left a whole
 *    segment series that keeps the contract of docs/FORMATS.md with its
 *    stats record (stats/st_segcheck.h: the cell's mode, its system,
 *    freecheck when it has none, and its period), which goes into the
 *    result (and the segments table, unmeasured fields NULL).
 *  - Temporary files (stats record, profile, series) are removed after each
 *    run; a kept profile is moved to the profiles directory.  Their names
 *    have a fixed width (stats-00000042), so the environment's size does not
 *    vary from run to run; each is read with a bound (SW_RUN_*_MAX).
 *  - A simulated runner (sim = 1) runs the same command under valgrind
 *    (sw_sim_argv), unpinned, with address space randomization off, the same
 *    SGC_SEED for every run (sim_seed), the runtime's virtual clock
 *    (SW_SIM_CLOCK) and no counters; the run is "ok" only
 *    if, besides the above, valgrind's cachegrind output was written and is
 *    well-formed, and its counts go to res->sim.  sw_run_plain under a
 *    simulated runner runs under valgrind too (calibration probes).
 */
#ifndef SW_RUN_H
#define SW_RUN_H

#include <signal.h>
#include <stdint.h>
#include "sw_alt.h"
#include "sw_db.h"
#include "sw_exec.h"
#include "sw_plan.h"
#include "sw_pfm.h"
#include "sw_sim.h"
#include "sgc_statsrec.h"

typedef struct sw_runner {
    char **base_env; /* the harness's environment without SGC_* */
    int n_base_env;
    const char *bin_dir;         /* where the workloads are */
    const char *tmp_dir;         /* private temporary directory of this sweep */
    const char *profile_dir;     /* where to keep profiles, or NULL to discard them */
    int cpu;                     /* CPU to pin runs to */
    uint64_t seed;               /* the sweep's seed */
    const sw_counters *counters; /* events to count, or NULL */
    volatile sig_atomic_t *stop; /* set by signal handlers */
    char *const *env;            /* --env NAME=VALUE settings added to every run */
    int n_env;
    int alternate;           /* in-process design: runs alternate (SGC_ALTERNATE, sw_alt.h), their series is kept */
    const char *alt_segment; /* SGC_ALT_SEGMENT for those runs, or NULL for the runtime's default */
    int sim;                 /* simulated runs: under valgrind (sw_sim.h), counted, not timed */
    const char *valgrind;    /* the valgrind program (sim) */
    uint64_t sim_seed;       /* SGC_SEED of every simulated run */
} sw_runner;

/* Everything a finished run produced, ready to be stored. */
typedef struct sw_run_result {
    sw_exec_res exec;                /* how the process ran */
    char *failure;                   /* NULL if ok */
    char *checksum;                  /* the printed checksum, or NULL */
    char *tail;                      /* output tail (failed runs only) */
    char **stat_keys, **stat_values; /* the stats record */
    int n_stats;
    int64_t profile_bytes; /* -1 if no profile */
    uint64_t sgc_seed;     /* SGC_SEED given */
    uint64_t started_ns;   /* CLOCK_REALTIME at the start */
    int interrupted;       /* stopped by a signal: not to be stored */
    int ran;               /* a process was started (times and counters are real) */
    sw_segment *segs;      /* the segment series (in-process design), or NULL */
    int n_segs;
    sw_series series;         /* what its header says (with segs) */
    sw_reading sim[SW_SIM_N]; /* simulated runs: the counts (ok = read from valgrind's output) */
} sw_run_result;

/* Prepares the runner's base environment from environ. */
void sw_runner_init(sw_runner *r);
/* Runs one cell once (seq names its files and seeds it), judging the result
 * against the reference checksum. */
void sw_run_cell(const sw_runner *r, const sw_cell *cell, int seq, int round, const char *reference, double timeout,
                 sw_run_result *out);
/* Runs a workload with plain settings (calibration and --check runs): no
 * sampling, no counters.  args are the cell's extra workload arguments ("" or
 * NULL for none); extra is one more argument (e.g. "--check") or NULL. */
int sw_run_plain(const sw_runner *r, const char *workload, const char *args, uint64_t size, const char *extra,
                 double timeout, sw_exec_res *res, char **checksum);
/* A calibration probe: sw_run_plain's run, and in the in-process design
 * (runner.alternate, not simulated) the design's A/A run: SGC_ALTERNATE=none
 * with SGC_ALT_OUT (removed after) and SGC_ALT_SEGMENT as sw_run_cell gives
 * them, a command of another system with its in-process templates.  So the
 * size is calibrated on the run the design makes, whose alternation may
 * cost much more than the plain run (a V8 run collects at every segment's
 * boundary: 20 times its plain time at a plain-calibrated size). */
int sw_run_probe(const sw_runner *r, const char *workload, const char *args, uint64_t size, double timeout,
                 sw_exec_res *res, char **checksum);
/* The nursery size the runtime makes of an SGC_NURSERY value (a byte count
 * with an optional K/M/G, KB, KiB suffix, rounded down to a multiple of 8),
 * or 0 if value is not one. */
uint64_t sw_run_nursery_bytes(const char *value);
/* The simulated metrics as counters (names, supported, the simulator as
 * encoding), for storing their readings like counters. */
const sw_counters *sw_run_sim_counters(void);
/* Fills a database row from a result (pointers into res); a simulated cell's
 * row carries the simulated counts instead of counters. */
void sw_run_to_row(const sw_run_result *res, const sw_cell *cell, int seq, int round, int cpu,
                   const sw_counters *counters, sw_run_row *row);
void sw_run_result_free(sw_run_result *res);
/* The value of the last "checksum <value>" line of text, fresh, or NULL. */
char *sw_run_find_checksum(const char *text);
/* Parses and judges a stats record by the rules every reader uses
 * (runtime/sgc_statsrec.h; flags: which keys it must have); returns the
 * number of keys, or -1 if it breaks a rule (*why: the line and the rule,
 * fresh; no keys). */
int sw_run_parse_stats(const char *text, unsigned flags, char ***keys, char ***values, char **why);
/* Bounds of the files a run leaves, read before judging them (a bigger one
 * is not what the program was asked to write). */
#define SW_RUN_STATS_MAX SGC_STATSREC_MAX_BYTES
#define SW_RUN_SERIES_MAX (64 * 1024 * 1024)
#define SW_RUN_CACHEGRIND_MAX (16 * 1024 * 1024)
/* SGC_SEED's width: 2^63 - 1 has 19 digits. */
#define SW_RUN_SEED_DIGITS "19"
/* The SGC_* variables of the harness's own environment (never passed to a
 * run), their names comma separated, fresh; NULL if none. */
char *sw_run_dropped_settings(void);

#endif /* SW_RUN_H */
