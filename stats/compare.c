/* compare.c - build/bin/compare A B: B's sweep against A's, cell by cell, with an exit status for CI (docs/STATISTICS.md). */
#include "st_compare.h"
#include "st_util.h"
#include "st_db.h"
#include "st_sim.h"

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
    fprintf(f,
            "usage: compare [--gate ratio|overhead] [--time wall|cpu] [--threshold X%%] [--out DIR] [--seed N]\n"
            "               [--resamples B] [--confidence C] [--sim-threshold X%%] [--quiet] A B\n"
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
            "  --quiet          no summary or warnings on stderr\n"
            "  Exit status (for CI gating): 0 no cell slower beyond the threshold in the gated quantity,\n"
            "  1 at least one cell slower (a regression) or an output cannot be written, 2 bad arguments,\n"
            "  A or B not a readable sweep, or no cell in common.  Method: docs/STATISTICS.md.\n",
            DEFAULT_THRESHOLD * 100, DEFAULT_SIM_THRESHOLD * 100, DEFAULT_SEED, DEFAULT_RESAMPLES, DEFAULT_CONFIDENCE);
}

static int bad(const char *fmt, const char *arg) {
    fputs("compare: ", stderr);
    fprintf(stderr, fmt, arg);
    fputs(" (see compare --help)\n", stderr);
    return 2;
}

