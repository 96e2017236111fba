/* sample_bench.c - benchmarks of the allocation sampler: the cost of one
 * sample at several stack depths, and the overhead of sampling on an
 * allocation-heavy loop at periods from 32 KiB to 32 MiB.
 *
 * usage: sample-bench cost [--profile FILE] [--rounds N]
 *        sample-bench overhead [--profile FILE] [--rounds N] [--mib M]
 *        sample-bench loop [--profile FILE] [--period P] [--mib M]
 *        sample-bench stack [--profile FILE] [--period P] [--depth D] [--shape S] [--n N]
 *
 * cost: at depth d (1, 10, 100 frames) the innermost function allocates
 *   64-byte objects with sampling off and with a period of 64 bytes (every
 *   allocation is one sample, its record written to the profile, its
 *   survival settled at the next minor collection); the difference per
 *   allocation is the cost of a sample.  Three stack shapes: "same" (every
 *   sample from the same frames), "leaf" (the innermost frame is popped and
 *   pushed again between allocations), "fresh" (all d frames are popped and
 *   pushed again): the profile's calling-context tree makes a sample cost
 *   O(frames pushed since the previous sample), so only "fresh" grows with d.
 *   Frame pushes are done in both the off and the on runs.
 * overhead: a loop that allocates M MiB (default 256) of objects of mixed
 *   sizes, a few percent of them kept alive for a while in a ring, runs with
 *   sampling off and on at each period in off/on pairs; prints the median
 *   and quartiles of the pairs' ratios, and the overhead predicted from the
 *   samples taken and the per-sample cost (less noisy than the measured one
 *   on a shared machine).
 * loop: one churn run at --period P (0 = off), for counting instructions
 *   under callgrind (runtime/bench/sample_instructions.sh): the exact,
 *   noise-free form of the overhead.
 * stack: one run of the cost benchmark's loop (N allocations of 64 bytes at
 *   depth D, default 1, with the stack shape S, default same) at --period P
 *   (0 = off; 64 makes every allocation one sample), then a minor collection
 *   that settles the last survivals, for counting instructions under
 *   callgrind (runtime/bench/sample_cost.py): "same" is a cached stack,
 *   "fresh" interns exactly D new frames per sample.
 * Every timing is checked for the work it claims: the sample count must be
 * exactly floor(bytes / P) (fixed mode), or the run is reported as failed.
 * The profile goes to FILE (default /tmp/sample-bench.<pid>.prof, removed at
 * the end), so writing it is part of the cost measured.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "sgc.h"
#include "bench_util.h"

static uint32_t tid_small, tid_node;

static uint64_t points(void) {
    sgc_stats st;
    sgc_get_stats(&st);
    return st.alloc_sample_points;
}

/* ---- cost ----------------------------------------------------------------- */

enum shape { SHAPE_SAME, SHAPE_LEAF, SHAPE_FRESH };
static const char *shape_name[] = {"same", "leaf", "fresh"};

static sgc_func bench_funcs[100];
static char bench_names[100][16];

/* Allocates n 64-byte objects with frames f[0..depth-1] pushed, re-pushing
 * the ones the shape asks for before every allocation. */
__attribute__((noinline)) static uintptr_t alloc_at_depth(int depth, enum shape shape, long n) {
    sgc_frame f[100];
    for (int i = 0; i < depth; i++) {
        f[i].func = &bench_funcs[i];
        f[i].roots = NULL;
        f[i].nroots = 0;
        sgc_frame_push(&f[i]);
    }
    int repush = shape == SHAPE_SAME ? 0 : shape == SHAPE_LEAF ? 1 : depth;
    uintptr_t sum = 0;
    for (long k = 0; k < n; k++) {
        for (int i = depth - 1; i >= depth - repush; i--)
            sgc_frame_pop(&f[i]);
        for (int i = depth - repush; i < depth; i++)
            sgc_frame_push(&f[i]);
        sum += (uintptr_t)sgc_alloc(tid_small, 56) & 0xff;
    }
    for (int i = depth - 1; i >= 0; i--)
        sgc_frame_pop(&f[i]);
    return sum;
}

