/* pr_common.c - the C peers' arguments, checksum output and stats record. */
#include "pr_common.h"
#include "../../contracts/ct_out.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

uint64_t pr_bytes_allocated;
uint64_t pr_objects_allocated;

static uint64_t pr_now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

__attribute__((noreturn, format(printf, 2, 3))) static void pr_usage_error(const pr_spec *spec, const char *fmt, ...) {
    va_list ap;
    fprintf(stderr, "%s: ", spec->name);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, " (see %s --help)\n", spec->name);
    exit(2);
}

void pr_out_of_memory(size_t size) {
    fprintf(stderr, "peer: out of memory allocating %zu bytes\n", size);
    exit(1);
}

/* A whole decimal number in [min, max], or a usage error naming the option. */
static int64_t pr_int_value(const pr_spec *spec, const char *name, const char *text, int64_t min, int64_t max) {
    int64_t v = 0;
    const char *p = text;
    if (*p == '\0')
        pr_usage_error(spec, "%s needs a value", name);
    for (; *p; p++) {
        if (*p < '0' || *p > '9' || v > (INT64_MAX - 9) / 10)
            pr_usage_error(spec, "%s '%s' is not a whole decimal number in %" PRId64 "..%" PRId64, name, text, min,
                           max);
        v = v * 10 + (*p - '0');
    }
    if (v < min || v > max)
        pr_usage_error(spec, "%s %" PRId64 " is out of range %" PRId64 "..%" PRId64, name, v, min, max);
    return v;
}

static void pr_usage(const pr_spec *spec) {
    printf("usage: %s [--size N]%s\n%s\n\n", spec->name, spec->depth_max ? " [--depth D]" : "", spec->summary);
    printf("  --size N     the amount of work, as freecheck's %s --size; 1..%" PRId64 ", default %" PRId64 "\n",
           spec->name, spec->max_size, spec->default_size);
    if (spec->depth_max)
        printf("  --depth D    maximum tree depth; %" PRId64 "..%" PRId64 ", default %" PRId64 "\n", spec->depth_min,
               spec->depth_max, spec->default_depth);
    printf("  --help       this text\n\n"
           "Prints one line \"checksum <16 hex digits>\", the same as freecheck's workload.\n"
           "With SGC_STATS=FILE, writes a stats record (docs/FORMATS.md) to FILE at exit.\n"
           "The allocator's sampler is set by its own environment variable\n"
           "(jemalloc: MALLOC_CONF=prof:true,lg_prof_sample:K; gperftools:\n"
           "TCMALLOC_SAMPLE_PARAMETER=BYTES).  SGC_ALTERNATE=none|alloc with SGC_ALT_OUT=FILE\n"
           "switches it on and off in segments of CPU time and writes the segment series\n"
           "(docs/FORMATS.md).  Exit status: 0 ok, 1 failure, 2 bad arguments or settings.\n");
}

pr_run pr_start(const pr_spec *spec, int argc, char **argv) {
    /* stdout's buffer is not malloc'ed: nothing may allocate (and be
     * sampled) after the sampler's count has been read. */
    static char stdout_buf[BUFSIZ];
    setvbuf(stdout, stdout_buf, _IOFBF, sizeof stdout_buf);
    pr_run run = {spec, spec->default_size, spec->default_depth, pr_now_ns()};
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        const char *eq = strchr(arg, '=');
        size_t len = eq ? (size_t)(eq - arg) : strlen(arg);
        int is_size = len == 6 && strncmp(arg, "--size", 6) == 0;
        int is_depth = spec->depth_max && len == 7 && strncmp(arg, "--depth", 7) == 0;
        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            pr_usage(spec);
            exit(0);
        } else if (is_size || is_depth) {
            const char *value = eq ? eq + 1 : NULL;
            if (!value) {
                if (i + 1 >= argc)
                    pr_usage_error(spec, "option %s needs a value", is_size ? "--size" : "--depth");
                value = argv[++i];
            }
            if (is_size)
                run.size = pr_int_value(spec, "--size", value, 1, spec->max_size);
            else
                run.depth = pr_int_value(spec, "--depth", value, spec->depth_min, spec->depth_max);
        } else if (arg[0] == '-') {
            pr_usage_error(spec, "unknown option '%s'", arg);
        } else {
            pr_usage_error(spec, "unexpected argument '%s'", arg);
        }
    }
    pr_alt_start(spec->name);
    return run;
}