/* Writes one report file through a temporary name; 0 or 1 with a message. */
static int write_file(const char *dir, const char *name, int (*fn)(FILE *, const st_comparison *),
                      const st_comparison *c) {
    char path[4096], tmp[4200];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    if (!f) {
        fprintf(stderr, "compare: cannot write %s: %s\n", tmp, strerror(errno));
        return 1;
    }
    int err = fn(f, c);
    if (fclose(f) || err) {
        fprintf(stderr, "compare: cannot write %s: %s\n", tmp, strerror(errno ? errno : EIO));
        remove(tmp);
        return 1;
    }
    if (rename(tmp, path)) {
        fprintf(stderr, "compare: cannot rename %s to %s: %s\n", tmp, path, strerror(errno));
        remove(tmp);
        return 1;
    }
    return 0;
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

int main(int argc, char **argv) {
    unsigned long long seed = DEFAULT_SEED, resamples = DEFAULT_RESAMPLES;
    double confidence = DEFAULT_CONFIDENCE, threshold = DEFAULT_THRESHOLD;
    int quiet = 0;
    st_gate gate = ST_GATE_RATIO;
    st_cmp_time time = ST_CMP_TIME_WALL;
    double sim_threshold = DEFAULT_SIM_THRESHOLD;
    const char *dirs[2] = {NULL, NULL}, *out = NULL;
    int ndirs = 0;
    for (int i = 1; i < argc; i++) {
        const char *v, *why;
        int boot;
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            usage(stdout);
            return 0;
        } else if (strcmp(argv[i], "--quiet") == 0) {
            quiet = 1;
        } else if ((boot = st_opt_boot(argc, argv, &i, &seed, &resamples, &confidence, &why, &v))) {
            if (boot < 0)
                return bad(why, v);
        } else if ((v = st_opt_value(argc, argv, &i, "--threshold"))) {
            if (st_opt_percent(v, 0.0, 1.0, &threshold))
                return bad("--threshold: '%s' is not a percentage from 0 to 100 (exclusive), e.g. 2%%", v);
        } else if ((v = st_opt_value(argc, argv, &i, "--sim-threshold"))) {
            if (st_opt_percent(v, 0.0, 1.0, &sim_threshold))
                return bad("--sim-threshold: '%s' is not a percentage from 0 to 100 (exclusive), e.g. 0.01%%", v);
        } else if ((v = st_opt_value(argc, argv, &i, "--gate"))) {
            if (st_gate_parse(v, &gate))
                return bad("--gate: '%s' is not ratio or overhead", v);
        } else if ((v = st_opt_value(argc, argv, &i, "--time"))) {
            if (st_cmp_time_parse(v, &time))
                return bad("--time: '%s' is not wall or cpu", v);
        } else if ((v = st_opt_value(argc, argv, &i, "--out"))) {
            if (!*v)
                return bad("--out: %sno directory given", "");
            out = v;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            return bad("unknown option '%s'", argv[i]);
        } else if (ndirs == 2) {
            return bad("more than two sweep directories given ('%s')", argv[i]);
        } else {
            dirs[ndirs++] = argv[i];
        }
    }
    if (ndirs < 2)
        return bad("%stwo sweep directories are needed: compare A B", "");

    /* Zeroed first, so one exit path frees whatever was loaded. */
    st_sweep a, b;
    st_sim sa, sb;
    st_inprocs ia, ib;
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    memset(&sa, 0, sizeof sa);
    memset(&sb, 0, sizeof sb);
    memset(&ia, 0, sizeof ia);
    memset(&ib, 0, sizeof ib);
    int rc = load("A", dirs[0], &a, quiet);
    if (!rc)
        rc = load("B", dirs[1], &b, quiet);
    if (rc)
        goto done;

    /* The simulated cells of each (none in a sweep without them). */
    char err[1024];
    const char *which = "A";
    if ((rc = st_sim_load(dirs[0], &sa, err, sizeof err)) == 0 && (which = "B"))
        rc = st_sim_load(dirs[1], &sb, err, sizeof err);
    if (rc) {
        fprintf(stderr, "compare: %s: %s\n", which, err);
        goto done;
    }

    /* The in-process estimates of each (none in a sweep without segment series). */
    st_boot_opts boot = {(size_t)resamples, confidence, seed};
    which = "A";
    if ((rc = st_inproc_load(dirs[0], &boot, &ia, err, sizeof err)) == 0 && (which = "B"))
        rc = st_inproc_load(dirs[1], &boot, &ib, err, sizeof err);
    if (rc) {
        fprintf(stderr, "compare: %s: in-process segment series: %s\n", which, err);
        rc = 2;
        goto done;
    }

    st_compare_opts opts = {.boot = {(size_t)resamples, confidence, seed},
                            .threshold = threshold,
                            .gate = gate,
                            .time = time,
                            .sim_threshold = sim_threshold};
    st_comparison c;
    st_compare(&a, &b, &sa, &sb, &ia, &ib, &opts, &c);

    if (c.different_machines && !quiet)
        fprintf(stderr, "compare: WARNING: A and B come from DIFFERENT MACHINES (host %s / %s, CPU %s / %s)\n",
                st_sweep_meta(&a, "host") ? st_sweep_meta(&a, "host") : "unknown",
                st_sweep_meta(&b, "host") ? st_sweep_meta(&b, "host") : "unknown",
                st_sweep_meta(&a, "cpu_model") ? st_sweep_meta(&a, "cpu_model") : "unknown",
                st_sweep_meta(&b, "cpu_model") ? st_sweep_meta(&b, "cpu_model") : "unknown");

    if (out) {
        if (mkdir(out, 0777) && errno != EEXIST) {
            fprintf(stderr, "compare: --out: cannot create %s: %s\n", out, strerror(errno));
            rc = 1;
        } else {
            rc = write_file(out, "compare.md", st_compare_md, &c) ||
                 write_file(out, "compare.csv", st_compare_csv, &c) ||
                 write_file(out, "compare_sim.csv", st_compare_sim_csv, &c) ||
                 write_file(out, "compare.json", st_compare_json, &c) ||
                 write_file(out, "compare.dat", st_compare_plotdata, &c);
        }
    } else {
        rc = st_compare_md(stdout, &c) || fflush(stdout) ? 1 : 0;
        if (rc)
            fprintf(stderr, "compare: cannot write the report to stdout\n");
    }

    if (!quiet) {
        fprintf(stderr,
                "compare: gate %s, %s time: %zu cells matched, %zu compared (Benjamini-Hochberg family): %zu "
                "slower, %zu faster, %zu same, %zu inconclusive",
                st_gate_name(gate), st_cmp_time_name(time), c.ncells, c.compared, c.slower, c.faster, c.same,
                c.inconclusive);
        if (gate == ST_GATE_OVERHEAD)
            fprintf(stderr, ", %zu ungated (baselines); overhead paired in %zu cells, unpaired in %zu%s", c.ungated,
                    c.paired, c.unpaired, c.unpaired && !c.paired ? " (no pairs: not both sweeps blocked)" : "");
        fprintf(stderr, "; %zu only in A, %zu only in B", c.nonly_a, c.nonly_b);
        if (c.nsim || c.nsim_only_a || c.nsim_only_b)
            fprintf(stderr, "; simulated: %zu cells matched, %zu differ, %zu only in A, %zu only in B", c.nsim,
                    c.sim_differ, c.nsim_only_a, c.nsim_only_b);
        fprintf(stderr, "%s%s\n", out ? "; wrote " : "", out ? out : "");
    }
    if (c.ncells == 0 && c.nsim == 0) {
        fprintf(stderr, "compare: A (%s) and B (%s) have no cell in common: nothing to compare\n", dirs[0], dirs[1]);
        rc = 2;
    } else if (!rc && c.slower) {
        if (!quiet)
            for (size_t i = 0; i < c.ncells; i++)
                if (!strcmp(c.cells[i].verdict, "slower")) {
                    const st_cmp_cell *r = &c.cells[i];
                    if (gate == ST_GATE_RATIO)
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
        rc = 1;
    }
    st_comparison_free(&c);
done:
    st_inprocs_free(&ia);
    st_inprocs_free(&ib);
    st_sim_free(&sa);
    st_sim_free(&sb);
    st_sweep_free(&a);
    st_sweep_free(&b);
    return rc;
}
