/* peers_report.c - build/bin/peers-report DIR: the peers table and figure
 * data of a sweep whose workloads run on several systems (st_peers.h;
 * docs/WORKLOADS.md, "Measuring your own runtime"). */
#include "st_analysis.h"
#include "st_analyze.h"
#include "st_costfit.h"
#include "st_db.h"
#include "st_inproc.h"
#include "st_peers.h"
#include "st_sim.h"
#include "st_report.h"
#include "st_util.h"
#include "../contracts/ct_out.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The defaults of analyze, so both report the same estimates. */
#define PEERS_SEED 20250616ULL
#define PEERS_RESAMPLES 10000
#define PEERS_FIT_RESAMPLES 1000
#define PEERS_CONFIDENCE 0.95
#define PEERS_MARGIN 0.02

static int usage(FILE *f, int rc) {
    fprintf(f, "usage: peers-report [--quiet] [--inprocess DIR2] DIR\n"
               "  Reads DIR/results.db (a sweep of command workloads on several systems, e.g. make peers)\n"
               "  and writes DIR/peers.md (the table: per system, the per-sample cost from the in-process\n"
               "  design with its interval, the instructions per sample from the simulated part with their\n"
               "  repeat spread, the process-level per-sample cost, the overhead at 32 KiB, 512 KiB and\n"
               "  4 MiB (\"not measured\" when DIR ran no blocked-design runs: the in-process design or\n"
               "  the simulated part alone), and where each system's sample check lives), DIR/peers.csv and\n"
               "  DIR/plotdata/peers.dat (figure 8: sh plots/figures.sh DIR draws it; only for a sweep\n"
               "  with a system other than freecheck).  The in-process estimates come from DIR's own\n"
               "  segment series, or with --inprocess DIR2 from the sweep DIR2 (the in-process design, of\n"
               "  the same workloads); the simulated part from DIR's simulated cells (a sweep of the\n"
               "  simulated part alone, sweep --backends sim, gives rows of it alone).  The estimates are\n"
               "  analyze's, with its default seed, resamples and 95%% confidence; a system that keeps no\n"
               "  count of its samples gets no per-sample cost, and the table says so.\n"
               "  Exit status: 0 done, 1 an output cannot be written (then none changes) or nothing to\n"
               "  report, 2 bad arguments, DIR (or DIR2) is not a readable sweep, or an output's path is\n"
               "  taken by something other than a regular file.\n");
    return rc;
}

static char *join(const char *dir, const char *name) {
    char *p = ct_xmalloc(strlen(dir) + strlen(name) + 2);
    sprintf(p, "%s/%s", dir, name);
    return p;
}

/* The command line. */
typedef struct args {
    const char *dir, *inproc_dir; /* DIR; DIR2 (NULL: DIR's own series) */
    int quiet;
} args;

/* Parses the command line into a.  Returns -1 to go on, else the exit status
 * (0 after --help, 2 for bad arguments, with the message printed). */
static int parse_args(int argc, char **argv, args *a) {
    *a = (args){NULL, NULL, 0};
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
            return usage(stdout, 0);
        else if (!strcmp(argv[i], "--quiet"))
            a->quiet = 1;
        else if (!strcmp(argv[i], "--inprocess") && i + 1 < argc && !a->inproc_dir)
            a->inproc_dir = argv[++i];
        else if (argv[i][0] == '-' || a->dir) {
            fprintf(stderr, "peers-report: unexpected argument '%s' (see peers-report --help)\n", argv[i]);
            return 2;
        } else
            a->dir = argv[i];
    }
    if (!a->dir) {
        fprintf(stderr, "peers-report: no sweep directory given (see peers-report --help)\n");
        return 2;
    }
    return -1;
}

/* Everything loaded: the sweep, its simulated cells, the in-process
 * estimates; freed by free_inputs once load_inputs succeeded. */
typedef struct inputs {
    st_sweep sw;
    st_sim sim;
    st_inprocs ip;
} inputs;

static void free_inputs(inputs *in) {
    st_inprocs_free(&in->ip);
    st_sim_free(&in->sim);
    st_sweep_free(&in->sw);
}

/* Loads DIR's sweep and simulated cells and the in-process estimates (DIR2's,
 * a sweep of its own, or DIR's).  0, or the exit status with the message
 * printed and whatever was loaded freed. */
static int load_inputs(const args *a, inputs *in) {
    char err[1024];
    int rc = st_sweep_load(a->dir, &in->sw, err, sizeof err);
    if (rc) {
        fprintf(stderr, "peers-report: %s\n", err);
        st_sweep_free(&in->sw);
        return rc;
    }
    if ((rc = st_sim_load(a->dir, &in->sim, err, sizeof err)) != 0) {
        fprintf(stderr, "peers-report: %s\n", err);
        st_sweep_free(&in->sw);
        return rc;
    }
    st_boot_opts ipo = {PEERS_RESAMPLES, PEERS_CONFIDENCE, PEERS_SEED};
    if (a->inproc_dir) {
        char probe[4096];
        snprintf(probe, sizeof probe, "%s/results.db", a->inproc_dir);
        if (access(probe, R_OK) != 0) {
            fprintf(stderr, "peers-report: --inprocess %s: no readable results.db there (%s)\n", a->inproc_dir,
                    strerror(errno));
            st_sim_free(&in->sim);
            st_sweep_free(&in->sw);
            return 2;
        }
    }
    if (st_inproc_load(a->inproc_dir ? a->inproc_dir : a->dir, &ipo, &in->ip, err, sizeof err) != 0) {
        fprintf(stderr, "peers-report: %s\n", err);
        st_sim_free(&in->sim);
        st_sweep_free(&in->sw);
        return 2;
    }
    if (a->inproc_dir && !in->ip.n) {
        fprintf(stderr, "peers-report: --inprocess %s: that sweep has no segment series (not the in-process design)\n",
                a->inproc_dir);
        free_inputs(in);
        return 2;
    }
    return 0;
}

