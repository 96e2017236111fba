/* validation.c - build/bin/validation OUT SWEEP...: does the analysis recover a known per-sample cost?
 *
 * Each SWEEP is a sweep directory whose runs had SGC_SAMPLE_SPIN_NS=D (its
 * meta.env; none = 0): every sample cost D more.  For each workload and
 * sampling kind, the per-sample cost fitted at D minus the one fitted at
 * D = 0 must be D (docs/STATISTICS.md, "Validation").  Also the A/A
 * coverage: how often an interval of baseline against baseline contains 1.
 * Writes OUT/validation.md, OUT/validation.csv, OUT/aa.csv and
 * OUT/validation.dat (the figure's data).
 *
 * With --inproc DIR (repeatable): time samples measured in-process.  Each
 * DIR holds the segment series (*.series, SGC_ALT_OUT) of runs with
 * SGC_ALTERNATE=time, one time mode, rate and D, and a file `params` that
 * says which (scripts/validate.sh writes it).  The per-sample cost at D,
 * from the program's own thread CPU time in ABBA blocks (st_inproc.h),
 * minus the one at D = 0 of the same workload, mode and rate must be D.
 * Also writes OUT/inproc.csv and OUT/inproc.dat.
 */
#include "st_analysis.h"
#include "st_analyze.h"
#include "st_boot.h"
#include "st_costfit.h"
#include "st_db.h"
#include "st_inproc.h"
#include "st_util.h"
#include "../contracts/ct_out.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <dirent.h>
#include <string.h>
#include <sys/stat.h>

#define MAX_SWEEPS 64

typedef struct vsweep {
    const char *dir;
    char id[256];    /* the directory's last component: the sweep id, for the outputs */
    double spin_ns;  /* injected D */
    sgc_clock clock; /* SGC_SAMPLE_SPIN_CLOCK (sgc_modes.h): what D is, wall time or CPU time (the thread's clock) */
    st_sweep sw;
    st_analysis an;
} vsweep;

#define MAX_INPROC 64

/* One in-process group: the runs of one workload, time mode, rate and D. */
typedef struct vinproc {
    const char *dir;
    char id[256]; /* the directory's last component */
    char workload[64];
    char time_mode[16];   /* a name of sgc_modes.h's time-mode table */
    long long hz;         /* SGC_TIME_HZ */
    long long size;       /* the workload's --size (0: not given) */
    double spin_ns;       /* injected D (ns of CPU: the cpu spin clock) */
    char sampler_cpu[64]; /* the sampler thread's CPUs over the runs (time_sampler_cpu; -1: it shared the program's) */
    size_t files;
    st_seg *segs;
    size_t nsegs;
    st_inproc est;
} vinproc;

static void usage(FILE *f) {
    fputs("usage: validation [--seed N] [--resamples B] [--aa-splits K] [--confidence C] [--inproc DIR]... [--quiet]\n"
          "                  OUT SWEEP...\n"
          "  Each SWEEP is a sweep directory (build/bin/sweep) run with --env SGC_SAMPLE_SPIN_NS=D (none: D = 0);\n"
          "  one of them must have D = 0.  Writes OUT/validation.md, validation.csv, aa.csv, validation.dat:\n"
          "  the per-sample cost recovered at each D (cost at D minus cost at 0) against D, and the A/A coverage.\n"
          "  --seed N         seed of every bootstrap (default 20250616)\n"
          "  --resamples B    bootstrap resamples of each fit and A/A interval, 200..100000 (default 2000)\n"
          "  --aa-splits K    random halves of each baseline for the A/A coverage, 0..1000 (default 20)\n"
          "  --confidence C   confidence level, 0.5 < C < 1 (default 0.95)\n"
          "  --inproc DIR     time samples in-process: DIR has the segment series (*.series) of runs with\n"
          "                   SGC_ALTERNATE=time and a file params (workload, time_mode, time_hz, spin_ns,\n"
          "                   spin_clock cpu, sampler_cpu); repeatable, one D = 0 DIR per workload, mode and rate\n"
          "  Exit status: 0 written (whether or not the targets are met), 1 an output cannot be written\n"
          "  (then none changes), 2 bad arguments, a SWEEP that is not a readable sweep, an in-process\n"
          "  directory with bad files, or an output's path taken by something other than a regular\n"
          "  file.  Method: docs/STATISTICS.md.\n",
          f);
}

static int bad(const char *fmt, const char *arg) {
    fputs("validation: ", stderr);
    fprintf(stderr, fmt, arg);
    fputs(" (see validation --help)\n", stderr);
    return 2;
}

/* The value of variable name in meta.env ("NAME=VALUE NAME=VALUE ..." or
 * "none"), copied into buf: 1, 0 when it is not set, -1 when it is set more
 * than once or its value does not fit buf. */
static int env_value(const st_sweep *sw, const char *name, char *buf, size_t len) {
    const char *env = st_sweep_meta(sw, "env");
    size_t nl = strlen(name);
    int found = 0;
    for (const char *p = env; p && *p;) {
        size_t n = strcspn(p, " ");
        if (n > nl && p[nl] == '=' && !strncmp(p, name, nl)) {
            if (found++ || n - nl - 1 >= len)
                return -1;
            memcpy(buf, p + nl + 1, n - nl - 1);
            buf[n - nl - 1] = '\0';
        }
        p += n;
        p += *p == ' ';
    }
    return found;
}

/* D from meta.env; 0 when not set, -1 when set to something that is not a
 * number (or set twice). */
static double spin_of(const st_sweep *sw) {
    char v[64], *end;
    int r = env_value(sw, "SGC_SAMPLE_SPIN_NS", v, sizeof v);
    if (r <= 0)
        return r;
    errno = 0;
    double d = strtod(v, &end);
    if (!*v || *end || errno || !(d >= 0) || !isdigit((unsigned char)v[0]))
        return -1;
    return d;
}

/* SGC_SAMPLE_SPIN_CLOCK from meta.env, by the clock table of sgc_modes.h:
 * the runtime's default (the table's first row) when not set, -1 when set
 * to a name the table does not have (or set twice). */
static int spin_clock_of(const st_sweep *sw) {
    char word[32];
    int r = env_value(sw, "SGC_SAMPLE_SPIN_CLOCK", word, sizeof word);
    return r < 0 ? -1 : r == 0 ? 0 : sgc_clock_parse(word);
}

/* The metric a spin clock's D is measured in: the fit that must recover it. */
static st_fit_metric metric_of_clock(sgc_clock c) { return c == SGC_CLOCK_CPU ? ST_FIT_CPU : ST_FIT_WALL; }

/* The keys of a params file, in the order of its value checks below. */
static const char *const param_keys[] = {"workload",   "time_mode",   "time_hz", "spin_ns",
                                         "spin_clock", "sampler_cpu", "size"};
enum { NPARAM_KEYS = sizeof param_keys / sizeof param_keys[0] };

/* What is wrong with the form of a line of got bytes as getline read it
 * (its LF then cut off), or NULL. */
