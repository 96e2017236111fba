/* analyze.c - build/bin/analyze DIR: the statistics of a sweep (docs/STATISTICS.md). */
#include "st_analysis.h"
#include "st_analyze.h"
#include "st_util.h"
#include "st_db.h"
#include "st_inproc.h"
#include "st_nodes.h"
#include "st_plotdata.h"
#include "st_normdiff.h"
#include "st_replicates.h"
#include "st_peers.h"
#include "st_report.h"
#include "st_sim.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_SEED 20250616ULL
#define DEFAULT_RESAMPLES 10000
#define DEFAULT_CONFIDENCE 0.95
#define DEFAULT_FIT_RESAMPLES 1000
#define DEFAULT_MARGIN 0.02

static void usage(FILE *f) {
    fprintf(
        f,
        "usage: analyze [--seed N] [--resamples B] [--fit-resamples B] [--confidence C] [--margin M%%] [--quiet] DIR\n"
        "       analyze --print-plotdata-columns\n"
        "  Reads DIR/results.db (written by build/bin/sweep) and writes DIR/summary.csv, summary.json,\n"
        "  DIR/metrics.csv, DIR/summary.md and DIR/plotdata/*.dat.\n"
        "  --seed N         bootstrap seed (default %llu)\n"
        "  --resamples B    bootstrap resamples per cell, 1000..1000000 (default %d)\n"
        "  --fit-resamples B  bootstrap resamples of each per-sample cost regression,\n"
        "                   100..1000000 (default %d)\n"
        "  --confidence C   confidence level, 0.5 < C < 1 (default %g)\n"
        "  --margin M%%      equivalence margin of the paired verdicts: \"no effect above\n"
        "                   M%%\" only when the whole interval lies within +-M%% (default %g%%)\n"
        "  --quiet          no progress or warnings on stderr\n"
        "  --print-plotdata-columns   print the plot data files and their columns, one\n"
        "                   line per file: \"<file> <column>:<word|int|num> ...\" (stats/st_plotdata.h)\n"
        "  Exit status: 0 done, 1 nothing to analyse or an output cannot be written (then no output\n"
        "  changes), 2 bad arguments, DIR is not a readable sweep, or an output's path is taken by\n"
        "  something other than a regular file (a directory, a device, a FIFO, a link).\n"
        "  Method: docs/STATISTICS.md.\n",
        DEFAULT_SEED, DEFAULT_RESAMPLES, DEFAULT_FIT_RESAMPLES, DEFAULT_CONFIDENCE, DEFAULT_MARGIN * 100);
}

static int bad(const char *fmt, const char *arg) {
    fputs("analyze: ", stderr);
    fprintf(stderr, fmt, arg);
    fputs(" (see analyze --help)\n", stderr);
    return 2;
}

/* The command line: what to analyse and how. */
typedef struct args {
    unsigned long long seed, resamples, fit_resamples;
    double confidence, margin;
    int quiet;
    const char *dir;
} args;

/* Everything loaded from the sweep directory, freed by free_inputs. */
typedef struct inputs {
    st_sweep sw;
    st_nodes nodes;
    st_sim sim;
    st_inprocs ip;
    int *rep;
    size_t nrep;
} inputs;

/* Parses the command line into a.  Returns -1 to go on, else the exit status
 * (0 after --help or --print-plotdata-columns, 2 for bad arguments, with the
 * message printed). */
static int parse_args(int argc, char **argv, args *a) {
    *a = (args){DEFAULT_SEED, DEFAULT_RESAMPLES, DEFAULT_FIT_RESAMPLES, DEFAULT_CONFIDENCE, DEFAULT_MARGIN, 0, NULL};
    for (int i = 1; i < argc; i++) {
        const char *v, *why;
        int boot;
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            usage(stdout);
            return 0;
        } else if (strcmp(argv[i], "--print-plotdata-columns") == 0) {
            st_plotdata_print(stdout);
            return fflush(stdout) == 0 ? 0 : 1;
        } else if (strcmp(argv[i], "--quiet") == 0) {
            a->quiet = 1;
        } else if ((boot = st_opt_boot(argc, argv, &i, &a->seed, &a->resamples, &a->confidence, &why, &v))) {
            if (boot < 0)
                return bad(why, v);
        } else if ((v = st_opt_value(argc, argv, &i, "--fit-resamples"))) {
            if (st_opt_u64(v, 100, 1000000, &a->fit_resamples))
                return bad("--fit-resamples: '%s' is not an integer from 100 to 1000000", v);
        } else if ((v = st_opt_value(argc, argv, &i, "--margin"))) {
            if (st_opt_percent(v, 0.0, 1.0, &a->margin) || a->margin == 0.0)
                return bad("--margin: '%s' is not a percentage between 0 and 100 (exclusive), e.g. 2%%", v);
        } else if (argv[i][0] == '-' && argv[i][1]) {
            return bad("unknown option '%s'", argv[i]);
        } else if (a->dir) {
            return bad("more than one directory given ('%s')", argv[i]);
        } else {
            a->dir = argv[i];
        }
    }
    if (!a->dir)
        return bad("%sno sweep directory given", "");
    return -1;
}

