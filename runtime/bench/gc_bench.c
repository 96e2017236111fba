/* gc_bench.c - the collector's micro-benchmarks: allocation cost next to malloc and Boehm GC, minor-collection cost.
 *
 * usage: gc-bench alloc [--n N] [--rounds R]
 *        gc-bench minor [--rounds R]
 *        gc-bench loop N          (for callgrind: N allocations, nothing else)
 *
 * alloc: the same tight loop (allocate a 16-byte object, store into it, read
 *   it back into a checksum, let it die) with sgc_alloc, with glibc
 *   malloc+free, and with Boehm's GC_malloc; rounds interleaved, median CPU
 *   time per allocation, and the ratios from the same run.  The sgc figure
 *   includes its minor collections (all garbage: a walk and a memset per
 *   nursery), the way a program pays for them.  Also the fast path alone:
 *   nursery-sized batches timed between collections.
 * minor: minor-collection throughput (bytes copied per second) for a list of
 *   small nodes and for 256-byte records filling most of a 64 MiB nursery;
 *   the cost of a minor collection with an empty nursery; the cost of one
 *   with a full 1 MiB nursery of garbage.
 * Every loop's checksum and every collection's promoted byte count is
 * checked before its time is reported; a mismatch exits with status 1.
 * CPU time (CLOCK_PROCESS_CPUTIME_ID) is used so that time spent descheduled
 * on a shared machine does not count.
 */
#include <gc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sgc.h"
#include "bench_util.h"

static uint32_t T_SMALL, T_NODE, T_REC;

static void types(void) {
    T_SMALL = sgc_type_register(&(sgc_type){"bench_small", 16, 0, SGC_VAR_NONE});
    T_NODE = sgc_type_register(&(sgc_type){"bench_node", 16, 0x1, SGC_VAR_NONE});
    T_REC = sgc_type_register(&(sgc_type){"bench_record", 256, 0x1, SGC_VAR_NONE});
}

/* The three loops: identical work; the empty asm makes the pointer escape so
 * no compiler may elide the allocation. */
__attribute__((noinline)) static uint64_t loop_sgc(uint64_t n) {
    uint64_t sum = 0;
    for (uint64_t i = 0; i < n; i++) {
        uint64_t *o = sgc_alloc(T_SMALL, 16);
        __asm__ volatile("" : : "r"(o) : "memory");
        o[0] = i;
        sum += o[0];
    }
    return sum;
}

__attribute__((noinline)) static uint64_t loop_malloc(uint64_t n) {
    uint64_t sum = 0;
    for (uint64_t i = 0; i < n; i++) {
        uint64_t *o = malloc(16);
        __asm__ volatile("" : : "r"(o) : "memory");
        o[0] = i;
        sum += o[0];
        free(o);
    }
    return sum;
}

__attribute__((noinline)) static uint64_t loop_boehm(uint64_t n) {
    uint64_t sum = 0;
    for (uint64_t i = 0; i < n; i++) {
        uint64_t *o = GC_malloc(16);
        __asm__ volatile("" : : "r"(o) : "memory");
        o[0] = i;
        sum += o[0];
    }
    return sum;
}

static void check_sum(const char *what, uint64_t got, uint64_t n) {
    if (got != n * (n - 1) / 2) {
        fprintf(stderr, "gc-bench: %s loop checksum %llu, expected %llu\n", what, (unsigned long long)got,
                (unsigned long long)(n * (n - 1) / 2));
        exit(1);
    }
}

static int bench_alloc(uint64_t n, int rounds) {
    GC_INIT();
    sgc_init();
    uint64_t *ts = malloc(3 * (size_t)rounds * sizeof *ts);
    if (!ts)
        return 1;
    /* Warm-up: fault in the nursery and malloc's and Boehm's heaps. */
    check_sum("sgc", loop_sgc(n / 4), n / 4);
    check_sum("malloc", loop_malloc(n / 4), n / 4);
    check_sum("boehm", loop_boehm(n / 4), n / 4);
    sgc_stats s0, s1;
    sgc_get_stats(&s0);
    for (int r = 0; r < rounds; r++) {
        uint64_t t0 = cpu_ns();
        check_sum("sgc", loop_sgc(n), n);
        uint64_t t1 = cpu_ns();
        check_sum("malloc", loop_malloc(n), n);
        uint64_t t2 = cpu_ns();
        check_sum("boehm", loop_boehm(n), n);
        uint64_t t3 = cpu_ns();
        ts[r] = t1 - t0;
        ts[rounds + r] = t2 - t1;
        ts[2 * rounds + r] = t3 - t2;
    }
    sgc_get_stats(&s1);
    if (s1.nursery_objects - s0.nursery_objects != n * (uint64_t)rounds) {
        fprintf(stderr, "gc-bench: the runtime counted %llu allocations, expected %llu\n",
                (unsigned long long)(s1.nursery_objects - s0.nursery_objects),
                (unsigned long long)(n * (uint64_t)rounds));
        return 1;
    }
    /* The fast path alone: nursery-sized batches timed between collections,
     * so no collection falls inside the timed part (the slow path's
     * zeroing of the nursery in chunks ahead of the limit does). */
    uint64_t batch = (uint64_t)(sgc_nursery.end - sgc_nursery.start) / 24 - 1, fast_ns = 0, fast_n = 0;
    for (int i = 0; i < 400; i++) {
        sgc_collect_minor();
        uint64_t t0 = cpu_ns();
        check_sum("sgc", loop_sgc(batch), batch);
        fast_ns += cpu_ns() - t0;
        fast_n += batch;
    }
    double sgc = (double)median_u64(ts, rounds) / (double)n;
    double mal = (double)median_u64(ts + rounds, rounds) / (double)n;
    double boe = (double)median_u64(ts + 2 * rounds, rounds) / (double)n;
    uint64_t minors = s1.minor_collections - s0.minor_collections;
    double gc_share = (double)(s1.minor_ns - s0.minor_ns) / (double)(n * (uint64_t)rounds);
    printf("alloc: %llu allocations of 16 bytes per round, %d rounds, median CPU time per allocation\n",
           (unsigned long long)n, rounds);
    printf("  sgc_alloc        %7.3f ns  (24-byte footprint; collections included: %llu minor collections,\n"
           "                              wall-clock time in them %.3f ns/alloc, descheduled time included)\n",
           sgc, (unsigned long long)minors, gc_share);
    printf(
        "  sgc fast path    %7.3f ns  (nursery-sized batches between collections, nursery zeroing included, %llu allocations)\n",
        (double)fast_ns / (double)fast_n, (unsigned long long)fast_n);
    printf("  malloc+free      %7.3f ns  ratio %.1fx\n", mal, mal / sgc);
    printf("  Boehm GC_malloc  %7.3f ns  ratio %.1fx\n", boe, boe / sgc);
    free(ts);
    return 0;
}

