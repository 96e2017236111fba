/* compare.c - build/bin/compare A B: B's sweep against A's, cell by cell, with an exit status for CI (docs/STATISTICS.md). */
#include "st_compare.h"
#include "st_util.h"
#include "st_db.h"
#include "st_sim.h"
#include "../contracts/ct_out.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define DEFAULT_SEED 20250616ULL
#define DEFAULT_RESAMPLES 10000
#define DEFAULT_CONFIDENCE 0.95
#define DEFAULT_THRESHOLD 0.02
/* Above the repeat spread of the simulated counts (docs/STATISTICS.md, "Comparing two sweeps"). */
#define DEFAULT_SIM_THRESHOLD 0.0001

static void usage(FILE *f) {
    fprintf(
        f,
        "usage: compare [--gate ratio|overhead] [--time wall|cpu] [--threshold X%%] [--out DIR] [--seed N]\n"
        "               [--resamples B] [--confidence C] [--sim-threshold X%%] [--allow-different-sizes]\n"
        "               [--quiet] A B\n"
        "  Compares the sweep in directory B against the one in A (each with a results.db written by\n"
        "  build/bin/sweep), cell by cell (cells matched by label): B's median run time (wall, or CPU\n"
        "  with --time cpu) over A's with a BCa interval, the change in overhead, a Mann-Whitney\n"
        "  p-value adjusted by Benjamini-Hochberg, and a verdict: slower, faster, same or inconclusive.\n"
        "  Simulated cells (sweep --backends sim) in both sweeps are compared exactly: instructions,\n"
        "  estimated cycles and their overheads, a difference counting only beyond the spread of each\n"
        "  side's repeated runs.\n"
        "  Writes a Markdown report on stdout, or with --out DIR: DIR/compare.md, compare.csv,\n"
        "  compare_sim.csv, compare.json and compare.dat (the forest plot's data).\n"
        "  --gate G         the quantity the verdicts and the exit status are on: ratio (B/A of the\n"
        "                   median wall times; default), or overhead (B's overhead minus A's: each\n"
        "                   sweep's baseline divided out, so a machine busier during B than during A\n"
        "                   does not make every cell slower; baselines are then not gated).  When both\n"
        "                   sweeps are blocked, each sweep's overhead is paired: the median over blocks\n"
        "                   of the cell's run over its adjacent baseline run (both in-process: of its\n"
        "                   in-process blocks' CPU ratios); otherwise unpaired\n"
        "  --time T         the run time compared: wall (default) or cpu (user + system CPU time of\n"
        "                   the run's process: on a shared machine whose load moves wall times, it\n"
        "                   moves much less; it does not see time the program waits)\n"
        "  --threshold X%%   a change counts only when its whole interval lies beyond +-X%% (default %g%%;\n"
        "                   overhead gate: X%% of the baseline's time)\n"
        "  --sim-threshold X%%\n"
        "                   simulated cells: a difference counts only when its bounds from the\n"
        "                   repeated runs lie beyond +-X%% of A's value (default %g%%, above the\n"
        "                   spread of repeated simulated runs; 0: any difference)\n"
        "  --out DIR        write the report files into DIR (created if missing)\n"
        "  --seed N         bootstrap seed (default %llu)\n"
        "  --resamples B    bootstrap resamples per cell, 1000..1000000 (default %d)\n"
        "  --confidence C   confidence level, 0.5 < C < 1 (default %g); 1 - C is also the false\n"
        "                   discovery rate of the verdicts\n"
        "  --allow-different-sizes\n"
        "                   compare cells that ran at different workload sizes in A and B (refused\n"
        "                   otherwise, exit 2: they measured different work; rerun B with\n"
        "                   build/bin/sweep --sizes-from A to give it A's sizes)\n"
        "  --quiet          no summary or warnings on stderr\n"
        "  Exit status (for CI gating): 0 no cell slower beyond the threshold in the gated quantity,\n"
        "  and every cell of A ran and succeeded in B; 1 at least one cell slower (a regression) or\n"
        "  an output cannot be written; 2 bad arguments, A or B not a readable sweep, cells of different sizes, no cell in\n"
        "  common, or an --out path taken by something other than a regular file; 3 a cell FAILED\n"
        "  in B (runs that succeeded in A failed in B, or every run failed) or is MISSING from B\n"
        "  (not in B's plan, or never run), whatever else.  Method: docs/STATISTICS.md.\n",
        DEFAULT_THRESHOLD * 100, DEFAULT_SIM_THRESHOLD * 100, DEFAULT_SEED, DEFAULT_RESAMPLES, DEFAULT_CONFIDENCE);
}

