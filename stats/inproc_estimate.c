/* inproc_estimate.c - build/bin/inproc-estimate FILE...: the in-process
 * estimate from segment series files (SGC_ALT_OUT), pooled over the files
 * (one process each), without a sweep (docs/STATISTICS.md "In-process
 * alternation"); inproc-estimate --check FILE: the series against the
 * contract of docs/FORMATS.md (st_segcheck.h). */
#include "st_inproc.h"
#include "st_segcheck.h"
#include "st_util.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *f) {
    fprintf(f, "usage: inproc-estimate [--seed N] [--resamples B] FILE...\n"
               "       inproc-estimate --check FILE [--stats RECORD] [--objects] [--mode MODE] [--system NAME]\n"
               "                       [--summary]\n"
               "  Pools the complete ABBA blocks of the segment series FILEs (written by a run\n"
               "  with SGC_ALTERNATE and SGC_ALT_OUT) and prints the ratio of CPU time per unit\n"
               "  of work, B segments over A segments, with its 95%% one-sample BCa interval over\n"
               "  blocks, the per-sample cost and the normalized overhead.  Then the same\n"
               "  at the level of the processes (one file each): each file's steady state\n"
               "  (changepoints: blocks before a warm-up left out), each file estimated on its\n"
               "  own, the files combined by a random-effects model with Cochran's Q, I^2 and\n"
               "  tau (docs/STATISTICS.md, \"Levels\"); with one file, its blocks only.\n"
               "  Exit status: 0 done, 1 fewer than 3 complete blocks or the estimate cannot be written,\n"
               "  2 bad arguments or files.\n"
               "  --check: checks FILE against the contract of docs/FORMATS.md (\"The segment series\":\n"
               "  the file's form, its header and columns, the eleven invariants) and prints every\n"
               "  violation, \"inproc-estimate: FILE: <what>\".  --stats RECORD: the run's stats record,\n"
               "  whose bytes_allocated, alloc_samples (when measured) and alloc_period the series'\n"
               "  totals must equal; --objects: the check point is once per allocated object, so the\n"
               "  iterations add up to the record's objects_allocated; --mode: the alternation mode\n"
               "  it must have (none, alloc, time, both); --system: the system it must name\n"
               "  (freecheck: no system line); --summary: one line of totals (segments, blocks, the\n"
               "  on and off segments' samples, bytes and CPU time, the median switch costs).\n"
               "  Exit status: 0 it conforms, 1 it does not, 2 bad arguments or a file that cannot be read.\n");
}

/* A file read whole, bounded (a segment series or a stats record); NULL with
 * the reason in why (static) and errno. */
static char *read_bounded(const char *path, unsigned long long max, size_t *len, const char **why) {
    FILE *f = st_open_regular(path, max, why);
    if (!f)
        return NULL;
    char *buf = malloc(max + 1);
    size_t n = buf ? fread(buf, 1, max, f) : 0;
    int bad = !buf || ferror(f);
    fclose(f);
    if (bad) {
        *why = buf ? strerror(errno) : "out of memory";
        free(buf);
        return NULL;
    }
    buf[n] = '\0';
    *len = n;
    return buf;
}

static void print_violation(void *ctx, const char *msg) { printf("inproc-estimate: %s: %s\n", (const char *)ctx, msg); }

/* --check FILE [options]: the conformance check (st_segcheck.h). */
static int check_main(int argc, char **argv) {
    const char *file = NULL, *stats = NULL;
    st_segcheck_opts o = {.alloc_period = -1};
    int summary = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--check") && i + 1 < argc && !file)
            file = argv[++i];
        else if (!strcmp(argv[i], "--stats") && i + 1 < argc && !stats)
            stats = argv[++i];
        else if (!strcmp(argv[i], "--mode") && i + 1 < argc && !o.mode) {
            o.mode = argv[++i];
            if (strcmp(o.mode, "none") && strcmp(o.mode, "alloc") && strcmp(o.mode, "time") && strcmp(o.mode, "both")) {
                fprintf(stderr, "inproc-estimate: --mode '%s' is not none, alloc, time or both\n", o.mode);
                return 2;
            }
        } else if (!strcmp(argv[i], "--system") && i + 1 < argc && !o.system)
            o.system = argv[++i];
        else if (!strcmp(argv[i], "--objects"))
            o.objects = 1;
        else if (!strcmp(argv[i], "--summary"))
            summary = 1;
        else {
            fprintf(stderr, "inproc-estimate: --check: unexpected argument '%s' (see --help)\n", argv[i]);
            return 2;
        }
    }
    if (!file) {
        fprintf(stderr, "inproc-estimate: --check needs a series file (see --help)\n");
        return 2;
    }
    size_t len, rlen;
    const char *why;
    char *text = read_bounded(file, ST_SERIES_MAX_BYTES, &len, &why);
    if (!text) {
        fprintf(stderr, "inproc-estimate: %s: cannot read the segment series: %s\n", file, why);
        return 2;
    }
    char *rec = NULL;
    if (stats && !(rec = read_bounded(stats, 65536, &rlen, &why))) {
        fprintf(stderr, "inproc-estimate: %s: cannot read the stats record: %s\n", stats, why);
        free(text);
        return 2;
    }
    o.stats = rec;
    st_segcheck_summary sum;
    size_t bad = st_segcheck(text, len, &o, print_violation, (void *)file, &sum);
    if (summary && !bad)
        printf("segments=%zu blocks=%zu pattern=%s system=%s cpu_clock=%s unmeasured=%s on_samples=%llu "
               "on_bytes=%llu off_samples=%llu off_bytes=%llu on_cpu_ns=%llu off_cpu_ns=%llu",
               sum.segments, sum.blocks, sum.pattern, sum.system, sum.cpu_clock,
               sum.unmeasured[0] ? sum.unmeasured : "none", (unsigned long long)sum.on_samples,
               (unsigned long long)sum.on_bytes, (unsigned long long)sum.off_samples, (unsigned long long)sum.off_bytes,
               (unsigned long long)sum.on_cpu_ns, (unsigned long long)sum.off_cpu_ns);
    if (summary && !bad && sum.has_switch)
        printf(" switch_on_ns=%llu switch_off_ns=%llu switch_same_ns=%llu", (unsigned long long)sum.switch_on_ns,
               (unsigned long long)sum.switch_off_ns, (unsigned long long)sum.switch_same_ns);
    if (summary && !bad)
        printf("\n");
    free(text);
    free(rec);
    int rc = bad ? 1 : 0;
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "inproc-estimate: writing the result failed: %s\n", strerror(errno));
        rc = rc ? rc : 1;
    }
    return rc;
}