static int run_cost(int rounds) {
    const long n = 200000;
    const int depths[] = {1, 10, 100};
    printf("# per-sample cost: %ld allocations of 64 bytes, period 64 (one sample each), median of %d rounds\n", n,
           rounds);
    printf("%-6s %-6s %12s %12s %12s\n", "depth", "stack", "off_ns/alloc", "on_ns/alloc", "ns/sample");
    int failed = 0;
    for (int di = 0; di < 3; di++) {
        for (int s = SHAPE_SAME; s <= SHAPE_FRESH; s++) {
            uint64_t off[64], on[64];
            for (int r = 0; r < rounds; r++) {
                sgc_collect_minor();
                uint64_t t0 = cpu_ns();
                alloc_at_depth(depths[di], (enum shape)s, n);
                off[r] = cpu_ns() - t0;
                sgc_sampling_start(64, SGC_SAMPLE_FIXED, 0);
                sgc_collect_minor();
                uint64_t p0 = points();
                t0 = cpu_ns();
                alloc_at_depth(depths[di], (enum shape)s, n);
                sgc_collect_minor(); /* the last survivals settled: part of the cost */
                on[r] = cpu_ns() - t0;
                uint64_t got = points() - p0;
                sgc_sampling_stop();
                if (got != (uint64_t)n) {
                    fprintf(stderr, "sample-bench: depth %d: %llu samples, expected %ld\n", depths[di],
                            (unsigned long long)got, n);
                    failed = 1;
                }
            }
            double off_ns = (double)median_u64(off, rounds) / n, on_ns = (double)median_u64(on, rounds) / n;
            printf("%-6d %-6s %12.1f %12.1f %12.1f\n", depths[di], shape_name[s], off_ns, on_ns, on_ns - off_ns);
        }
    }
    return failed;
}

/* ---- overhead ---------------------------------------------------------------- */

typedef struct node {
    struct node *next; /* pointer field */
    uint64_t value;    /* data */
} node;

#define RING 4096
static sgc_obj ring[RING]; /* a few objects live for a while (global roots) */

/* Allocates about mib MiB: short lists of nodes and byte buffers of mixed
 * sizes; every 64th object stays in the ring until overwritten.  Returns the
 * footprint bytes allocated. */
__attribute__((noinline)) static uint64_t churn(uint64_t mib) {
    SGC_FRAME();
    uint64_t bytes = 0, goal = mib << 20, x = 88172645463325252ull;
    unsigned slot = 0;
    while (bytes < goal) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        sgc_obj o;
        if (x & 1) {
            o = SGC_NEW(tid_node, node);
            ((node *)o)->value = x;
            bytes += SGC_FOOTPRINT(sizeof(node));
        } else {
            size_t n = (size_t)(x >> 8) % 240;
            o = sgc_alloc(tid_small, n);
            bytes += SGC_FOOTPRINT(n);
        }
        if ((x & 0x7e) == 0) {
            ring[slot++ % RING] = o;
        }
    }
    return bytes;
}

/* One timed churn run with sampling at period (0 = off); checks the count. */
static uint64_t timed_churn(uint64_t period, uint64_t mib, uint64_t *bytes, int *failed) {
    if (period)
        sgc_sampling_start(period, SGC_SAMPLE_FIXED, 0);
    sgc_collect_minor();
    uint64_t p0 = points();
    uint64_t t0 = cpu_ns();
    *bytes = churn(mib);
    uint64_t dt = cpu_ns() - t0;
    uint64_t got = points() - p0;
    sgc_sampling_stop();
    if (period && got != *bytes / period) {
        fprintf(stderr, "sample-bench: P=%llu: %llu samples, expected %llu\n", (unsigned long long)period,
                (unsigned long long)got, (unsigned long long)(*bytes / period));
        *failed = 1;
    }
    return dt;
}

static const uint64_t periods[] = {32u << 10, 64u << 10, 128u << 10, 256u << 10, 512u << 10, 1u << 20,
                                   2u << 20,  4u << 20,  8u << 20,   16u << 20,  32u << 20};
enum { NP = sizeof periods / sizeof periods[0] };

static void period_label(uint64_t p, char *buf, size_t n) {
    if (p >= (1u << 20))
        snprintf(buf, n, "%lluM", (unsigned long long)(p >> 20));
    else
        snprintf(buf, n, "%lluK", (unsigned long long)(p >> 10));
}

/* Paired design: every measured run with sampling is next to a run without
 * (which one goes first alternates by round), and the overhead is the median
 * of the per-pair ratios, so slow drifts of a shared machine cancel. */