static uint64_t pr_checksum_value(const pr_checksum *c) {
    uint64_t h = c->h;
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ull;
    h ^= h >> 33;
    return h;
}

/* Appends one "key value" line to buf (no malloc: snprintf into the caller's
 * buffer).  Returns the new length, or cap on overflow. */
__attribute__((format(printf, 4, 5))) static size_t pr_line(char *buf, size_t len, size_t cap, const char *fmt, ...) {
    if (len >= cap)
        return cap;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf + len, cap - len, fmt, ap);
    va_end(ap);
    return n < 0 || (size_t)n >= cap - len ? cap : len + (size_t)n;
}

/* Writes text to path with the atomic writer (contracts/ct_out.h: no
 * malloc).  0, or -1 with the reason in err. */
static int pr_write_file(const char *path, const char *text, size_t len, char *err, size_t errlen) {
    static ct_out out;
    if (ct_out_begin(&out, path, err, errlen) != 0)
        return -1;
    if (ct_out_write(&out, text, len) != 0) {
        snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
        ct_out_abort(&out);
        return -1;
    }
    return ct_out_commit(&out, err, errlen) != 0 ? -1 : 0;
}

int pr_finish(const pr_run *run, const pr_checksum *sum) {
    pr_alt_totals alt;
    pr_alt_finish(run->spec->name, &alt); /* the series ends before anything else */
    printf("checksum %016" PRIx64 "\n", pr_checksum_value(sum));
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "%s: cannot write the checksum to standard output\n", run->spec->name);
        exit(1);
    }
    const char *path = getenv("SGC_STATS");
    if (!path || !*path)
        return 0;

    pr_sampler s = {0};
    pr_sampler_read(&s); /* from here on: no malloc */
    uint64_t run_ns = pr_now_ns() - run->start_ns;
    char buf[2048];
    size_t cap = sizeof buf, n = 0;
    n = pr_line(buf, n, cap, "sgc-stats 1\n");
    /* In 19 digits, converted by a loop of 19 steps whatever the time:
     * formatting it costs the same instructions in every run, so repeated
     * runs under valgrind (the simulated part) count the same (printf's
     * conversion of a number of one digit more cost 14 to 19 instructions,
     * with zero padding too). */
    char digits[20];
    uint64_t v = run_ns;
    for (int i = 18; i >= 0; i--, v /= 10)
        digits[i] = (char)('0' + v % 10);
    digits[19] = '\0';
    n = pr_line(buf, n, cap, "run_ns %s\n", digits);
    n = pr_line(buf, n, cap, "bytes_allocated %" PRIu64 "\n", pr_bytes_allocated);
    n = pr_line(buf, n, cap, "objects_allocated %" PRIu64 "\n", pr_objects_allocated);
    if (alt.active) { /* the record covers the series' span */
        s.period = alt.period;
        s.samples_known = alt.counts;
        s.samples = alt.samples;
    }
    if (s.samples_known)
        n = pr_line(buf, n, cap, "alloc_samples %" PRIu64 "\n", s.samples);
    if (alt.active && alt.counts)
        n = pr_line(buf, n, cap, "alloc_samples_startup %" PRIu64 "\n", alt.samples_before);
    if (s.live_known)
        n = pr_line(buf, n, cap, "alloc_samples_live %" PRIu64 "\n", s.live);
    n = pr_line(buf, n, cap, "alloc_period %" PRIu64 "\n", s.period);
    n = pr_line(buf, n, cap, "alloc_mode %s\n", s.mode);
    n = pr_line(buf, n, cap, "time_samples 0\n");
    n = pr_line(buf, n, cap, "peer_system %s\n", s.system);
    static char err[CT_OUT_PATH_MAX + 256];
    if (n >= cap || pr_write_file(path, buf, n, err, sizeof err) != 0) {
        fprintf(stderr, "%s: cannot write the stats record to %s: %s\n", run->spec->name, path,
                n >= cap ? "record too long" : err);
        exit(1);
    }
    if (s.problem && s.period > 0)
        fprintf(stderr, "%s: no alloc_samples in %s: %s\n", run->spec->name, path, s.problem);
    return 0;
}