static const char *param_line_form(char *line, size_t got) {
    size_t len = got;
    if (strlen(line) != len)
        return "a NUL byte";
    if (len > 512)
        return "longer than 511 characters";
    if (line[len - 1] != '\n')
        return "the file ends inside this line";
    line[--len] = '\0';
    if (strpbrk(line, "\r\t"))
        return "a carriage return or a tab (the file has LF line ends and one space after the key)";
    return NULL;
}

/* Key k's value val into v (spin_clock into *clock): 1 when it parses. */
static int param_value(vinproc *v, int k, const char *val, int *clock) {
    char *end;
    errno = 0;
    int ok = 1;
    switch (k) {
    case 0:
        ok = strlen(val) < sizeof v->workload && strspn(val, "abcdefghijklmnopqrstuvwxyz"
                                                             "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-") == strlen(val);
        if (ok)
            snprintf(v->workload, sizeof v->workload, "%s", val);
        break;
    case 1:
        ok = sgc_time_mode_parse(val) >= 0;
        if (ok)
            snprintf(v->time_mode, sizeof v->time_mode, "%s", val);
        break;
    case 2:
        v->hz = strtoll(val, &end, 10);
        ok = !*end && !errno && v->hz > 0 && isdigit((unsigned char)val[0]);
        break;
    case 3: /* decimal digits with at most one point: no sign, exponent, hex or inf */
        v->spin_ns = strtod(val, &end);
        ok = !*end && !errno && isdigit((unsigned char)val[0]) && strspn(val, "0123456789.") == strlen(val) &&
             strchr(val, '.') == strrchr(val, '.');
        break;
    case 4: ok = (*clock = sgc_clock_parse(val)) >= 0; break;
    case 5:
        ok = strlen(val) < sizeof v->sampler_cpu && strspn(val, "-0123456789 ") == strlen(val);
        if (ok)
            snprintf(v->sampler_cpu, sizeof v->sampler_cpu, "%s", val);
        break;
    case 6:
        v->size = strtoll(val, &end, 10);
        ok = !*end && !errno && v->size > 0 && isdigit((unsigned char)val[0]);
        break;
    }
    return ok;
}

/* What key k's value must be, for the refusal of one that is not. */
static const char *param_expected(int k, char *buf, size_t len) {
    switch (k) {
    case 0: return "a workload name (letters, digits, _ . -; at most 63)";
    case 1: return sgc_names_join(buf, len, sgc_time_mode_name, ", ", " or ");
    case 2: return "a rate in Hz (a positive decimal integer)";
    case 3: return "a time in ns (a non-negative decimal number)";
    case 4: return sgc_names_join(buf, len, sgc_clock_name, ", ", " or ");
    case 5: return "a list of CPU numbers (the time_sampler_cpu values of the runs)";
    default: return "a workload size (a positive decimal integer)";
    }
}

/* Line lineno of path (got bytes) into v: its form, its key (known, once:
 * seen), its value.  0, or 2 with the reason on stderr. */
static int param_line(vinproc *v, const char *path, int lineno, char *line, size_t got, int *seen, int *clock) {
    const char *why = param_line_form(line, got);
    if (why) {
        fprintf(stderr, "validation: %s line %d: %s\n", path, lineno, why);
        return 2;
    }
    if (line[0] == '#' || line[0] == '\0')
        return 0;
    char *val = strchr(line, ' ');
    if (val)
        *val++ = '\0';
    int k = -1;
    for (int j = 0; j < NPARAM_KEYS; j++)
        if (!strcmp(line, param_keys[j]))
            k = j;
    if (k < 0 || !val || !*val || val[0] == ' ' || val[strlen(val) - 1] == ' ' || (k != 5 && strchr(val, ' '))) {
        fprintf(stderr, "validation: %s line %d: %s\n", path, lineno,
                k < 0 ? "not one of the keys workload, time_mode, time_hz, spin_ns, spin_clock, sampler_cpu, size"
                      : "expected 'key value' with one value (sampler_cpu: CPUs separated by one space)");
        return 2;
    }
    if (seen[k]++) {
        fprintf(stderr, "validation: %s line %d: %s is given twice\n", path, lineno, param_keys[k]);
        return 2;
    }
    if (!param_value(v, k, val, clock)) {
        char buf[64];
        fprintf(stderr, "validation: %s line %d: %s '%s' is not %s\n", path, lineno, param_keys[k], val,
                param_expected(k, buf, sizeof buf));
        return 2;
    }
    return 0;
}

/* Reads DIR/params into v: "key value" lines (scripts/validate.sh writes
 * them), '#' comments and empty lines allowed.  Nothing is skipped: a key
 * it does not know, a key given twice, a value that does not parse, a line
 * not ending in LF or longer than 511 characters, a file that is not a
 * regular file of at most 64 KiB are refused.  Returns 0, or 2 with the
 * reason on stderr. */
static int read_params(vinproc *v) {
    char path[4096];
    snprintf(path, sizeof path, "%s/params", v->dir);
    const char *why;
    FILE *f = st_open_regular(path, 65536, &why);
    if (!f) {
        fprintf(stderr, "validation: %s: cannot read the in-process parameters: %s\n", path,
                !strcmp(why, "larger than the limit") ? "larger than 64 KiB" : why);
        return 2;
    }
    int seen[NPARAM_KEYS] = {0}, clock = -1, lineno = 0, bad = 0;
    v->hz = -1;
    v->spin_ns = -1;
    char *line = NULL;
    size_t cap = 0;
    ssize_t got;
    while (!bad && (got = getline(&line, &cap, f)) > 0)
        bad = param_line(v, path, ++lineno, line, (size_t)got, seen, &clock) != 0;
    free(line);
    if (!bad && ferror(f)) {
        fprintf(stderr, "validation: %s: read error: %s\n", path, strerror(errno));
        bad = 1;
    }
    fclose(f);
    if (bad)
        return 2;
    if (!seen[0] || !seen[1] || !seen[2] || !seen[3] || (v->spin_ns > 0 && clock != SGC_CLOCK_CPU)) {
        char modes[64];
        fprintf(stderr,
                "validation: %s: expected workload, time_mode (%s), time_hz (> 0), spin_ns (>= 0) and, with "
                "spin_ns > 0, spin_clock %s (the program's CPU time is what is measured)\n",
                path, sgc_names_join(modes, sizeof modes, sgc_time_mode_name, ", ", " or "),
                sgc_clock_name(SGC_CLOCK_CPU));
        return 2;
    }
    return 0;
}