static int run_overhead(int rounds, uint64_t mib, double sample_ns) {
    uint64_t bytes = 0, base[64];
    double ratio[NP][64];
    int failed = 0;
    churn(16); /* warm up: page in the nursery and the old generation */
    for (int r = 0; r < rounds; r++) {
        for (int k = 0; k < NP; k++) {
            int i = (r % 2) ? NP - 1 - k : k;
            uint64_t off, on;
            if ((r + k) % 2) {
                off = timed_churn(0, mib, &bytes, &failed);
                on = timed_churn(periods[i], mib, &bytes, &failed);
            } else {
                on = timed_churn(periods[i], mib, &bytes, &failed);
                off = timed_churn(0, mib, &bytes, &failed);
            }
            ratio[i][r] = (double)on / (double)off;
            if (k == 0)
                base[r] = off;
        }
    }
    uint64_t b = median_u64(base, rounds);
    printf("# overhead: %llu MiB allocated per run, %d rounds of off/on pairs, baseline %.1f ms (CPU)\n",
           (unsigned long long)(bytes >> 20), rounds, b / 1e6);
    printf("%-10s %10s %14s %12s %12s %14s\n", "period", "samples", "overhead_%", "q1_%", "q3_%", "predicted_%");
    for (int i = 0; i < NP; i++) {
        uint64_t samples = bytes / periods[i];
        double v[64];
        for (int r = 0; r < rounds; r++)
            v[r] = ratio[i][r];
        /* sort the ratios (few): insertion sort */
        for (int a = 1; a < rounds; a++)
            for (int c = a; c > 0 && v[c - 1] > v[c]; c--) {
                double t = v[c];
                v[c] = v[c - 1];
                v[c - 1] = t;
            }
        double med = rounds % 2 ? v[rounds / 2] : (v[rounds / 2 - 1] + v[rounds / 2]) / 2;
        double predicted = 100.0 * (double)samples * sample_ns / (double)b;
        char label[32];
        period_label(periods[i], label, sizeof label);
        printf("%-10s %10llu %14.2f %12.2f %12.2f %14.3f\n", label, (unsigned long long)samples, 100.0 * (med - 1),
               100.0 * (v[rounds / 4] - 1), 100.0 * (v[(3 * rounds) / 4] - 1), predicted);
    }
    return failed;
}

/* One churn run at period (0 = off), for instruction counting under
 * callgrind (bench-sample-instructions). */
static int run_loop(uint64_t period, uint64_t mib) {
    uint64_t bytes;
    int failed = 0;
    timed_churn(period, mib, &bytes, &failed);
    printf("%llu bytes\n", (unsigned long long)bytes);
    return failed;
}

/* Per-sample cost at depth 10, same stack, for the overhead prediction. */
/* One run of alloc_at_depth at period (0 = off), for instruction counting
 * under callgrind (bench-sample-cost).  At a period of 64 the count must be
 * exactly n. */
static int run_stack(uint64_t period, int depth, enum shape shape, long n) {
    if (period)
        sgc_sampling_start(period, SGC_SAMPLE_FIXED, 0);
    sgc_collect_minor();
    uint64_t p0 = points();
    alloc_at_depth(depth, shape, n);
    sgc_collect_minor(); /* the last survivals settled */
    uint64_t got = points() - p0;
    uint64_t want = period ? (uint64_t)n * 64 / period : 0;
    sgc_sampling_stop();
    printf("%llu samples\n", (unsigned long long)got);
    if (got != want) {
        fprintf(stderr, "sample-bench: stack: %llu sample points, expected %llu\n", (unsigned long long)got,
                (unsigned long long)want);
        return 1;
    }
    return 0;
}

static double quick_sample_ns(void) {
    uint64_t off[5], on[5];
    const long n = 100000;
    for (int r = 0; r < 5; r++) {
        uint64_t t0 = cpu_ns();
        alloc_at_depth(10, SHAPE_SAME, n);
        off[r] = cpu_ns() - t0;
        sgc_sampling_start(64, SGC_SAMPLE_FIXED, 0);
        t0 = cpu_ns();
        alloc_at_depth(10, SHAPE_SAME, n);
        sgc_collect_minor();
        on[r] = cpu_ns() - t0;
        sgc_sampling_stop();
    }
    return ((double)median_u64(on, 5) - (double)median_u64(off, 5)) / n;
}

static void usage(FILE *to) {
    fprintf(to, "usage: sample-bench cost|overhead|loop|stack [--profile FILE] [--rounds N] [--mib M] [--period P]\n"
                "                    [--depth D] [--shape same|leaf|fresh] [--n N]\n");
}

/* The options after the benchmark's name. */
typedef struct bench_opts {
    const char *profile; /* --profile, or NULL: a temporary file */
    int rounds;
    uint64_t mib, period;
    int depth;
    enum shape shape;
    long nallocs;
} bench_opts;

/* The value of a numeric option in [lo, hi], or -1 with the message. */
static int parse_u64(const char *opt, const char *text, uint64_t lo, uint64_t hi, const char *expected, uint64_t *out) {
    char *end;
    errno = 0;
    unsigned long long v = strtoull(text, &end, 10);
    if (*text == '-' || *end || end == text || errno || v < lo || v > hi) {
        fprintf(stderr, "sample-bench: %s %s: expected %s\n", opt, text, expected);
        return -1;
    }
    *out = v;
    return 0;
}

/* --shape's value, or -1 with the message. */
static int parse_shape(const char *text, enum shape *out) {
    for (int k = 0; k < 3; k++)
        if (!strcmp(text, shape_name[k])) {
            *out = (enum shape)k;
            return 0;
        }
    fprintf(stderr, "sample-bench: --shape %s: expected same, leaf or fresh\n", text);
    return -1;
}

