/* sw_calib.h - calibration: each calibration unit's --size found (or
 * fixed, or taken from another sweep with --sizes-from), its reference
 * checksum from one --check run, and the simulated part's native rate.
 *
 * Invariants:
 *  - Every probe is a plain run (sw_run_probe: the in-process design's A/A
 *    run in that design) and is stored (calibration_probes) with its CPU
 *    time, the measure that decides: CPU time, not wall time, so that sizes
 *    do not shrink when other work competes for the machine.
 *  - The size found is the one whose baseline CPU time is closest to the
 *    unit's target (better_size: sizes on one side of the target never swap
 *    on noise); a fixed size (--size, --sim-size, a command without {size})
 *    is timed by one probe; --sizes-from's size is taken as fixed.
 *  - Before every probe, --check and native-rate run the files the runs
 *    depend on are checked unchanged (ctx->unchanged); a stop (signal or a
 *    changed file) leaves the unit unstored.
 *  - A unit's outcome (size, seconds, checksum, method, probes, ok or the
 *    failure) is stored in calibration once, and printed.
 */
#ifndef SW_CALIB_H
#define SW_CALIB_H

#include <signal.h>
#include <stdint.h>
#include "sw_db.h"
#include "sw_opts.h"
#include "sw_run.h"

/* One calibration unit: a workload with its extra arguments (the depth
 * cells of deepstack are calibrated per depth).  Its key in the calibration
 * tables is the workload name, followed by the arguments if there are any
 * ("deepstack --depth 16"). */
typedef struct sw_calib {
    const char *workload;    /* the workload (owned by the cells) */
    const char *args;        /* its extra arguments, "" for none (owned by the cells) */
    char *key;               /* calibration key */
    int sim;                 /* the simulated cells' unit: probes run under valgrind */
    const sw_runner *runner; /* how its probes run */
    double target;           /* its calibration target, CPU seconds */
    double fixed_cost;       /* calibrate=work (sw_cmd.h): the command's fixed cost, s; -1 if not estimated */
    uint64_t size;           /* chosen --size */
    double seconds;          /* baseline wall time at that size */
    char *checksum;          /* reference checksum from the --check run */
    int ok;                  /* usable */
    char *failure;           /* why not */
} sw_calib;

/* What calibration needs of the sweep. */
typedef struct sw_calib_ctx {
    const sw_opts *o;
    sw_db *db;
    const sw_runner *runner;     /* native runs (--check, native rates) */
    volatile sig_atomic_t *stop; /* set when the sweep stops */
    /* 0 if a file the runs depend on changed (the sweep stops); what names the run. */
    int (*unchanged)(void *sweep, const char *workload, const char *what);
    void *sweep;
    char **workloads; /* the plan's */
    int n_workloads;
    char **from_key; /* --sizes-from: the units' keys and their sizes there */
    uint64_t *from_size;
    int n_from;
    int64_t *probe_overhead[2]; /* harness time around each probe, native [0] and simulated [1] */
    int n_probe_overhead[2];
} sw_calib_ctx;

/* --sizes-from DIR: every calibration unit of the plan must have an ok
 * calibration in DIR, read now (before anything is created) into
 * from_key and from_size; a unit without one is refused (exit 2). */
void sw_calib_load_sizes_from(sw_calib_ctx *s);
/* Calibrates one unit (or times its fixed size), then runs --check once at
 * that size for the reference checksum; stores the outcome. */
void sw_calib_unit(sw_calib_ctx *s, sw_calib *c);
/* The simulated part's native rate of unit c: the median native CPU time
 * of three baseline runs at the simulated size; stored once. */
void sw_calib_native_rate(sw_calib_ctx *s, const sw_calib *c);

#endif /* SW_CALIB_H */
