/* timer_stress.c - stress test: a GC-heavy program (trees built and
 * dropped, a survivor set, large objects, collections forced now and then)
 * for argv[1] seconds under whatever SGC_* the environment sets (the test
 * uses 10 kHz time sampling and 4 KiB allocation sampling).  At the end it
 * completes the profile, reads it back and checks the accounting:
 * time samples written == taken - dropped, every one of them in the
 * profile, every allocation sample too.  Exit 0 if all holds, 1 if not. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "sgc_internal.h"
#include "sgc_profread.h"

typedef struct tree {
    sgc_obj left, right;
    uint64_t value;
} tree;

static uint32_t T_TREE, T_BLOB;
static sgc_obj keep[64];

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static sgc_obj build(int depth) {
    sgc_obj t = NULL, l = NULL, r = NULL;
    SGC_FRAME(&t, &l, &r);
    if (depth > 0) {
        l = build(depth - 1);
        r = build(depth - 1);
    }
    t = SGC_NEW(T_TREE, tree);
    ((tree *)t)->left = l;
    ((tree *)t)->right = r;
    ((tree *)t)->value = (uint64_t)depth;
    return t;
}

static uint64_t check(sgc_obj t) {
    SGC_FRAME(&t);
    if (!t)
        return 0;
    return 1 + check(((tree *)t)->left) + check(((tree *)t)->right);
}

static int round_(uint64_t i) {
    sgc_obj t = NULL, blob = NULL;
    SGC_FRAME(&t, &blob);
    t = build(10);
    if (check(t) != 2047)
        return -1;
    if (i % 7 == 0)
        keep[i % 64] = t; /* survivors into the old generation (a global root: no barrier) */
    if (i % 5 == 0)
        blob = sgc_alloc(T_BLOB, 20000 + (i % 13) * 1000); /* large object */
    if (i % 97 == 0)
        sgc_collect_major();
    return 0;
}

int main(int argc, char **argv) {
    double secs = argc > 1 ? atof(argv[1]) : 4;
    SGC_FRAME();
    T_TREE = sgc_type_register(&(sgc_type){"tree", sizeof(tree), 3, SGC_VAR_NONE});
    T_BLOB = sgc_type_register(&(sgc_type){"blob", 0, 0, SGC_VAR_BYTES});
    for (int i = 0; i < 64; i++)
        sgc_global_root(&keep[i]);
    double end = now_s() + secs;
    uint64_t rounds = 0;
    while (now_s() < end)
        if (round_(rounds++) != 0) {
            fprintf(stderr, "timer_stress: heap corrupted in round %llu\n", (unsigned long long)rounds);
            return 1;
        }
    sgc_shutdown();
    sgc_stats s;
    sgc_get_stats(&s);
    printf("rounds %llu, time samples %llu taken, %llu dropped, %llu written; alloc samples %llu; "
           "minor %llu, major %llu\n",
           (unsigned long long)rounds, (unsigned long long)s.time_samples, (unsigned long long)s.time_samples_dropped,
           (unsigned long long)s.time_samples_written, (unsigned long long)s.alloc_samples,
           (unsigned long long)s.minor_collections, (unsigned long long)s.major_collections);
    int bad = 0;
    if (s.time_samples_written != s.time_samples - s.time_samples_dropped) {
        fprintf(stderr, "timer_stress: written %llu != taken %llu - dropped %llu\n",
                (unsigned long long)s.time_samples_written, (unsigned long long)s.time_samples,
                (unsigned long long)s.time_samples_dropped);
        bad = 1;
    }
    if (!s.time_samples || !s.minor_collections) {
        fprintf(stderr, "timer_stress: no time samples or no collections: nothing was stressed\n");
        bad = 1;
    }
    const char *path = getenv("SGC_PROFILE");
    if (path) {
        sgc_pr_reader r;
        if (sgc_pr_open(&r, path) != 0 || sgc_pr_load(&r) != 0) {
            fprintf(stderr, "timer_stress: %s: %s\n", path, r.err);
            return 1;
        }
        uint64_t gc_samples = 0;
        for (size_t i = 0; i < r.ntimes; i++)
            gc_samples += r.times[i].phase != 0;
        printf("profile: %zu time samples (%llu during GC), %llu dropped, %zu allocation samples, %zu GC events\n",
               r.ntimes, (unsigned long long)gc_samples, (unsigned long long)r.dropped, r.nallocs, r.ngcs);
        if (r.ntimes != s.time_samples_written || r.dropped != s.time_samples_dropped) {
            fprintf(stderr,
                    "timer_stress: the profile holds %zu time samples and %llu dropped, the stats say "
                    "%llu and %llu\n",
                    r.ntimes, (unsigned long long)r.dropped, (unsigned long long)s.time_samples_written,
                    (unsigned long long)s.time_samples_dropped);
            bad = 1;
        }
        if (r.nallocs != s.alloc_samples) {
            fprintf(stderr, "timer_stress: the profile holds %zu allocation samples, the stats say %llu\n", r.nallocs,
                    (unsigned long long)s.alloc_samples);
            bad = 1;
        }
        if (r.ngcs != s.minor_collections + s.major_collections) {
            fprintf(stderr, "timer_stress: %zu GC events for %llu collections\n", r.ngcs,
                    (unsigned long long)(s.minor_collections + s.major_collections));
            bad = 1;
        }
        sgc_pr_close(&r);
    }
    return bad;
}