/* analyze's analysis of the sweep (its defaults), then the peers' rows. */
static void compute(const args *a, inputs *in, st_analysis *an, st_peers *p) {
    st_analysis_opts ao = {.boot = {PEERS_RESAMPLES, PEERS_CONFIDENCE, PEERS_SEED},
                           .fit_resamples = PEERS_FIT_RESAMPLES,
                           .progress = !a->quiet,
                           .margin = PEERS_MARGIN,
                           .sim = &in->sim};
    st_analyze(&in->sw, &ao, an);
    an->sim = &in->sim;
    an->inproc = &in->ip;
    st_peers_compute(an, p);
}

/* Is there anything to report?  0, or 1 with the reason printed. */
static int check_reportable(const args *a, const inputs *in, const st_analysis *an, const st_peers *p) {
    if (an->used_runs == 0 && !in->sim.ncells) {
        fprintf(stderr, "peers-report: %s: no measured run succeeded (%zu failed): nothing to report\n", a->dir,
                an->failed_runs);
        return 1;
    }
    if (!p->n) {
        fprintf(stderr, "peers-report: %s: no workload has a baseline and allocation sampling cells\n", a->dir);
        return 1;
    }
    return 0;
}

/* DIR/plotdata, made when absent: 0, or the exit status with the message
 * printed (2: the path is taken by something else). */
static int make_plotdata_dir(const char *dir) {
    char *pd = join(dir, "plotdata");
    struct stat ps;
    int rc = 0;
    if (mkdir(pd, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "peers-report: cannot create %s: %s\n", pd, strerror(errno));
        rc = 1;
    } else if (lstat(pd, &ps) != 0 || !S_ISDIR(ps.st_mode)) {
        fprintf(stderr, "peers-report: %s is not a directory: the figure data goes there (remove it or move it away)\n",
                pd);
        rc = 2;
    }
    free(pd);
    return rc;
}

/* peers.md, peers.csv and (several systems) plotdata/peers.dat, each into
 * a temporary, all renamed at the end or none (contracts/ct_out.h).  0, or
 * the exit status with the message printed. */
static int write_outputs(const args *a, const st_analysis *an, const st_peers *p, int several) {
    char err[1024];
    int rc = 0;
    ct_outs set = {0};
    const char *names[3] = {"peers.md", "peers.csv", "plotdata/peers.dat"};
    for (int k = 0; k < (several ? 3 : 2) && !rc; k++) {
        char *path = join(a->dir, names[k]);
        FILE *f = ct_outs_open(&set, path, &rc, err, sizeof err);
        free(path);
        if (!f)
            break;
        if (k == 0)
            st_peers_write_md(f, an, p, PEERS_CONFIDENCE, a->inproc_dir);
        else if (k == 1)
            st_peers_write_csv(f, p);
        else
            st_write_peers_dat(f, an, p);
    }
    if (rc) {
        ct_outs_abort(&set);
        fprintf(stderr, "peers-report: %s; nothing was written\n", err);
    } else if ((rc = ct_outs_commit(&set, err, sizeof err)) != 0) {
        fprintf(stderr, "peers-report: %s\n", err);
    }
    return rc;
}

/* What was written, on stderr (the figure left out with one system). */
static void tell(const args *a, const st_peers *p, int several) {
    if (!several)
        fprintf(stderr,
                "peers-report: %s: every workload runs on freecheck: no plotdata/peers.dat (figure 8 compares "
                "systems)\n",
                a->dir);
    if (!a->quiet)
        fprintf(stderr, "peers-report: wrote %s/peers.md, peers.csv%s (%zu rows)\n", a->dir,
                several ? " and plotdata/peers.dat" : "", p->n);
}

int main(int argc, char **argv) {
    args a;
    inputs in;
    int rc = parse_args(argc, argv, &a);
    if (rc >= 0 || (rc = load_inputs(&a, &in)) != 0)
        return rc;
    st_analysis an;
    st_peers p;
    compute(&a, &in, &an, &p);
    int several = st_peers_several(&p);
    if (!(rc = check_reportable(&a, &in, &an, &p)) && !(rc = make_plotdata_dir(a.dir)) &&
        !(rc = write_outputs(&a, &an, &p, several)))
        tell(&a, &p, several);
    st_peers_free(&p);
    st_analysis_free(&an);
    free_inputs(&in);
    return rc;
}