static int by_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Reads every DIR/\*.series into v->segs, one run per file (in name order). */
static int read_series(vinproc *v) {
    DIR *d = opendir(v->dir);
    if (!d) {
        fprintf(stderr, "validation: %s: cannot open: %s\n", v->dir, strerror(errno));
        return 2;
    }
    char **names = NULL;
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        size_t len = strlen(e->d_name);
        if (len > 7 && !strcmp(e->d_name + len - 7, ".series")) {
            names = ct_xrealloc(names, (n + 1) * sizeof *names);
            names[n++] = ct_xstrdup(e->d_name);
        }
    }
    closedir(d);
    qsort(names, n, sizeof *names, by_name);
    int rc = 0;
    char path[4096], err[1024];
    for (size_t i = 0; i < n && !rc; i++) {
        snprintf(path, sizeof path, "%s/%s", v->dir, names[i]);
        if (st_inproc_read_series(path, (int64_t)i, &v->segs, &v->nsegs, err, sizeof err) != 0) {
            fprintf(stderr, "validation: %s\n", err);
            rc = 2;
        }
    }
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
    v->files = n;
    if (!rc && n == 0) {
        fprintf(stderr, "validation: %s: no segment series (*.series)\n", v->dir);
        rc = 2;
    }
    return rc;
}

/* Per-sample cost (ns of CPU) of n blocks, as st_inproc.h defines it. */
static double inproc_cost(const double *r, const double *sps, const size_t *idx, size_t n, double *t1, double *t2) {
    for (size_t k = 0; k < n; k++) {
        t1[k] = r[idx ? idx[k] : k];
        t2[k] = sps[idx ? idx[k] : k];
    }
    double mr = st_quantile_select(t1, n, 0.5), ms = st_quantile_select(t2, n, 0.5);
    return ms > 0 ? (1 - exp(-mr)) * 1e9 / ms : NAN;
}

/* Cost at D minus cost at 0 with the percentile interval of B
 * differences of independent block resamples (each group's blocks drawn
 * whole, with replacement). */
static st_reg_est inproc_difference(const st_blocks *d, const st_blocks *z, size_t B, double confidence,
                                    uint64_t seed) {
    st_reg_est out = {NAN, NAN, NAN};
    if (d->n == 0 || z->n == 0)
        return out;
    size_t m = d->n > z->n ? d->n : z->n;
    double *t1 = ct_xmalloc(m * sizeof(double)), *t2 = ct_xmalloc(m * sizeof(double));
    size_t *idx = ct_xmalloc(m * sizeof(size_t));
    out.est =
        inproc_cost(d->log_ratio, d->sps, NULL, d->n, t1, t2) - inproc_cost(z->log_ratio, z->sps, NULL, z->n, t1, t2);
    if (d->n >= ST_BOOT_MIN_RUNS && z->n >= ST_BOOT_MIN_RUNS) {
        gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
        gsl_rng_set(rng, (unsigned long)(seed ^ (seed >> 32)));
        double *diff = ct_xmalloc(B * sizeof(double));
        size_t nb = 0;
        for (size_t b = 0; b < B; b++) {
            for (size_t k = 0; k < d->n; k++)
                idx[k] = gsl_rng_uniform_int(rng, d->n);
            double cd = inproc_cost(d->log_ratio, d->sps, idx, d->n, t1, t2);
            for (size_t k = 0; k < z->n; k++)
                idx[k] = gsl_rng_uniform_int(rng, z->n);
            double cz = inproc_cost(z->log_ratio, z->sps, idx, z->n, t1, t2);
            if (isfinite(cd - cz))
                diff[nb++] = cd - cz;
        }
        if (nb > 0) {
            out.lo = st_quantile_select(diff, nb, (1 - confidence) / 2);
            out.hi = st_quantile_select(diff, nb, (1 + confidence) / 2);
        }
        free(diff);
        gsl_rng_free(rng);
    }
    free(t1);
    free(t2);
    free(idx);
    return out;
}

static const char *num(double v, int digits) {
    static char b[16][48];
    static int k;
    if (!isfinite(v))
        return "n/a";
    k = (k + 1) % 16;
    snprintf(b[k], sizeof b[k], "%.*g", digits, v);
    return b[k];
}

static const char *csvn(double v) {
    static char b[16][48];
    static int k;
    if (!isfinite(v))
        return "";
    k = (k + 1) % 16;
    snprintf(b[k], sizeof b[k], "%.6g", v);
    return b[k];
}

static double f_ratio(const double *m1, const double *m0) { return m1[0] / m0[0]; }

/* Used wall times of the workload's matrix baseline in a sweep. */
static size_t baseline_walls(const vsweep *v, const char *workload, double **out) {
    const st_analysis *an = &v->an;
    for (size_t i = 0; i < an->nresults; i++) {
        const st_result *r = &an->results[i];
        if (!r->is_baseline || !isnan(r->cell->depth) || strcmp(r->cell->workload, workload))
            continue;
        const st_cell *c = r->cell;
        *out = ct_xmalloc((c->nruns ? c->nruns : 1) * sizeof(double));
        size_t n = 0;
        for (size_t k = 0; k < c->nruns; k++) {
            const st_run *run = &v->sw.runs[c->first_run + k];
            if (run->used)
                (*out)[n++] = run->wall_ns;
        }
        return n;
    }
    *out = NULL;
    return 0;
}

/* Frees what main holds and returns rc: every exit of main goes through it,
 * so none leaks (the sanitizer test runs the error exits too). */
static int finish(int rc, vsweep *vs, size_t nv, vinproc *ip, size_t ni) {
    for (size_t i = 0; i < nv; i++) {
        st_analysis_free(&vs[i].an);
        st_sweep_free(&vs[i].sw);
    }
    free(vs);
    for (size_t i = 0; i < ni; i++) {
        st_inproc_free(&ip[i].est);
        free(ip[i].segs);
    }
    free(ip);
    return rc;
}

/* One validation run: its arguments, inputs and outputs, and the counts of
 * its closing line.  Zero-initialised but for the defaults (parse_args). */
typedef struct vrun {
    unsigned long long seed, resamples, splits;
    double confidence;
    int quiet;
    const char *out;
    vsweep *vs;
    size_t nv;
    vinproc *ip;
    size_t ni;
    FILE *fo[6]; /* validation.csv, validation.dat, validation.md, aa.csv, inproc.csv, inproc.dat */
    ct_outs set;
    size_t checked[SGC_NCLOCKS], met[SGC_NCLOCKS], contained[SGC_NCLOCKS]; /* per spin clock, D > 0 */
    size_t aa_in, aa_n;                                                    /* A/A intervals containing 1, of all */
} vrun;

/* Parses the command line into j.  Returns -1 to go on, else the exit status
 * (0 after --help, 2 for bad arguments, with the message printed). */