static int bad(const char *fmt, const char *arg) {
    fputs("compare: ", stderr);
    fprintf(stderr, fmt, arg);
    fputs(" (see compare --help)\n", stderr);
    return 2;
}

/* The report files of --out, each through a temporary name, all renamed at
 * the end or none (contracts/ct_out.h).  Returns the exit status: 0, 1 (cannot write)
 * or 2 (a path taken by something other than a regular file). */
static int write_report(const char *dir, const st_comparison *c) {
    static const struct {
        const char *name;
        int (*fn)(FILE *, const st_comparison *);
    } files[] = {{"compare.md", st_compare_md},
                 {"compare.csv", st_compare_csv},
                 {"compare_sim.csv", st_compare_sim_csv},
                 {"compare.json", st_compare_json},
                 {"compare.dat", st_compare_plotdata}};
    ct_outs set = {0};
    char path[4200], err[4400];
    int rc = 0;
    for (size_t i = 0; i < sizeof files / sizeof files[0] && !rc; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, files[i].name);
        FILE *f = ct_outs_open(&set, path, &rc, err, sizeof err);
        if (f && files[i].fn(f, c) != 0) {
            snprintf(err, sizeof err, "cannot write %s: %s", path, strerror(errno ? errno : EIO));
            rc = 1;
        }
    }
    if (rc)
        ct_outs_abort(&set);
    else
        rc = ct_outs_commit(&set, err, sizeof err);
    if (rc)
        fprintf(stderr, "compare: --out %s: %s; the report was not written\n", dir, err);
    return rc;
}

static int load(const char *which, const char *dir, st_sweep *sw, int quiet) {
    char err[1024];
    int rc = st_sweep_load(dir, sw, err, sizeof err);
    if (rc) {
        fprintf(stderr, "compare: %s: %s\n", which, err);
        return rc;
    }
    if (sw->warning[0] && !quiet)
        fprintf(stderr, "compare: warning: %s: %s\n", which, sw->warning);
    const char *status = st_sweep_meta(sw, "status");
    if (status && strcmp(status, "complete") && !quiet)
        fprintf(stderr, "compare: warning: %s (%s) is not complete (status %s): comparing the runs recorded so far\n",
                which, dir, status);
    return 0;
}

/* Returns 2 with a message when a cell of A and the cell of B with its label
 * ran at different workload sizes (each sweep calibrates its own sizes, so two
 * sweeps on machines of different speed, or at different loads, measure
 * different work); 0 when every matched cell has one size. */
static int same_sizes(const st_sweep *a, const st_sweep *b, const char *const dirs[2]) {
    size_t n = 0;
    char first[512] = "";
    for (size_t i = 0; i < a->ncells; i++)
        for (size_t j = 0; j < b->ncells; j++) {
            const st_cell *x = &a->cells[i], *y = &b->cells[j];
            if (strcmp(x->label, y->label) || x->size == y->size)
                continue;
            if (!n++)
                snprintf(first, sizeof first, "%s: size %lld in A, %lld in B", x->label, (long long)x->size,
                         (long long)y->size);
        }
    if (!n)
        return 0;
    fprintf(stderr,
            "compare: %zu cells ran at different workload sizes in A and B (first %s): they measured different "
            "work, so their times do not compare. Rerun B with A's sizes (build/bin/sweep --sizes-from %s ...), "
            "or pass --allow-different-sizes to compare them anyway (each such cell's note says so)\n",
            n, first, dirs[0]);
    return 2;
}