static void print_iv(const char *name, const st_interval *iv, const char *fmt) {
    printf("%-12s ", name);
    printf(fmt, iv->est);
    if (iv->method == ST_CI_NONE) {
        printf("  (no interval: %s)\n", iv->why ? iv->why : "?");
        return;
    }
    printf(" [");
    printf(fmt, iv->lo);
    printf(", ");
    printf(fmt, iv->hi);
    printf("]%s\n", iv->method == ST_CI_PERCENTILE ? " (percentile)" : "");
}

int main(int argc, char **argv) {
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--check"))
            return check_main(argc, argv);
    st_boot_opts opts = {10000, 0.95, 20250616ULL};
    st_seg *segs = NULL;
    size_t n = 0;
    int files = 0;
    for (int i = 1; i < argc; i++) {
        char *end;
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(argv[i], "--seed") && i + 1 < argc) {
            errno = 0;
            opts.seed = strtoull(argv[++i], &end, 10);
            if (*end || errno || argv[i][0] == '-' || !argv[i][0]) {
                fprintf(stderr, "inproc-estimate: --seed '%s' is not a decimal 64-bit unsigned integer\n", argv[i]);
                return 2;
            }
        } else if (!strcmp(argv[i], "--resamples") && i + 1 < argc) {
            errno = 0;
            unsigned long long b = strtoull(argv[++i], &end, 10);
            if (*end || errno || argv[i][0] == '-' || b < 1000 || b > 1000000) {
                fprintf(stderr, "inproc-estimate: --resamples '%s' is not an integer from 1000 to 1000000\n", argv[i]);
                return 2;
            }
            opts.resamples = (size_t)b;
        } else if (argv[i][0] == '-') {
            fprintf(stderr, "inproc-estimate: unknown option or missing value '%s' (see --help)\n", argv[i]);
            return 2;
        } else {
            char err[512];
            if (st_inproc_read_series(argv[i], files, &segs, &n, err, sizeof err) != 0) {
                fprintf(stderr, "inproc-estimate: %s\n", err);
                free(segs);
                return 2;
            }
            files++;
        }
    }
    if (!files) {
        fprintf(stderr, "inproc-estimate: no series files given (see --help)\n");
        return 2;
    }
    st_inproc e;
    st_inproc_estimate(segs, n, &opts, &e);
    printf("blocks       %zu complete (from %zu of %d files; %zu incomplete left out), work = %s\n", e.blocks.n,
           e.blocks.runs, files, e.blocks.skipped, e.blocks.work_iterations ? "iterations" : "bytes");
    print_iv("ratio", &e.ratio, "%.4f");
    if (e.ratio.method != ST_CI_NONE)
        printf("half-width   %.2f%%\n", (e.ratio.hi - e.ratio.lo) / 2 * 100);
    printf("sd_log       %.4f\n", e.sd_log);
    if (e.blocks.uncounted) {
        printf("samples/s    not counted (the series lists its samples as unmeasured)\n");
        printf("cost_ns      not counted\nnormalized   not counted\n");
    } else {
        printf("samples/s    %.1f (per CPU second of the B halves)\n", e.sps);
        print_iv("cost_ns", &e.cost_ns, "%.1f");
        print_iv("normalized", &e.norm, "%.4f");
    }
    /* The level of the processes: the files. */
    st_inproc_levels(&e, &opts, NULL, NULL);
    printf("level        %s (%zu processes; %zu of %zu blocks in their steady states, %zu after a warm-up, %zu "
           "without a steady state)\n",
           st_level_name(e.level), e.nprocs, e.kept, e.blocks.n, e.steady_after, e.steady_none);
    print_iv("ratio@level", &e.lv_ratio, "%.4f");
    if (e.lv_ratio.method != ST_CI_NONE)
        printf("half-width   %.2f%% (at that level)\n", (e.lv_ratio.hi - e.lv_ratio.lo) / 2 * 100);
    if (isfinite(e.re.q_p))
        printf("processes    Q %.4g, p %.3g, I^2 %.3f, tau %.4g%s\n", e.re.q, e.re.q_p, e.re.i2, sqrt(e.re.tau2),
               e.heterogeneous ? ": HETEROGENEOUS (the processes differ beyond their blocks' noise)" : "");
    if (!e.blocks.uncounted) {
        print_iv("cost@level", &e.lv_cost_ns, "%.1f");
        print_iv("norm@level", &e.lv_norm, "%.4f");
    }
    int rc = e.blocks.n >= ST_BOOT_MIN_RUNS ? 0 : 1;
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "inproc-estimate: writing the estimate failed: %s\n", strerror(errno));
        rc = 1;
    }
    st_inproc_free(&e);
    free(segs);
    return rc;
}