static int parse_args(int argc, char **argv, vrun *vr) {
    for (int i = 1; i < argc; i++) {
        const char *v;
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(argv[i], "--quiet")) {
            vr->quiet = 1;
        } else if ((v = st_opt_value(argc, argv, &i, "--seed"))) {
            if (st_opt_u64(v, 0, ULLONG_MAX, &vr->seed))
                return bad("--seed: '%s' is not a decimal 64-bit unsigned integer", v);
        } else if ((v = st_opt_value(argc, argv, &i, "--resamples"))) {
            if (st_opt_u64(v, 200, 100000, &vr->resamples))
                return bad("--resamples: '%s' is not an integer from 200 to 100000", v);
        } else if ((v = st_opt_value(argc, argv, &i, "--aa-splits"))) {
            if (st_opt_u64(v, 0, 1000, &vr->splits))
                return bad("--aa-splits: '%s' is not an integer from 0 to 1000", v);
        } else if ((v = st_opt_value(argc, argv, &i, "--confidence"))) {
            if (st_opt_real(v, 0.5, 1.0, &vr->confidence))
                return bad("--confidence: '%s' is not a number between 0.5 and 1 (exclusive)", v);
        } else if ((v = st_opt_value(argc, argv, &i, "--inproc"))) {
            if (!*v)
                return bad("%s needs a directory", "--inproc");
            if (vr->ni == MAX_INPROC)
                return bad("more than 64 in-process directories (at '%s')", v);
            vr->ip[vr->ni++].dir = v;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            return bad("unknown option '%s'", argv[i]);
        } else if (!vr->out) {
            vr->out = argv[i];
        } else if (vr->nv == MAX_SWEEPS) {
            return bad("more than 64 sweeps (at '%s')", argv[i]);
        } else {
            vr->vs[vr->nv++].dir = argv[i];
        }
    }
    if (!vr->out || !vr->nv)
        return bad("%sexpected an output directory and at least one sweep directory", "");
    return -1;
}

/* Loads and analyses every sweep, each with its injected D and spin clock
 * from meta.env; one must have D = 0.  Returns 0 or the exit status (2 bad
 * input), with the message printed. */
static int load_sweeps(vrun *vr) {
    const unsigned long long seed = vr->seed;
    const unsigned long long resamples = vr->resamples;
    const double confidence = vr->confidence;
    const int quiet = vr->quiet;
    vsweep *vs = vr->vs;
    const size_t nv = vr->nv;
    char err[1024];
    int have_zero = 0;
    for (size_t i = 0; i < nv; i++) {
        vsweep *v = &vs[i];
        int rc = st_sweep_load(v->dir, &v->sw, err, sizeof err);
        if (rc) {
            fprintf(stderr, "validation: %s\n", err);
            return rc;
        }
        v->spin_ns = spin_of(&v->sw);
        {
            size_t len = strlen(v->dir);
            while (len > 1 && v->dir[len - 1] == '/')
                len--;
            size_t start = len;
            while (start > 0 && v->dir[start - 1] != '/')
                start--;
            snprintf(v->id, sizeof v->id, "%.*s", (int)(len - start), v->dir + start);
        }
        if (v->spin_ns < 0) {
            fprintf(stderr,
                    "validation: %s: meta.env sets SGC_SAMPLE_SPIN_NS to something that is not a number (or sets it "
                    "twice)\n",
                    v->dir);
            return 2;
        }
        have_zero |= v->spin_ns == 0;
        int clock = spin_clock_of(&v->sw);
        if (clock < 0) {
            char names[128];
            fprintf(stderr, "validation: %s: meta.env sets SGC_SAMPLE_SPIN_CLOCK to a clock other than %s (or twice)\n",
                    v->dir, sgc_names_join(names, sizeof names, sgc_clock_name, ", ", " or "));
            return 2;
        }
        v->clock = (sgc_clock)clock;
        if (!quiet)
            fprintf(stderr, "validation: %s: SGC_SAMPLE_SPIN_NS=%.0f (%s clock)\n", v->dir, v->spin_ns,
                    sgc_clock_name(v->clock));
        st_analysis_opts ao = {.boot = {1000, confidence, seed}, .fit_resamples = (size_t)resamples, .progress = 0};
        st_analyze(&v->sw, &ao, &v->an);
    }
    if (!have_zero) {
        fprintf(stderr, "validation: no sweep ran with SGC_SAMPLE_SPIN_NS=0 (or unset): nothing to subtract\n");
        return 2;
    }
    return 0;
}

/* Reads every in-process directory (params, series) and estimates it; each
 * workload, mode and rate needs a D = 0 directory.  Returns 0 or the exit
 * status, with the message printed. */
static int load_inproc(vrun *vr) {
    const unsigned long long seed = vr->seed;
    const unsigned long long resamples = vr->resamples;
    const double confidence = vr->confidence;
    const int quiet = vr->quiet;
    vinproc *ip = vr->ip;
    const size_t ni = vr->ni;
    for (size_t i = 0; i < ni; i++) {
        vinproc *v = &ip[i];
        int rc = read_params(v);
        if (!rc)
            rc = read_series(v);
        if (rc)
            return rc;
        size_t len = strlen(v->dir);
        while (len > 1 && v->dir[len - 1] == '/')
            len--;
        size_t start = len;
        while (start > 0 && v->dir[start - 1] != '/')
            start--;
        snprintf(v->id, sizeof v->id, "%.*s", (int)(len - start), v->dir + start);
        st_boot_opts bo = {(size_t)resamples, confidence, seed ^ st_fnv1a64(ST_FNV_OFFSET, v->id)};
        st_inproc_estimate(v->segs, v->nsegs, &bo, &v->est);
        if (!quiet)
            fprintf(stderr,
                    "validation: %s: in-process, %s time sampling at %lld Hz, SGC_SAMPLE_SPIN_NS=%.0f: %zu blocks\n",
                    v->dir, v->time_mode, v->hz, v->spin_ns, v->est.blocks.n);
    }
    for (size_t i = 0; i < ni; i++) {
        int zero = 0;
        for (size_t j = 0; j < ni; j++)
            zero |= ip[j].spin_ns == 0 && !strcmp(ip[j].workload, ip[i].workload) &&
                    !strcmp(ip[j].time_mode, ip[i].time_mode) && ip[j].hz == ip[i].hz;
        if (!zero) {
            fprintf(stderr,
                    "validation: %s: no in-process directory has D = 0 for %s, %s time sampling at %lld Hz: nothing to "
                    "subtract\n",
                    ip[i].dir, ip[i].workload, ip[i].time_mode, ip[i].hz);
            return 2;
        }
    }
    return 0;
}

/* Creates OUT if needed and opens every output under its temporary name
 * (contracts/ct_out.h).  Returns 0, or 1 / 2 with nothing written. */
static int open_outputs(vrun *vr) {
    const char *out = vr->out;
    const size_t ni = vr->ni;
    char err[1024];
    struct stat os;
    if (mkdir(out, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "validation: cannot create %s: %s\n", out, strerror(errno));
        return 1;
    }
    if (stat(out, &os) != 0 || !S_ISDIR(os.st_mode)) {
        fprintf(stderr, "validation: %s: not a directory (it names a file); give a directory for the outputs\n", out);
        return 2;
    }

    /* Every output into a temporary, all renamed at the end or none (contracts/ct_out.h). */
    static const char *const names[6] = {"validation.csv", "validation.dat", "validation.md",
                                         "aa.csv",         "inproc.csv",     "inproc.dat"};
    FILE **fo = vr->fo;
    ct_outs *set = &vr->set;
    char path[4096];
    for (int k = 0; k < (ni ? 6 : 4); k++) {
        int status;
        snprintf(path, sizeof path, "%s/%s", out, names[k]);
        if (!(fo[k] = ct_outs_open(set, path, &status, err, sizeof err))) {
            ct_outs_abort(set);
            fprintf(stderr, "validation: %s; nothing was written\n", err);
            return status;
        }
    }
    return 0;
}