/* The command line: what to compare and how. */
typedef struct args {
    unsigned long long seed, resamples;
    double confidence, threshold, sim_threshold;
    int quiet, allow_sizes;
    st_gate gate;
    st_cmp_time time;
    const char *dirs[2], *out;
    int ndirs;
} args;

/* The two sweeps and their simulated cells and in-process estimates. */
typedef struct inputs {
    st_sweep a, b;
    st_sim sa, sb;
    st_inprocs ia, ib;
} inputs;

/* Parses the command line into x.  Returns -1 to go on, else the exit status
 * (0 after --help, 2 for bad arguments, with the message printed). */
static int parse_args(int argc, char **argv, args *x) {
    *x = (args){.seed = DEFAULT_SEED,
                .resamples = DEFAULT_RESAMPLES,
                .confidence = DEFAULT_CONFIDENCE,
                .threshold = DEFAULT_THRESHOLD,
                .sim_threshold = DEFAULT_SIM_THRESHOLD,
                .gate = ST_GATE_RATIO,
                .time = ST_CMP_TIME_WALL};
    for (int i = 1; i < argc; i++) {
        const char *v, *why;
        int boot;
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            usage(stdout);
            return 0;
        } else if (strcmp(argv[i], "--quiet") == 0) {
            x->quiet = 1;
        } else if (strcmp(argv[i], "--allow-different-sizes") == 0) {
            x->allow_sizes = 1;
        } else if ((boot = st_opt_boot(argc, argv, &i, &x->seed, &x->resamples, &x->confidence, &why, &v))) {
            if (boot < 0)
                return bad(why, v);
        } else if ((v = st_opt_value(argc, argv, &i, "--threshold"))) {
            if (st_opt_percent(v, 0.0, 1.0, &x->threshold))
                return bad("--threshold: '%s' is not a percentage from 0 to 100 (exclusive), e.g. 2%%", v);
        } else if ((v = st_opt_value(argc, argv, &i, "--sim-threshold"))) {
            if (st_opt_percent(v, 0.0, 1.0, &x->sim_threshold))
                return bad("--sim-threshold: '%s' is not a percentage from 0 to 100 (exclusive), e.g. 0.01%%", v);
        } else if ((v = st_opt_value(argc, argv, &i, "--gate"))) {
            if (st_gate_parse(v, &x->gate))
                return bad("--gate: '%s' is not ratio or overhead", v);
        } else if ((v = st_opt_value(argc, argv, &i, "--time"))) {
            if (st_cmp_time_parse(v, &x->time))
                return bad("--time: '%s' is not wall or cpu", v);
        } else if ((v = st_opt_value(argc, argv, &i, "--out"))) {
            if (!*v)
                return bad("--out: %sno directory given", "");
            x->out = v;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            return bad("unknown option '%s'", argv[i]);
        } else if (x->ndirs == 2) {
            return bad("more than two sweep directories given ('%s')", argv[i]);
        } else {
            x->dirs[x->ndirs++] = argv[i];
        }
    }
    if (x->ndirs < 2)
        return bad("%stwo sweep directories are needed: compare A B", "");
    return -1;
}

static void free_inputs(inputs *in) {
    st_inprocs_free(&in->ia);
    st_inprocs_free(&in->ib);
    st_sim_free(&in->sa);
    st_sim_free(&in->sb);
    st_sweep_free(&in->a);
    st_sweep_free(&in->b);
}

/* Loads A and B with their simulated cells and in-process estimates into in
 * (zeroed first, so free_inputs frees whatever was loaded); refuses cells of
 * different sizes unless --allow-different-sizes.  Returns 0, or the exit
 * status with the message printed. */