static int bench_minor(int rounds) {
    setenv("SGC_NURSERY", "64M", 0);
    sgc_init();
    sgc_obj root = NULL;
    SGC_FRAME(&root);
    struct {
        const char *name;
        uint32_t tid;
        size_t payload;
    } shapes[] = {
        {"list of 24-byte nodes", T_NODE, 16},
        {"list of 264-byte records", T_REC, 256},
    };
    for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++) {
        uint64_t *ns = malloc((size_t)rounds * sizeof *ns), bytes = 0;
        if (!ns)
            return 1;
        for (int r = 0; r < rounds; r++) {
            root = NULL;
            size_t fp = SGC_FOOTPRINT(shapes[k].payload);
            uint64_t count = (48u << 20) / fp;
            for (uint64_t i = 0; i < count; i++) {
                sgc_obj *o = sgc_alloc(shapes[k].tid, shapes[k].payload);
                o[0] = root;
                root = o;
            }
            sgc_stats a, b;
            sgc_get_stats(&a);
            uint64_t t0 = cpu_ns();
            sgc_collect_minor();
            uint64_t t1 = cpu_ns();
            sgc_get_stats(&b);
            if (b.bytes_promoted - a.bytes_promoted != count * fp || b.minor_collections != a.minor_collections + 1) {
                fprintf(stderr, "gc-bench: promoted %llu bytes, expected %llu\n",
                        (unsigned long long)(b.bytes_promoted - a.bytes_promoted), (unsigned long long)(count * fp));
                return 1;
            }
            ns[r] = t1 - t0;
            bytes = count * fp;
            root = NULL;
            sgc_collect_major();
        }
        uint64_t m = median_u64(ns, rounds);
        printf("minor collection copying %s: %.1f MiB in %.2f ms, %.0f MiB/s (median of %d)\n", shapes[k].name,
               (double)bytes / 1048576.0, (double)m / 1e6, (double)bytes / 1048576.0 / ((double)m / 1e9), rounds);
        free(ns);
    }
    /* An empty minor collection: roots, hooks, bookkeeping, no copying. */
    root = NULL;
    sgc_collect_major();
    const int empties = 20000;
    uint64_t t0 = cpu_ns();
    for (int i = 0; i < empties; i++)
        sgc_collect_minor();
    uint64_t t1 = cpu_ns();
    printf("empty minor collection: %.2f us each (%d collections)\n", (double)(t1 - t0) / empties / 1e3, empties);
    /* A full 1 MiB of garbage: the walk that counts objects and the memset. */
    const int fulls = 200;
    uint64_t spent = 0;
    for (int i = 0; i < fulls; i++) {
        for (int j = 0; j < (1 << 20) / 24; j++)
            sgc_alloc(T_SMALL, 16);
        uint64_t a = cpu_ns();
        sgc_collect_minor();
        spent += cpu_ns() - a;
    }
    printf("minor collection of 1 MiB of dead 24-byte objects: %.1f us each (%.2f ns per dead object)\n",
           (double)spent / fulls / 1e3, (double)spent / fulls / ((1 << 20) / 24));
    return 0;
}

static uint64_t arg_u64(const char *text) {
    char *end;
    unsigned long long v = strtoull(text, &end, 10);
    if (*text == '\0' || *end != '\0') {
        fprintf(stderr, "gc-bench: %s: not a number\n", text);
        exit(2);
    }
    return v;
}

int main(int argc, char **argv) {
    types();
    if (argc >= 2 && strcmp(argv[1], "loop") == 0 && argc == 3) {
        uint64_t n = arg_u64(argv[2]);
        check_sum("sgc", loop_sgc(n), n);
        return 0;
    }
    uint64_t n = 20000000;
    int rounds = 5;
    for (int i = 2; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--n") == 0)
            n = arg_u64(argv[i + 1]);
        else if (strcmp(argv[i], "--rounds") == 0)
            rounds = (int)arg_u64(argv[i + 1]);
        else
            argc = 0;
    }
    if (argc >= 2 && argc % 2 == 0 && rounds > 0 && n > 0) {
        if (strcmp(argv[1], "alloc") == 0)
            return bench_alloc(n, rounds);
        if (strcmp(argv[1], "minor") == 0)
            return bench_minor(rounds);
    }
    fprintf(stderr, "usage: gc-bench alloc [--n N] [--rounds R] | minor [--rounds R] | loop N\n");
    return 2;
}