/* The headers of validation.csv and validation.dat and the opening of validation.md. */
static void recovery_headers(FILE *csv, FILE *dat, FILE *md, double confidence, unsigned long long resamples) {
    fputs("workload,kind,spin_clock,metric,injected_ns,cost_ns,cost_lo,cost_hi,cost_at_0_ns,recovered_ns,recovered_lo,"
          "recovered_hi,recovered_over_injected,tolerance_ns,within_target,interval_contains_injected,cells,runs,"
          "sweep\n",
          csv);
    fputs("# workload kind spin_clock metric injected_us recovered_us recovered_lo_us recovered_hi_us within_target\n",
          dat);
    fprintf(
        md,
        "# freecheck validation: injected vs recovered per-sample cost\n\n"
        "Every allocation sample and every time sample busy-waited D more (`SGC_SAMPLE_SPIN_NS`, "
        "docs/RUNTIME.md): D of wall time (spin clock `wall`, CLOCK_MONOTONIC) or D of CPU time (`cpu`, by the "
        "thread's CPU clock). Recovered = the per-sample cost fitted by regression at D minus the one fitted "
        "at D = 0 on the cells of the same periods (rates) (docs/STATISTICS.md), on wall time and on CPU time (user + sys), each with its %g%% "
        "bootstrap interval (%llu resamples). Target: within 10%% of D for D >= 10 us; within 10%% or "
        "0.5 us, whichever is larger, below. The metric of the spin's own clock is the one that must "
        "meet it (wall time for `wall`, CPU time for `cpu`); the other is shown for comparison.\n\n"
        "| workload | kind | spin clock | D (us) | wall: recovered (us) [interval] | wall: target | CPU: "
        "recovered (us) [interval] | CPU: target | cells x runs |\n|---|---|---|---|---|---|---|---|---|\n",
        confidence * 100, resamples);
}

/* Was workload c's fit reported from a sweep before sweep i? */
static int seen_before(const vsweep *vs, size_t i, const st_costfit *c) {
    int seen = 0;
    for (size_t j = 0; j < i && !seen; j++)
        seen = st_costfit_find(vs[j].an.fits, c->workload, c->kind, ST_FIT_WALL) != NULL;
    return seen;
}

/* The first D = 0 sweep with a wall-time fit of c's workload and kind (NULL:
 * none), its wall and CPU fits into zero[0] and zero[1]. */
static const vsweep *zero_sweep(const vsweep *vs, size_t nv, const st_costfit *c, const st_costfit *zero[2]) {
    const vsweep *zsweep = NULL;
    zero[0] = zero[1] = NULL;
    for (size_t j = 0; j < nv && !zero[0]; j++)
        if (vs[j].spin_ns == 0) {
            zero[0] = st_costfit_find(vs[j].an.fits, c->workload, c->kind, ST_FIT_WALL);
            zero[1] = st_costfit_find(vs[j].an.fits, c->workload, c->kind, ST_FIT_CPU);
            if (zero[0])
                zsweep = &vs[j];
        }
    return zsweep;
}

/* The sweeps with a wall-time fit of c's workload and kind, by spin clock
 * and then D, into order; their count. */
static size_t order_by_d(const vsweep *vs, size_t nv, const st_costfit *c, size_t order[MAX_SWEEPS]) {
    size_t no = 0;
    for (size_t j = 0; j < nv; j++)
        if (st_costfit_find(vs[j].an.fits, c->workload, c->kind, ST_FIT_WALL))
            order[no++] = j;
    for (size_t a = 1; a < no; a++)
        for (size_t b = a; b > 0 && (vs[order[b]].clock < vs[order[b - 1]].clock ||
                                     (vs[order[b]].clock == vs[order[b - 1]].clock &&
                                      vs[order[b]].spin_ns < vs[order[b - 1]].spin_ns));
             b--) {
            size_t t = order[b];
            order[b] = order[b - 1];
            order[b - 1] = t;
        }
    return no;
}

/* The D = 0 references of one workload and kind. */
typedef struct zero_ref {
    const st_costfit *fit[2]; /* wall, CPU */
    const vsweep *sweep;      /* the D = 0 sweep (NULL: none) */
} zero_ref;

/* Sweep v's cost recovered on metric m (0 wall, 1 CPU): the difference from
 * the D = 0 fit into *rec, whether it is within the target into *within, its
 * fit into *fit; its validation.csv row and validation.dat point; the
 * targets' counts of the spin's own clock. */
static void recover_metric(vrun *vr, const st_costfit *c, const vsweep *v, int m, const zero_ref *zr, st_reg_est *rec,
                           int *within, const st_costfit **fit, size_t *partial_zero) {
    double D = v->spin_ns;
    const char *clock = sgc_clock_name(v->clock);
    st_fit_metric metric = m ? ST_FIT_CPU : ST_FIT_WALL;
    *fit = st_costfit_find(v->an.fits, c->workload, c->kind, metric);
    const st_costfit *z = zr->fit[m];
    /* The D = 0 fit on the cells of the same periods (rates) as this
     * sweep's, when the D = 0 sweep has them all: a real cost that is not
     * linear in the samples then cancels instead of biasing the difference. */
    st_costfit sub;
    int have_sub = 0;
    if (zr->sweep && *fit && D > 0) {
        int64_t only[64];
        size_t nonly = 0;
        for (size_t k = 0; k < (*fit)->ncells && nonly < 64; k++)
            only[nonly++] =
                strcmp(c->kind, "time") == 0 ? (*fit)->cells[k]->cell->time_hz : (*fit)->cells[k]->cell->alloc_period;
        st_reg_opts ro = {(size_t)vr->resamples, vr->confidence, vr->seed ^ 0x5ab5e7ULL};
        have_sub = st_costfit_subset(&zr->sweep->an, c->workload, c->kind, metric, only, nonly, &ro, &sub);
        if (have_sub && sub.ncells == (*fit)->ncells)
            z = &sub;
        else
            (*partial_zero)++;
    }
    *rec = (st_reg_est){NAN, NAN, NAN};
    if (z && *fit && D > 0)
        *rec = st_reg_cost_difference(&(*fit)->fit, &z->fit, vr->confidence);
    double tol = D >= 10000 ? 0.1 * D : (0.1 * D > 500 ? 0.1 * D : 500);
    *within = D > 0 && isfinite(rec->est) && fabs(rec->est - D) <= tol;
    int contains = D > 0 && rec->lo <= D && D <= rec->hi;
    int own = metric == metric_of_clock(v->clock); /* the spin's own clock's metric */
    if (D > 0 && own) {
        vr->checked[v->clock]++;
        vr->met[v->clock] += *within;
        vr->contained[v->clock] += contains;
    }
    if (!*fit)
        return;
    const st_costfit *f = *fit;
    fprintf(vr->fo[0], "%s,%s,%s,%s,%.0f,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%zu,%zu,%s\n", c->workload, c->kind, clock,
            st_fit_metric_name(metric), D, csvn(f->fit.cost.est), csvn(f->fit.cost.lo), csvn(f->fit.cost.hi),
            csvn(z ? z->fit.cost.est : NAN), csvn(rec->est), csvn(rec->lo), csvn(rec->hi),
            csvn(D > 0 ? rec->est / D : NAN), csvn(D > 0 ? tol : NAN), D > 0 ? (*within ? "1" : "0") : "",
            D > 0 ? (contains ? "1" : "0") : "", f->ncells, f->fit.n, v->id);
    if (have_sub)
        st_costfit_free(&sub);
    if (D > 0)
        fprintf(vr->fo[1], "%s %s %s %s %g %s %s %s %d\n", c->workload, c->kind, clock, st_fit_metric_name(metric),
                D / 1000, isfinite(rec->est) ? num(rec->est / 1000, 6) : "NaN",
                isfinite(rec->lo) ? num(rec->lo / 1000, 6) : "NaN", isfinite(rec->hi) ? num(rec->hi / 1000, 6) : "NaN",
                *within);
}