static int load_inputs(const args *x, inputs *in) {
    memset(in, 0, sizeof *in);
    const char *const *dirs = x->dirs;
    int rc = load("A", dirs[0], &in->a, x->quiet);
    if (!rc)
        rc = load("B", dirs[1], &in->b, x->quiet);
    if (rc)
        return rc;
    /* Cells of one label measured at different sizes compare different work. */
    if (!x->allow_sizes && (rc = same_sizes(&in->a, &in->b, dirs)))
        return rc;
    /* The simulated cells of each (none in a sweep without them). */
    char err[1024];
    const char *which = "A";
    if ((rc = st_sim_load(dirs[0], &in->sa, err, sizeof err)) == 0 && (which = "B"))
        rc = st_sim_load(dirs[1], &in->sb, err, sizeof err);
    if (rc) {
        fprintf(stderr, "compare: %s: %s\n", which, err);
        return rc;
    }
    /* The in-process estimates of each (none in a sweep without segment series). */
    st_boot_opts boot = {(size_t)x->resamples, x->confidence, x->seed};
    which = "A";
    if ((rc = st_inproc_load(dirs[0], &boot, &in->ia, err, sizeof err)) == 0 && (which = "B"))
        rc = st_inproc_load(dirs[1], &boot, &in->ib, err, sizeof err);
    if (rc) {
        fprintf(stderr, "compare: %s: in-process segment series: %s\n", which, err);
        return 2;
    }
    return 0;
}

static const char *meta_or_unknown(const st_sweep *sw, const char *key) {
    return st_sweep_meta(sw, key) ? st_sweep_meta(sw, key) : "unknown";
}

/* The report into --out's directory, or on stdout.  Returns 0, 1 (cannot
 * write) or 2 (--out names something other than a directory). */
static int write_outputs(const args *x, const st_comparison *c) {
    struct stat os;
    int rc;
    if (x->out) {
        if (mkdir(x->out, 0777) && errno != EEXIST) {
            fprintf(stderr, "compare: --out: cannot create %s: %s; the report was not written\n", x->out,
                    strerror(errno));
            rc = 1;
        } else if (stat(x->out, &os) != 0 || !S_ISDIR(os.st_mode)) {
            fprintf(stderr, "compare: --out %s: not a directory (it names a file); give a directory for the report\n",
                    x->out);
            rc = 2;
        } else {
            rc = write_report(x->out, c);
        }
    } else {
        rc = st_compare_md(stdout, c) || fflush(stdout) ? 1 : 0;
        if (rc)
            fprintf(stderr, "compare: cannot write the report to stdout\n");
    }
    return rc;
}

/* The counts on stderr (unless --quiet); rc is write_outputs's status. */
static void print_summary(const args *x, const st_comparison *c, int rc) {
    if (!x->quiet) {
        fprintf(stderr,
                "compare: gate %s, %s time: %zu cells matched, %zu compared (Benjamini-Hochberg family): %zu "
                "slower, %zu faster, %zu same, %zu inconclusive",
                st_gate_name(x->gate), st_cmp_time_name(x->time), c->ncells, c->compared, c->slower, c->faster, c->same,
                c->inconclusive);
        if (x->gate == ST_GATE_OVERHEAD)
            fprintf(stderr, ", %zu ungated (baselines); overhead paired in %zu cells, unpaired in %zu%s", c->ungated,
                    c->paired, c->unpaired, c->unpaired && !c->paired ? " (no pairs: not both sweeps blocked)" : "");
        fprintf(stderr, "; %zu only in A, %zu only in B", c->nonly_a, c->nonly_b);
        if (c->failed || c->missing)
            fprintf(stderr, "; %zu FAILED in B, %zu MISSING from B", c->failed, c->missing);
        if (c->nsim || c->nsim_only_a || c->nsim_only_b)
            fprintf(stderr, "; simulated: %zu cells matched, %zu differ, %zu only in A, %zu only in B", c->nsim,
                    c->sim_differ, c->nsim_only_a, c->nsim_only_b);
        if (x->out && !rc)
            fprintf(stderr, "; wrote %s/compare.md, compare.csv, compare_sim.csv, compare.json, compare.dat", x->out);
        fputc('\n', stderr);
    }
}