/* One option with its value at argv[i + 1]: 1 if taken, 0 if not an
 * option of ours, -1 if its value is refused (with the message). */
static int parse_opt(const char *opt, const char *val, bench_opts *o) {
    uint64_t v;
    if (!strcmp(opt, "--profile")) {
        o->profile = val;
        return 1;
    }
    if (!strcmp(opt, "--shape"))
        return parse_shape(val, &o->shape) ? -1 : 1;
    if (!strcmp(opt, "--rounds")) {
        if (parse_u64(opt, val, 1, 64, "1 to 64", &v))
            return -1;
        o->rounds = (int)v;
    } else if (!strcmp(opt, "--period")) {
        if (parse_u64(opt, val, 0, (uint64_t)1 << 40, "bytes, 0 to 2^40", &v))
            return -1;
        o->period = v;
    } else if (!strcmp(opt, "--depth")) {
        if (parse_u64(opt, val, 1, 100, "1 to 100", &v))
            return -1;
        o->depth = (int)v;
    } else if (!strcmp(opt, "--n")) {
        if (parse_u64(opt, val, 1, 100000000, "1 to 100000000", &v))
            return -1;
        o->nallocs = (long)v;
    } else if (!strcmp(opt, "--mib")) {
        if (parse_u64(opt, val, 1, 65536, "1 to 65536", &v))
            return -1;
        o->mib = v;
    } else {
        return 0;
    }
    return 1;
}

/* The options from argv[2] on: 0, or 2 (the exit status) with the message. */
static int parse_opts(int argc, char **argv, bench_opts *o) {
    *o = (bench_opts){NULL, 7, 256, 0, 1, SHAPE_SAME, 200000};
    for (int i = 2; i < argc; i++) {
        int r = i + 1 < argc ? parse_opt(argv[i], argv[i + 1], o) : 0;
        if (r < 0)
            return 2;
        if (r == 0) {
            fprintf(stderr, "sample-bench: unknown or incomplete argument \"%s\"\n", argv[i]);
            usage(stderr);
            return 2;
        }
        i++;
    }
    return 0;
}

/* The runtime started with the profile at path, the benchmark's types,
 * functions and roots registered. */
static void bench_init(const char *path) {
    setenv("SGC_PROFILE", path, 1);
    unsetenv("SGC_ALLOC_PERIOD");
    unsetenv("SGC_GC_STRESS");
    unsetenv("SGC_VERIFY");
    sgc_init();
    static const sgc_type small = {"bench_bytes", 0, 0, SGC_VAR_BYTES};
    static const sgc_type nodet = {"bench_node", sizeof(node), 1, SGC_VAR_NONE};
    tid_small = sgc_type_register(&small);
    tid_node = sgc_type_register(&nodet);
    for (int i = 0; i < 100; i++) {
        snprintf(bench_names[i], sizeof bench_names[i], "bench_f%d", i);
        bench_funcs[i].name = bench_names[i];
    }
    for (int i = 0; i < RING; i++)
        sgc_global_root(&ring[i]);
}

/* Runs the benchmark what: its failure count. */
static int run_bench(const char *what, const bench_opts *o) {
    if (!strcmp(what, "cost"))
        return run_cost(o->rounds);
    if (!strcmp(what, "loop"))
        return run_loop(o->period, o->mib);
    if (!strcmp(what, "stack"))
        return run_stack(o->period, o->depth, o->shape, o->nallocs);
    double ns = quick_sample_ns();
    printf("# per-sample cost used for the prediction (depth 10, same stack): %.1f ns\n", ns);
    return run_overhead(o->rounds, o->mib, ns);
}

int main(int argc, char **argv) {
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    const char *what = argv[1];
    if (!strcmp(what, "--help") || !strcmp(what, "-h")) {
        usage(stdout);
        return 0;
    }
    if (strcmp(what, "cost") && strcmp(what, "overhead") && strcmp(what, "loop") && strcmp(what, "stack")) {
        fprintf(stderr, "sample-bench: unknown benchmark \"%s\" (expected cost, overhead, loop or stack)\n", what);
        return 2;
    }
    bench_opts o;
    if (parse_opts(argc, argv, &o))
        return 2;
    char tmp[64];
    const char *profile = o.profile;
    if (!profile) {
        snprintf(tmp, sizeof tmp, "/tmp/sample-bench.%d.prof", (int)getpid());
        profile = tmp;
    }
    bench_init(profile);
    int failed = run_bench(what, &o);
    sgc_shutdown(); /* the profile is complete before it is removed */
    if (profile == tmp)
        unlink(tmp);
    return failed;
}