/* Sweep v's row of validation.md's table (D = 0: the cost itself). */
static void recovery_md_row(FILE *md, const st_costfit *c, const vsweep *v, const st_costfit *const fits[2],
                            const st_reg_est rec[2], const int within[2]) {
    double D = v->spin_ns;
    const st_costfit *fit = fits[0];
    if (D == 0) {
        fprintf(md, "| %s | %s | | 0 | cost at D = 0: %s [%s, %s] | | %s [%s, %s] | | %zu x %zu |\n", c->workload,
                c->kind, num(fit->fit.cost.est / 1000, 3), num(fit->fit.cost.lo / 1000, 3),
                num(fit->fit.cost.hi / 1000, 3), fits[1] ? num(fits[1]->fit.cost.est / 1000, 3) : "n/a",
                fits[1] ? num(fits[1]->fit.cost.lo / 1000, 3) : "n/a",
                fits[1] ? num(fits[1]->fit.cost.hi / 1000, 3) : "n/a", fit->ncells, fit->fit.n);
        return;
    }
    const char *mark[2];
    for (int m = 0; m < 2; m++)
        mark[m] = (m ? ST_FIT_CPU : ST_FIT_WALL) == metric_of_clock(v->clock) ? (within[m] ? "**met**" : "**missed**")
                                                                              : (within[m] ? "(met)" : "(missed)");
    fprintf(md, "| %s | %s | %s | %s | %s [%s, %s] | %s | %s [%s, %s] | %s | %zu x %zu |\n", c->workload, c->kind,
            sgc_clock_name(v->clock), num(D / 1000, 4), num(rec[0].est / 1000, 4), num(rec[0].lo / 1000, 4),
            num(rec[0].hi / 1000, 4), mark[0], num(rec[1].est / 1000, 4), num(rec[1].lo / 1000, 4),
            num(rec[1].hi / 1000, 4), mark[1], fit->ncells, fit->fit.n);
}

/* One workload and kind (fit c): its rows over the sweeps, by clock and D. */
static void recover_workload(vrun *vr, const st_costfit *c, size_t *partial_zero) {
    zero_ref zr;
    zr.sweep = zero_sweep(vr->vs, vr->nv, c, zr.fit);
    size_t order[MAX_SWEEPS], no = order_by_d(vr->vs, vr->nv, c, order);
    for (size_t o = 0; o < no; o++) {
        const vsweep *v = &vr->vs[order[o]];
        if (v->spin_ns == 0 && v->clock != 0)
            continue; /* a D = 0 sweep has no spin: its clock means nothing */
        st_reg_est rec[2];
        int within[2] = {0, 0};
        const st_costfit *fits[2];
        for (int m = 0; m < 2; m++)
            recover_metric(vr, c, v, m, &zr, &rec[m], &within[m], &fits[m], partial_zero);
        if (fits[0])
            recovery_md_row(vr->fo[2], c, v, fits, rec, within);
    }
}

/* validation.md's closing lines: the partial D = 0 fits, the targets met per
 * spin clock. */
static void recovery_closing(const vrun *vr, size_t partial_zero) {
    FILE *md = vr->fo[2];
    fputc('\n', md);
    if (partial_zero)
        fprintf(md,
                "%zu fits were compared with the D = 0 fit over all its cells: the D = 0 sweep lacks some of "
                "their periods or rates.\n\n",
                partial_zero);
    for (int k = 0; k < SGC_NCLOCKS; k++)
        if (vr->checked[k])
            fprintf(md,
                    "**Spin clock `%s`, %s time: targets met in %zu of %zu** (workload, kind, D > 0); the "
                    "interval contains D in %zu of %zu.\n\n",
                    sgc_clock_name(k), st_fit_metric_name(metric_of_clock((sgc_clock)k)), vr->met[k], vr->checked[k],
                    vr->contained[k], vr->checked[k]);
}

/* validation.csv, validation.dat and the first section of validation.md: the
 * per-sample cost recovered at each D against D, counted in vr->checked,
 * met and contained. */
static int write_recovery(vrun *vr) {
    recovery_headers(vr->fo[0], vr->fo[1], vr->fo[2], vr->confidence, vr->resamples);
    size_t partial_zero = 0;
    /* Workloads in the order of the first sweep that has each. */
    for (size_t i = 0; i < vr->nv; i++) {
        const st_costfits *fi = vr->vs[i].an.fits;
        for (size_t f = 0; f < fi->n; f++) {
            const st_costfit *c = &fi->fits[f];
            if (c->metric == ST_FIT_WALL && !seen_before(vr->vs, i, c))
                recover_workload(vr, c, &partial_zero);
        }
    }
    recovery_closing(vr, partial_zero);
    return 0;
}

/* The in-process targets' counts, by time mode. */
typedef struct mode_counts {
    size_t checked[SGC_NTIME_MODES], met[SGC_NTIME_MODES], contained[SGC_NTIME_MODES];
} mode_counts;

/* inproc.csv's and inproc.dat's headers, the in-process section's text and
 * table head. */
