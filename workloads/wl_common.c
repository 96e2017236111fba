/* wl_common.c - the workloads' shared argument parsing, checksum output and errors. */
#include "wl_common.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

/* Prints "<workload>: <message> (see --help)" and exits 2: the caller gave
 * a bad argument, which is the user's to fix, not a failure of the run. */
__attribute__((noreturn, format(printf, 2, 3))) static void wl_usage_error(const wl_spec *spec, const char *fmt, ...) {
    va_list ap;
    fprintf(stderr, "%s: ", spec->name);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, " (see %s --help)\n", spec->name);
    exit(2);
}

int wl_parse_int(const char *text, int64_t *out) {
    const char *p = text;
    int neg = 0;
    uint64_t v = 0;
    if (*p == '-') {
        neg = 1;
        p++;
    }
    if (*p == '\0')
        return -1;
    for (; *p; p++) {
        if (*p < '0' || *p > '9')
            return -1;
        unsigned d = (unsigned)(*p - '0');
        if (v > (UINT64_C(1) << 63) / 10)
            return -1;
        v = v * 10 + d;
        if (v > (UINT64_C(1) << 63))
            return -1;
    }
    if (!neg && v > (uint64_t)INT64_MAX)
        return -1;
    *out = neg ? (int64_t)(0 - v) : (int64_t)v;
    return 0;
}

static void wl_usage(const wl_spec *spec) {
    printf("usage: %s [--size N] [--check]", spec->name);
    for (const wl_option *o = spec->options; o && o->name; o++)
        printf(o->kind == WL_OPT_FLAG ? " [%s]" : " [%s X]", o->name);
    printf("\n%s\n\n", spec->summary);
    printf("  --size N     %s; %" PRId64 "..%" PRId64 ", default %" PRId64 "\n", spec->size_help, spec->min_size,
           spec->max_size, spec->default_size);
    printf("  --check      verify the checksum against an independently computed value;\n"
           "               exit 1 on a mismatch\n");
    for (const wl_option *o = spec->options; o && o->name; o++) {
        if (o->kind == WL_OPT_INT)
            printf("  %-12s %s; %" PRId64 "..%" PRId64 "\n", o->name, o->help, o->min, o->max);
        else
            printf("  %-12s %s\n", o->name, o->help);
    }
    printf("  --help       this text\n\n"
           "Prints one line \"checksum <16 hex digits>\".  Runtime settings come from\n"
           "the SGC_* environment variables.  Exit status: 0 ok, 1 check failed,\n"
           "2 bad arguments or settings.\n");
}

/* Reads the value of option name from "--name=value" (inline != NULL) or the
 * next argument, advancing *i.  A missing value is a usage error. */
static const char *wl_option_value(const wl_spec *spec, const char *name, const char *inline_value, int argc,
                                   char **argv, int *i) {
    if (inline_value)
        return inline_value;
    if (*i + 1 >= argc)
        wl_usage_error(spec, "option %s needs a value", name);
    return argv[++*i];
}

static int64_t wl_int_value(const wl_spec *spec, const char *name, const char *text, int64_t min, int64_t max) {
    int64_t v;
    if (wl_parse_int(text, &v) != 0)
        wl_usage_error(spec, "%s '%s' is not a whole decimal number", name, text);
    if (v < min || v > max)
        wl_usage_error(spec, "%s %" PRId64 " is out of range %" PRId64 "..%" PRId64, name, v, min, max);
    return v;
}

wl_run wl_start(const wl_spec *spec, int argc, char **argv) {
    wl_run run = {spec, spec->default_size, 0};
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (strncmp(arg, "--", 2) != 0 && strcmp(arg, "-h") != 0)
            wl_usage_error(spec, "unexpected argument '%s'", arg);
        /* Split "--name=value". */
        char name[64];
        const char *eq = strchr(arg, '=');
        const char *inline_value = NULL;
        size_t len = eq ? (size_t)(eq - arg) : strlen(arg);
        if (len >= sizeof name)
            wl_usage_error(spec, "unknown option '%s'", arg);
        memcpy(name, arg, len);
        name[len] = '\0';
        if (eq)
            inline_value = eq + 1;

        if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0) {
            wl_usage(spec);
            exit(0);
        } else if (strcmp(name, "--check") == 0) {
            if (inline_value)
                wl_usage_error(spec, "--check takes no value");
            run.check = 1;
        } else if (strcmp(name, "--size") == 0) {
            const char *v = wl_option_value(spec, name, inline_value, argc, argv, &i);
            run.size = wl_int_value(spec, "--size", v, spec->min_size, spec->max_size);
        } else {
            const wl_option *o = spec->options;
            while (o && o->name && strcmp(o->name, name) != 0)
                o++;
            if (!o || !o->name)
                wl_usage_error(spec, "unknown option '%s'", arg);
            if (o->kind == WL_OPT_FLAG) {
                if (inline_value)
                    wl_usage_error(spec, "%s takes no value", o->name);
                *(int *)o->dest = 1;
            } else {
                const char *v = wl_option_value(spec, name, inline_value, argc, argv, &i);
                if (o->kind == WL_OPT_INT)
                    *(int64_t *)o->dest = wl_int_value(spec, o->name, v, o->min, o->max);
                else
                    *(const char **)o->dest = v;
            }
        }
    }
    sgc_init();
    return run;
}

uint64_t wl_checksum_value(const wl_checksum *c) {
    /* The finaliser of MurmurHash3: full avalanche of the last state. */
    uint64_t h = c->h;
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ull;
    h ^= h >> 33;
    return h;
}

int wl_finish(const wl_run *run, const wl_checksum *sum, wl_expected_fn expected) {
    uint64_t got = wl_checksum_value(sum);
    printf("checksum %016" PRIx64 "\n", got);
    if (fflush(stdout) != 0 || ferror(stdout))
        wl_fail(run, "cannot write the checksum to standard output");
    if (run->check) {
        uint64_t want = expected(run);
        if (got != want) {
            fprintf(stderr, "%s: check failed: checksum %016" PRIx64 ", expected %016" PRIx64 " (size %" PRId64 ")\n",
                    run->spec->name, got, want, run->size);
            exit(1);
        }
    }
    return 0;
}

void wl_fail(const wl_run *run, const char *fmt, ...) {
    va_list ap;
    fflush(stdout);
    fprintf(stderr, "%s: ", run->spec->name);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    exit(1);
}

void *wl_xmalloc(size_t size) {
    void *p = malloc(size ? size : 1);
    if (!p) {
        fprintf(stderr, "workload: out of memory allocating %zu bytes for the reference computation\n", size);
        exit(1);
    }
    return p;
}

void *wl_xcalloc(size_t n, size_t size) {
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p) {
        fprintf(stderr,
                "workload: out of memory allocating %zu x %zu bytes for the reference "
                "computation\n",
                n, size);
        exit(1);
    }
    return p;
}

uint32_t wl_type(const char *name, size_t fixed_size, uint64_t ptr_map, sgc_var_kind var) {
    size_t words = (fixed_size + 7) / 8; /* pointer bits must lie within the fixed part */
    if (fixed_size > 512 || (words < 64 && (ptr_map >> words) != 0)) {
        fprintf(stderr,
                "workload: type %s: fixed part of %zu bytes with pointer map %#" PRIx64 " is not representable\n", name,
                fixed_size, ptr_map);
        exit(1);
    }
    sgc_type t = {name, (uint32_t)fixed_size, ptr_map, var};
    return sgc_type_register(&t);
}