/* The exit status from the comparison, given write_outputs's rc (docs/STATISTICS.md, "Comparing
 * two sweeps"): 2 no cell in common, 3 a cell failed or missing in B, 1 a cell slower. */
static int gate_status(const args *x, const st_comparison *c, int rc) {
    if (c->ncells == 0 && c->nsim == 0) {
        fprintf(stderr, "compare: A (%s) and B (%s) have no cell in common: nothing to compare\n", x->dirs[0],
                x->dirs[1]);
        rc = 2;
    } else if (rc != 2 && (c->failed || c->missing)) {
        /* Runs that succeeded in A and failed, or never ran, in B: the change may crash the program. */
        if (!x->quiet) {
            for (size_t i = 0; i < c->ncells; i++)
                if (!strcmp(c->cells[i].verdict, "failed") || !strcmp(c->cells[i].verdict, "missing"))
                    fprintf(stderr, "compare: %s IN B %s: %s\n",
                            !strcmp(c->cells[i].verdict, "failed") ? "FAILED" : "MISSING", c->cells[i].label,
                            c->cells[i].failure);
            for (size_t i = 0; i < c->nonly_a; i++)
                fprintf(stderr, "compare: MISSING IN B %s: the cell is in A, B has no such cell\n",
                        c->only_a[i]->label);
            fprintf(stderr, "compare: %zu cells failed in B, %zu missing from B: the gate fails (exit 3)\n", c->failed,
                    c->missing);
        }
        rc = 3;
    }
    if (rc != 2 && c->slower) {
        if (!x->quiet)
            for (size_t i = 0; i < c->ncells; i++)
                if (!strcmp(c->cells[i].verdict, "slower")) {
                    const st_cmp_cell *r = &c->cells[i];
                    if (x->gate == ST_GATE_RATIO)
                        fprintf(stderr, "compare: REGRESSION %s: B/A %.4f [%.4f, %.4f], adjusted p %.3g\n", r->label,
                                r->ratio.est, r->ratio.lo, r->ratio.hi, r->p_adjusted);
                    else
                        fprintf(stderr,
                                "compare: REGRESSION %s: overhead change %+.4f [%+.4f, %+.4f] (%s overhead %.4f in "
                                "A, %.4f in B), adjusted p %.3g\n",
                                r->label, r->doverhead.est, r->doverhead.lo, r->doverhead.hi,
                                r->paired == 2 ? "in-process"
                                : r->paired    ? "paired"
                                               : "unpaired",
                                r->a_overhead, r->b_overhead, r->p_adjusted);
                }
        if (!rc)
            rc = 1;
    }
    return rc;
}

/* Arguments, inputs, the comparison, the report, the gate. */
int main(int argc, char **argv) {
    args x;
    int rc = parse_args(argc, argv, &x);
    if (rc >= 0)
        return rc;
    inputs in;
    if ((rc = load_inputs(&x, &in))) {
        free_inputs(&in);
        return rc;
    }
    st_compare_opts opts = {.boot = {(size_t)x.resamples, x.confidence, x.seed},
                            .threshold = x.threshold,
                            .gate = x.gate,
                            .time = x.time,
                            .sim_threshold = x.sim_threshold};
    st_comparison c;
    st_compare(&in.a, &in.b, &in.sa, &in.sb, &in.ia, &in.ib, &opts, &c);
    if (c.different_machines && !x.quiet)
        fprintf(stderr, "compare: WARNING: A and B come from DIFFERENT MACHINES (host %s / %s, CPU %s / %s)\n",
                meta_or_unknown(&in.a, "host"), meta_or_unknown(&in.b, "host"), meta_or_unknown(&in.a, "cpu_model"),
                meta_or_unknown(&in.b, "cpu_model"));
    rc = write_outputs(&x, &c);
    print_summary(&x, &c, rc);
    rc = gate_status(&x, &c, rc);
    st_comparison_free(&c);
    free_inputs(&in);
    return rc;
}