static void inproc_headers(vrun *vr) {
    fputs("workload,time_mode,time_hz,injected_ns,cost_ns,cost_lo,cost_hi,cost_at_0_ns,recovered_ns,recovered_lo,"
          "recovered_hi,recovered_over_injected,tolerance_ns,within_target,interval_contains_injected,ratio,"
          "ratio_lo,ratio_hi,samples_per_cpu_s,blocks,runs,sampler_cpu,dir\n",
          vr->fo[4]);
    fputs("# workload time_mode time_hz injected_us recovered_us recovered_lo_us recovered_hi_us within_target\n",
          vr->fo[5]);
    fprintf(vr->fo[2],
            "## Time samples, in-process\n\n"
            "Runs with `SGC_ALTERNATE=time`: time sampling on in the B segments and off in the A segments of "
            "ABBA blocks inside each process; every time sample also cost D more of the program's CPU time "
            "(spin clock `%s`). With the sampler thread (`SGC_TIME_MODE=thread`) the thread owes each "
            "sample's spin to the program, which pays it on its own thread at its next safe point "
            "(docs/RUNTIME.md). Cost per sample from the program's thread CPU time per unit of work, B over "
            "A (docs/STATISTICS.md, \"In-process alternation\"), with its %g%% BCa interval over blocks; "
            "recovered = cost at D minus cost at D = 0 (same workload, mode and rate), with the percentile "
            "interval of %llu independent block resamples of both. Same targets.\n\n"
            "| workload | time mode | rate (Hz) | D (us) | cost (us) [interval] | recovered (us) [interval] | "
            "target | blocks (runs) | sampler thread's CPU |\n|---|---|---|---|---|---|---|---|---|\n",
            sgc_clock_name(SGC_CLOCK_CPU), vr->confidence * 100, vr->resamples);
}

/* The in-process directories in the order of their rows: by workload (first
 * seen), mode (table order), rate, D. */
static size_t order_inproc(const vinproc *ip, size_t ni, size_t order[MAX_INPROC]) {
    size_t no = 0;
    for (size_t i = 0; i < ni; i++)
        order[no++] = i;
    for (size_t a = 1; a < no; a++)
        for (size_t b = a; b > 0; b--) {
            const vinproc *x = &ip[order[b]], *y = &ip[order[b - 1]];
            size_t fx = 0, fy = 0;
            while (strcmp(ip[fx].workload, x->workload))
                fx++;
            while (strcmp(ip[fy].workload, y->workload))
                fy++;
            int mx = sgc_time_mode_parse(x->time_mode), my = sgc_time_mode_parse(y->time_mode);
            int less = fx != fy         ? fx < fy
                       : mx != my       ? mx < my
                       : x->hz != y->hz ? x->hz < y->hz
                                        : x->spin_ns < y->spin_ns;
            if (!less)
                break;
            size_t t = order[b];
            order[b] = order[b - 1];
            order[b - 1] = t;
        }
    return no;
}

/* The D = 0 directory of v's workload, mode and rate (load_inproc made sure
 * there is one). */
static const vinproc *inproc_zero(const vinproc *ip, size_t ni, const vinproc *v) {
    const vinproc *z = NULL;
    for (size_t j = 0; j < ni && !z; j++)
        if (ip[j].spin_ns == 0 && !strcmp(ip[j].workload, v->workload) && !strcmp(ip[j].time_mode, v->time_mode) &&
            ip[j].hz == v->hz)
            z = &ip[j];
    return z;
}

/* Directory v's row of inproc.csv, point of inproc.dat (D > 0) and row of
 * the in-process table, against its D = 0 directory z; counted in mc. */
static void inproc_row(vrun *vr, const vinproc *v, const vinproc *z, mode_counts *mc) {
    FILE *icsv = vr->fo[4], *idat = vr->fo[5], *md = vr->fo[2];
    double D = v->spin_ns;
    int mode = sgc_time_mode_parse(v->time_mode);
    st_reg_est rec = {NAN, NAN, NAN};
    if (D > 0)
        rec = inproc_difference(&v->est.blocks, &z->est.blocks, (size_t)vr->resamples, vr->confidence,
                                vr->seed ^ st_fnv1a64(ST_FNV_OFFSET, v->id) ^ 0xd1ffULL);
    double tol = D >= 10000 ? 0.1 * D : (0.1 * D > 500 ? 0.1 * D : 500);
    int within = D > 0 && isfinite(rec.est) && fabs(rec.est - D) <= tol;
    int contains = D > 0 && rec.lo <= D && D <= rec.hi;
    if (D > 0) {
        mc->checked[mode]++;
        mc->met[mode] += within;
        mc->contained[mode] += contains;
    }
    const st_interval *c = &v->est.cost_ns, *r = &v->est.ratio;
    fprintf(icsv, "%s,%s,%lld,%.0f,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%zu,%zu,%s,%s\n", v->workload,
            v->time_mode, v->hz, D, csvn(c->est), csvn(c->lo), csvn(c->hi), csvn(z->est.cost_ns.est), csvn(rec.est),
            csvn(rec.lo), csvn(rec.hi), csvn(D > 0 ? rec.est / D : NAN), csvn(D > 0 ? tol : NAN),
            D > 0 ? (within ? "1" : "0") : "", D > 0 ? (contains ? "1" : "0") : "", csvn(r->est), csvn(r->lo),
            csvn(r->hi), csvn(v->est.sps), v->est.blocks.n, v->est.blocks.runs, v->sampler_cpu, v->id);
    if (D > 0)
        fprintf(idat, "%s %s %lld %g %s %s %s %d\n", v->workload, v->time_mode, v->hz, D / 1000,
                isfinite(rec.est) ? num(rec.est / 1000, 6) : "NaN", isfinite(rec.lo) ? num(rec.lo / 1000, 6) : "NaN",
                isfinite(rec.hi) ? num(rec.hi / 1000, 6) : "NaN", within);
    char sz[40] = "";
    if (v->size > 0)
        snprintf(sz, sizeof sz, " (--size %lld)", v->size);
    fprintf(md, "| %s%s | %s | %lld | %s | %s [%s, %s] | ", v->workload, sz, v->time_mode, v->hz, num(D / 1000, 4),
            num(c->est / 1000, 4), num(c->lo / 1000, 4), num(c->hi / 1000, 4));
    if (D > 0)
        fprintf(md, "%s [%s, %s] | %s |", num(rec.est / 1000, 4), num(rec.lo / 1000, 4), num(rec.hi / 1000, 4),
                within ? "**met**" : "**missed**");
    else
        fputs("(the real cost) | |", md);
    fprintf(md, " %zu (%zu) | %s |\n", v->est.blocks.n, v->est.blocks.runs, v->sampler_cpu[0] ? v->sampler_cpu : "n/a");
}

/* The in-process targets met per time mode, in validation.md and (unless
 * quiet) on stderr. */
static void inproc_closing(const vrun *vr, const mode_counts *mc) {
    FILE *md = vr->fo[2];
    fputc('\n', md);
    for (int k = 0; k < SGC_NTIME_MODES; k++)
        if (mc->checked[k])
            fprintf(md,
                    "**In-process, time mode `%s`: targets met in %zu of %zu** (workload, D > 0); the interval "
                    "contains D in %zu of %zu.\n\n",
                    sgc_time_mode_name(k), mc->met[k], mc->checked[k], mc->contained[k], mc->checked[k]);
    if (!vr->quiet)
        for (int k = 0; k < SGC_NTIME_MODES; k++)
            if (mc->checked[k])
                fprintf(stderr, "validation: in-process, %s time sampling: targets met %zu of %zu\n",
                        sgc_time_mode_name(k), mc->met[k], mc->checked[k]);
}