static void free_inputs(inputs *in) {
    free(in->rep);
    st_inprocs_free(&in->ip);
    st_sim_free(&in->sim);
    st_nodes_free(&in->nodes);
    st_sweep_free(&in->sw);
}

/* Loads the sweep, its nodes, simulated cells, in-process series and
 * replicates into in (zeroed first, so free_inputs frees whatever was
 * loaded).  Returns 0, or the exit status with the message printed (2 bad
 * input, 1 the in-process series unreadable). */
static int load_inputs(const args *a, inputs *in) {
    memset(in, 0, sizeof *in);
    in->nrep = 1;
    char err[1024];
    const char *dir = a->dir;
    int rc = st_sweep_load(dir, &in->sw, err, sizeof err);
    if (rc) {
        fprintf(stderr, "analyze: %s\n", err);
        return rc;
    }
    if (in->sw.warning[0] && !a->quiet)
        fprintf(stderr, "analyze: warning: %s\n", in->sw.warning);
    /* A sweep over several machines: comparisons within a node (st_nodes.h). */
    if ((rc = st_nodes_apply(dir, &in->sw, &in->nodes, err, sizeof err))) {
        fprintf(stderr, "analyze: %s\n", err);
        return rc;
    }
    const char *status = st_sweep_meta(&in->sw, "status");
    if (status && strcmp(status, "complete") && !a->quiet)
        fprintf(stderr,
                "analyze: warning: %s: the sweep is not complete (status %s): analysing the runs recorded so far\n",
                dir, status);
    if ((rc = st_sim_load(dir, &in->sim, err, sizeof err))) {
        fprintf(stderr, "analyze: %s\n", err);
        return rc;
    }
    if (in->sim.flagged && !a->quiet)
        fprintf(stderr,
                "analyze: NOT DETERMINISTIC: %zu simulated cells repeated with counts more than %.2g%% apart "
                "(see summary.md)\n",
                in->sim.flagged, 100 * ST_SIM_TOLERANCE);
    st_boot_opts ipo = {(size_t)a->resamples, a->confidence, a->seed};
    if (st_inproc_load(dir, &ipo, &in->ip, err, sizeof err) != 0) {
        fprintf(stderr, "analyze: %s\n", err);
        return 1;
    }
    /* Replicates (st_replicates.h): read before anything is computed. */
    if ((rc = st_reps_load(dir, &in->sw, &in->rep, &in->nrep, err, sizeof err))) {
        fprintf(stderr, "analyze: %s\n", err);
        return rc;
    }
    return 0;
}

/* The analysis of the loaded sweep, in its order: the cells, the
 * allocation-vs-time differences, the replicates, the families and the
 * verdicts (st_analysis.h).  an refers into in. */
static void compute(const args *a, inputs *in, st_analysis *an) {
    st_analysis_opts ao = {.boot = {(size_t)a->resamples, a->confidence, a->seed},
                           .fit_resamples = (size_t)a->fit_resamples,
                           .progress = !a->quiet,
                           .margin = a->margin,
                           .sim = &in->sim};
    st_analyze(&in->sw, &ao, an);
    st_analyze_normdiff(an, &ao);
    st_reps_apply(an, in->rep, in->nrep, &ao);
    st_analyze_families(an, &ao);
    an->sim = &in->sim;
    an->inproc = &in->ip;
}

