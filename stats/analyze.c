/* analyze.c - build/bin/analyze DIR: the statistics of a sweep (docs/STATISTICS.md). */
#include "st_analysis.h"
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

int main(int argc, char **argv) {
    unsigned long long seed = DEFAULT_SEED;
    unsigned long long resamples = DEFAULT_RESAMPLES;
    unsigned long long fit_resamples = DEFAULT_FIT_RESAMPLES;
    double confidence = DEFAULT_CONFIDENCE;
    double margin = DEFAULT_MARGIN;
    int quiet = 0;
    const char *dir = NULL;
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
            quiet = 1;
        } else if ((boot = st_opt_boot(argc, argv, &i, &seed, &resamples, &confidence, &why, &v))) {
            if (boot < 0)
                return bad(why, v);
        } else if ((v = st_opt_value(argc, argv, &i, "--fit-resamples"))) {
            if (st_opt_u64(v, 100, 1000000, &fit_resamples))
                return bad("--fit-resamples: '%s' is not an integer from 100 to 1000000", v);
        } else if ((v = st_opt_value(argc, argv, &i, "--margin"))) {
            if (st_opt_percent(v, 0.0, 1.0, &margin) || margin == 0.0)
                return bad("--margin: '%s' is not a percentage between 0 and 100 (exclusive), e.g. 2%%", v);
        } else if (argv[i][0] == '-' && argv[i][1]) {
            return bad("unknown option '%s'", argv[i]);
        } else if (dir) {
            return bad("more than one directory given ('%s')", argv[i]);
        } else {
            dir = argv[i];
        }
    }
    if (!dir)
        return bad("%sno sweep directory given", "");

    st_sweep sw;
    char err[1024];
    int rc = st_sweep_load(dir, &sw, err, sizeof err);
    if (rc) {
        fprintf(stderr, "analyze: %s\n", err);
        st_sweep_free(&sw);
        return rc;
    }
    if (sw.warning[0] && !quiet)
        fprintf(stderr, "analyze: warning: %s\n", sw.warning);

    /* A sweep over several machines: comparisons within a node (st_nodes.h). */
    st_nodes nodes;
    if ((rc = st_nodes_apply(dir, &sw, &nodes, err, sizeof err))) {
        fprintf(stderr, "analyze: %s\n", err);
        st_sweep_free(&sw);
        return rc;
    }

    const char *status = st_sweep_meta(&sw, "status");
    if (status && strcmp(status, "complete") && !quiet)
        fprintf(stderr,
                "analyze: warning: %s: the sweep is not complete (status %s): analysing the runs recorded so far\n",
                dir, status);

    st_sim sim;
    rc = st_sim_load(dir, &sim, err, sizeof err);
    if (rc) {
        fprintf(stderr, "analyze: %s\n", err);
        st_sweep_free(&sw);
        return rc;
    }
    if (sim.flagged && !quiet)
        fprintf(stderr,
                "analyze: NOT DETERMINISTIC: %zu simulated cells repeated with counts more than %.2g%% apart "
                "(see summary.md)\n",
                sim.flagged, 100 * ST_SIM_TOLERANCE);

    st_analysis_opts ao = {.boot = {(size_t)resamples, confidence, seed},
                           .fit_resamples = (size_t)fit_resamples,
                           .progress = !quiet,
                           .margin = margin,
                           .sim = &sim};
    st_inprocs ip;
    st_boot_opts ipo = {(size_t)resamples, confidence, seed};
    if (st_inproc_load(dir, &ipo, &ip, err, sizeof err) != 0) {
        fprintf(stderr, "analyze: %s\n", err);
        st_sim_free(&sim);
        st_sweep_free(&sw);
        return 1;
    }
    /* Replicates (st_replicates.h): read before anything is computed. */
    int *rep = NULL;
    size_t nrep = 1;
    if ((rc = st_reps_load(dir, &sw, &rep, &nrep, err, sizeof err))) {
        fprintf(stderr, "analyze: %s\n", err);
        st_inprocs_free(&ip);
        st_sim_free(&sim);
        st_nodes_free(&nodes);
        st_sweep_free(&sw);
        return rc;
    }
    st_analysis an;
    st_analyze(&sw, &ao, &an);
    st_analyze_normdiff(&an, &ao);
    st_reps_apply(&an, rep, nrep, &ao);
    st_analyze_families(&an, &ao);
    free(rep);
    an.sim = &sim;
    an.inproc = &ip;

    for (size_t i = 0; i < an.nmismatches; i++) {
        const st_mismatch *m = &an.mismatches[i];
        fprintf(stderr,
                "analyze: EXACTNESS MISMATCH %s round %lld (run %lld): %.0f sample points, floor(%.0f / %.0f) = %.0f\n",
                m->cell->label, (long long)m->run->round, (long long)m->run->run_id, m->points,
                m->run->key[ST_K_sampled_bytes], m->period, m->expected);
    }

    for (size_t i = 0; i < ip.n; i++)
        if (ip.cells[i].exact_mismatches)
            fprintf(stderr,
                    "analyze: EXACTNESS MISMATCH %s: %zu of %zu segments did not take floor(bytes / period) "
                    "sample points (0 when off)\n",
                    ip.cells[i].label, ip.cells[i].exact_mismatches, ip.cells[i].exact_checked);

    st_report_opts ro = {seed, (size_t)resamples, confidence, nodes.report};
    rc = st_write_outputs(&an, &ro, err, sizeof err);
    if (rc) {
        fprintf(stderr, "analyze: %s\n", err);
    } else if (an.used_runs == 0 && sim.ok_runs == 0) {
        if (an.failed_runs)
            fprintf(stderr,
                    "analyze: %s: no measured run succeeded (%zu failed): nothing to analyse; "
                    "summary.md lists the cells\n",
                    dir, an.failed_runs);
        else
            fprintf(stderr,
                    "analyze: %s: the sweep has no measured run (round 1 or later) yet: nothing to analyse; "
                    "summary.md lists the cells\n",
                    dir);
        rc = 1;
    } else if (!quiet) {
        fprintf(stderr,
                "analyze: %zu cells, %zu runs used, %zu failed; wrote %s/summary.md, summary.csv, summary.json, "
                "metrics.csv%s%s%s, plotdata/\n",
                an.nresults, an.used_runs, an.failed_runs, dir, an.fits ? ", regress.csv" : "",
                sim.ncells ? ", sim.csv" : "", ip.n ? ", inprocess.csv" : "");
        if (an.nmismatches)
            fprintf(stderr, "analyze: EXACTNESS MISMATCH in %zu runs: the sampling rule is broken (see summary.md)\n",
                    an.nmismatches);
        /* The noise floor against the effects asked about (the margin). */
        for (size_t i = 0; i < an.nresults; i++) {
            const st_result *r = &an.results[i];
            if (r->is_baseline && isfinite(r->paired_floor) && r->paired_floor > margin)
                fprintf(stderr,
                        "analyze: warning: %s: the A/A floor is %.1f%% (A/A %.4f [%.4f, %.4f], %zu blocks), "
                        "wider than the %g%% margin: effects below it are not resolved here\n",
                        r->cell->label, r->paired_floor * 100, r->paired.est, r->paired.lo, r->paired.hi, r->pairs,
                        margin * 100);
        }
        st_peers_print_implausible(stderr, &an);
        if (sim.ncells)
            fprintf(stderr, "analyze: %zu simulated cells, %zu runs ok of %zu%s\n", sim.ncells, sim.ok_runs, sim.runs,
                    sim.flagged ? ", SOME NOT DETERMINISTIC" : ", deterministic");
        if (ip.n)
            fprintf(stderr,
                    "analyze: in-process design: %zu cells estimated (inprocess.csv, the last section of "
                    "summary.md, plotdata/inprocess.dat)\n",
                    ip.n);
    }
    st_analysis_free(&an);
    st_nodes_free(&nodes);
    st_inprocs_free(&ip);
    st_sim_free(&sim);
    st_sweep_free(&sw);
    return rc;
}