/* inproc.csv, inproc.dat and the in-process section of validation.md. */
static int write_inproc(vrun *vr) {
    inproc_headers(vr);
    mode_counts mc = {{0}, {0}, {0}};
    size_t order[MAX_INPROC], no = order_inproc(vr->ip, vr->ni, order);
    for (size_t o = 0; o < no; o++) {
        const vinproc *v = &vr->ip[order[o]];
        inproc_row(vr, v, inproc_zero(vr->ip, vr->ni, v), &mc);
    }
    inproc_closing(vr, &mc);
    return 0;
}

/* aa.csv and the A/A section of validation.md: each baseline split in
 * halves, by round parity and at random; the totals into vr->aa_in, aa_n. */
static int write_aa(vrun *vr) {
    const unsigned long long seed = vr->seed;
    const unsigned long long resamples = vr->resamples;
    const unsigned long long splits = vr->splits;
    const double confidence = vr->confidence;
    vsweep *vs = vr->vs;
    const size_t nv = vr->nv;
    FILE *md = vr->fo[2];
    FILE *aa = vr->fo[3];
    /* A/A coverage. */
    fputs("sweep,workload,split,runs_a,runs_b,ratio,lo,hi,contains_1\n", aa);
    size_t aa_n = 0, aa_in = 0, oe_n = 0, oe_in = 0;
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(rng, (unsigned long)(seed ^ (seed >> 32)));
    fprintf(md,
            "## A/A coverage\n\nEach sweep's baseline runs of a workload split in two halves and compared "
            "like a cell with its baseline (ratio of medians, %g%% BCa interval, %llu resamples): once by "
            "round parity (as analyze does) and %llu times at random. With no difference there, about %g%% "
            "of the intervals should contain 1.\n\n| sweep | workload | runs | odd/even | random halves "
            "containing 1 |\n|---|---|---|---|---|\n",
            confidence * 100, resamples, splits, confidence * 100);
    for (size_t i = 0; i < nv; i++) {
        const vsweep *v = &vs[i];
        for (size_t r = 0; r < v->an.nresults; r++) {
            const st_result *b = &v->an.results[r];
            if (!b->is_baseline || !isnan(b->cell->depth))
                continue;
            double *w;
            size_t n = baseline_walls(v, b->cell->workload, &w);
            if (n < 2 * ST_BOOT_MIN_RUNS) {
                free(w);
                continue;
            }
            /* Odd vs even rounds: analyze's own A/A interval. */
            int oe = b->aa.method != ST_CI_NONE && b->aa.lo <= 1 && 1 <= b->aa.hi;
            if (b->aa.method != ST_CI_NONE) {
                oe_n++;
                oe_in += oe;
                fprintf(aa, "%s,%s,odd-even,%zu,%zu,%s,%s,%s,%d\n", v->id, b->cell->workload, b->aa_odd, b->aa_even,
                        csvn(b->aa.est), csvn(b->aa.lo), csvn(b->aa.hi), oe);
            }
            size_t in = 0;
            double *h1 = ct_xmalloc(n * sizeof(double)), *h0 = ct_xmalloc(n * sizeof(double));
            for (unsigned long long s = 0; s < splits; s++) {
                /* Fisher-Yates, then the first half against the second. */
                for (size_t k = n - 1; k > 0; k--) {
                    size_t j = gsl_rng_uniform_int(rng, k + 1);
                    double t = w[k];
                    w[k] = w[j];
                    w[j] = t;
                }
                size_t n1 = n / 2, n0 = n - n1;
                memcpy(h1, w, n1 * sizeof(double));
                memcpy(h0, w + n1, n0 * sizeof(double));
                st_sample s1 = {n1, {h1}}, s0 = {n0, {h0}};
                st_stat st = {f_ratio, 1};
                st_boot_opts bo = {(size_t)resamples, confidence, seed + 7919 * s + 104729 * i + r};
                st_interval iv;
                st_bootstrap(&s1, &s0, &st, 1, &bo, &iv);
                int c1 = iv.method != ST_CI_NONE && iv.lo <= 1 && 1 <= iv.hi;
                in += c1;
                aa_n += iv.method != ST_CI_NONE;
                aa_in += c1;
                fprintf(aa, "%s,%s,random-%llu,%zu,%zu,%s,%s,%s,%d\n", v->id, b->cell->workload, s + 1, n1, n0,
                        csvn(iv.est), csvn(iv.lo), csvn(iv.hi), c1);
            }
            fprintf(md, "| %s | %s | %zu | %s | %zu of %llu |\n", v->id, b->cell->workload, n,
                    b->aa.method == ST_CI_NONE ? "n/a"
                    : oe                       ? "contains 1"
                                               : "**excludes 1**",
                    in, splits);
            free(h1);
            free(h0);
            free(w);
        }
    }
    gsl_rng_free(rng);
    fprintf(md,
            "\n**A/A coverage: %zu of %zu intervals contain 1 (%s%%)**: random halves %zu of %zu, odd/even "
            "rounds %zu of %zu (nominal %g%%).\n",
            aa_in + oe_in, aa_n + oe_n, num(100.0 * (double)(aa_in + oe_in) / (double)(aa_n + oe_n), 3), aa_in, aa_n,
            oe_in, oe_n, confidence * 100);
    vr->aa_in = aa_in + oe_in;
    vr->aa_n = aa_n + oe_n;
    return 0;
}

/* Renames every output into place (or none) and says so.  Returns the exit status. */
static int commit_and_tell(vrun *vr) {
    char err[1024];
    int rc = ct_outs_commit(&vr->set, err, sizeof err);
    if (rc)
        fprintf(stderr, "validation: %s\n", err);
    else if (!vr->quiet) {
        fputs("validation: targets met:", stderr);
        for (int k = 0; k < SGC_NCLOCKS; k++)
            fprintf(stderr, " %s spin %zu of %zu,", sgc_clock_name(k), vr->met[k], vr->checked[k]);
        fprintf(stderr, " A/A coverage %zu of %zu; wrote %s/validation.md\n", vr->aa_in, vr->aa_n, vr->out);
    }
    return rc;
}

/* Arguments, sweeps, in-process runs, outputs opened, the three reports, all renamed into place. */
int main(int argc, char **argv) {
    vrun j = {.seed = 20250616ULL, .resamples = 2000, .splits = 20, .confidence = 0.95};
    j.vs = ct_xcalloc(MAX_SWEEPS, sizeof *j.vs);
    j.ip = ct_xcalloc(MAX_INPROC, sizeof *j.ip);
    int rc = parse_args(argc, argv, &j);
    if (rc < 0 && !(rc = load_sweeps(&j)) && !(rc = load_inproc(&j)) && !(rc = open_outputs(&j))) {
        write_recovery(&j);
        if (j.ni)
            write_inproc(&j);
        write_aa(&j);
        rc = commit_and_tell(&j);
    }
    return finish(rc < 0 ? 0 : rc, j.vs, j.nv, j.ip, j.ni);
}