/* Every exactness mismatch on stderr (whatever --quiet says: the sampling rule is broken). */
static void print_mismatches(const st_analysis *an, const st_inprocs *ip) {
    for (size_t i = 0; i < an->nmismatches; i++) {
        const st_mismatch *m = &an->mismatches[i];
        fprintf(stderr,
                "analyze: EXACTNESS MISMATCH %s round %lld (run %lld): %.0f sample points, floor(%.0f / %.0f) = %.0f\n",
                m->cell->label, (long long)m->run->round, (long long)m->run->run_id, m->points,
                m->run->key[ST_K_sampled_bytes], m->period, m->expected);
    }
    for (size_t i = 0; i < ip->n; i++)
        if (ip->cells[i].exact_mismatches)
            fprintf(stderr,
                    "analyze: EXACTNESS MISMATCH %s: %zu of %zu segments did not take floor(bytes / period) "
                    "sample points (0 when off)\n",
                    ip->cells[i].label, ip->cells[i].exact_mismatches, ip->cells[i].exact_checked);
}

/* What was written, and the warnings a reader must see, on stderr. */
static void print_summary(const args *a, const inputs *in, const st_analysis *an) {
    const st_sim *sim = &in->sim;
    fprintf(stderr,
            "analyze: %zu cells, %zu runs used, %zu failed; wrote %s/summary.md, summary.csv, summary.json, "
            "metrics.csv%s%s%s, plotdata/\n",
            an->nresults, an->used_runs, an->failed_runs, a->dir, an->fits ? ", regress.csv" : "",
            sim->ncells ? ", sim.csv" : "", in->ip.n ? ", inprocess.csv" : "");
    if (an->nmismatches)
        fprintf(stderr, "analyze: EXACTNESS MISMATCH in %zu runs: the sampling rule is broken (see summary.md)\n",
                an->nmismatches);
    /* The noise floor against the effects asked about (the margin). */
    for (size_t i = 0; i < an->nresults; i++) {
        const st_result *r = &an->results[i];
        if (r->is_baseline && isfinite(r->paired_floor) && r->paired_floor > a->margin)
            fprintf(stderr,
                    "analyze: warning: %s: the A/A floor is %.1f%% (A/A %.4f [%.4f, %.4f], %zu blocks), "
                    "wider than the %g%% margin: effects below it are not resolved here\n",
                    r->cell->label, r->paired_floor * 100, r->paired.est, r->paired.lo, r->paired.hi, r->pairs,
                    a->margin * 100);
    }
    st_peers_print_implausible(stderr, an);
    if (sim->ncells)
        fprintf(stderr, "analyze: %zu simulated cells, %zu runs ok of %zu%s\n", sim->ncells, sim->ok_runs, sim->runs,
                sim->flagged ? ", SOME NOT DETERMINISTIC" : ", deterministic");
    if (in->ip.n)
        fprintf(stderr,
                "analyze: in-process design: %zu cells estimated (inprocess.csv, the last section of "
                "summary.md, plotdata/inprocess.dat)\n",
                in->ip.n);
}

/* Writes the outputs (st_report.h) and says what happened.  Returns the exit
 * status: 0 written, 1 nothing to analyse (written all the same: summary.md
 * lists the cells) or an output cannot be written, 2 an output's path taken. */
static int write_and_tell(const args *a, const inputs *in, const st_analysis *an) {
    char err[1024];
    st_report_opts ro = {a->seed, (size_t)a->resamples, a->confidence, in->nodes.report};
    int rc = st_write_outputs(an, &ro, err, sizeof err);
    if (rc) {
        fprintf(stderr, "analyze: %s\n", err);
    } else if (an->used_runs == 0 && in->sim.ok_runs == 0) {
        if (an->failed_runs)
            fprintf(stderr,
                    "analyze: %s: no measured run succeeded (%zu failed): nothing to analyse; "
                    "summary.md lists the cells\n",
                    a->dir, an->failed_runs);
        else
            fprintf(stderr,
                    "analyze: %s: the sweep has no measured run (round 1 or later) yet: nothing to analyse; "
                    "summary.md lists the cells\n",
                    a->dir);
        rc = 1;
    } else if (!a->quiet) {
        print_summary(a, in, an);
    }
    return rc;
}

/* Arguments, inputs, the analysis, the mismatches, the outputs. */
int main(int argc, char **argv) {
    args a;
    int rc = parse_args(argc, argv, &a);
    if (rc >= 0)
        return rc;
    inputs in;
    if ((rc = load_inputs(&a, &in))) {
        free_inputs(&in);
        return rc;
    }
    st_analysis an;
    compute(&a, &in, &an);
    print_mismatches(&an, &in.ip);
    rc = write_and_tell(&a, &in, &an);
    st_analysis_free(&an);
    free_inputs(&in);
    return rc;
}
