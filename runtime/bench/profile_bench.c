/* profile_bench.c - benchmark of the calling-context tree: the incremental
 * stack walk (sgc__profile_stack_current, O(frames pushed since the last
 * sample)) against the full walk (sgc__profile_stack_full, O(depth)).
 *
 * usage: profile-bench [--rounds N] [--calls N]
 *
 * At depth d (10 and 100) the stack is d frames of a few functions.  Three
 * shapes between two samples: "same" (nothing changed), "leaf" (the top
 * frame popped and a frame of another function pushed), "half" (the top d/2
 * frames replaced).  Each call is checked: the incremental node must equal
 * the full walk's.  Times are CPU time per call, median of N rounds.  The
 * profile is encoded and discarded (no SGC_PROFILE), as in a run without a
 * file; nodes are interned on the first round, so later rounds measure the
 * steady state.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sgc_internal.h"
#include "sgc_profile.h"
#include "bench_util.h"

static sgc_func fns[8] = {{"f0", 0}, {"f1", 0}, {"f2", 0}, {"f3", 0}, {"f4", 0}, {"f5", 0}, {"f6", 0}, {"f7", 0}};

/* Replaces the top k of the depth frames (frames[0] is the bottom) with
 * frames of alternating functions, so each replacement is a different
 * stack from the previous one but all are interned after the first round. */
static void replace_top(sgc_frame *frames, int depth, int k, int flip) {
    for (int i = depth - 1; i >= depth - k; i--)
        sgc_frame_pop(&frames[i]);
    for (int i = depth - k; i < depth; i++) {
        frames[i].func = &fns[(i + flip) % 8];
        frames[i].roots = NULL;
        frames[i].nroots = 0;
        sgc_frame_push(&frames[i]);
    }
}

/* ns per call of the walk (full = 1: the full walk) for one shape. */
static double measure(int depth, int k, int full, long calls, int rounds) {
    sgc_frame *frames = calloc((size_t)depth, sizeof *frames);
    for (int i = 0; i < depth; i++) {
        frames[i].func = &fns[i % 8];
        sgc_frame_push(&frames[i]);
    }
    uint64_t *t = calloc((size_t)rounds, sizeof *t);
    uint64_t *base = calloc((size_t)rounds, sizeof *base);
    for (int r = 0; r < rounds; r++) {
        /* The same loop without the walk: the frame pushes it subtracts. */
        uint64_t t0 = cpu_ns();
        for (long c = 0; c < calls; c++)
            if (k)
                replace_top(frames, depth, k, (int)(c & 1));
        base[r] = cpu_ns() - t0;
        t0 = cpu_ns();
        uint32_t sink = 0;
        for (long c = 0; c < calls; c++) {
            if (k)
                replace_top(frames, depth, k, (int)(c & 1));
            sink += full ? sgc__profile_stack_full() : sgc__profile_stack_current();
        }
        t[r] = cpu_ns() - t0;
        if (sgc__profile_stack_current() != sgc__profile_stack_full()) {
            fprintf(stderr, "profile-bench: incremental and full walks disagree at depth %d\n", depth);
            exit(1);
        }
        (void)sink;
    }
    qsort(t, (size_t)rounds, sizeof *t, cmp_u64);
    qsort(base, (size_t)rounds, sizeof *base, cmp_u64);
    double ns = ((double)t[rounds / 2] - (double)base[rounds / 2]) / (double)calls;
    for (int i = depth - 1; i >= 0; i--)
        sgc_frame_pop(&frames[i]);
    free(frames);
    free(t);
    free(base);
    return ns < 0 ? 0 : ns;
}

int main(int argc, char **argv) {
    int rounds = 7;
    long calls = 200000;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--rounds") && i + 1 < argc && atoi(argv[i + 1]) > 0)
            rounds = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--calls") && i + 1 < argc && atol(argv[i + 1]) > 0)
            calls = atol(argv[++i]);
        else {
            fprintf(stderr, "usage: profile-bench [--rounds N] [--calls N]\n");
            return 2;
        }
    }
    unsetenv("SGC_PROFILE");
    sgc_init();
    printf("CCT stack walk, ns per sample (CPU time, median of %d rounds of %ld calls)\n", rounds, calls);
    printf("%6s %-6s %12s %12s %8s\n", "depth", "shape", "incremental", "full walk", "ratio");
    int depths[] = {10, 100};
    for (int d = 0; d < 2; d++) {
        int depth = depths[d];
        struct {
            const char *name;
            int k;
        } shapes[] = {{"same", 0}, {"leaf", 1}, {"half", depth / 2}};
        for (int s = 0; s < 3; s++) {
            double inc = measure(depth, shapes[s].k, 0, calls, rounds);
            double full = measure(depth, shapes[s].k, 1, calls, rounds);
            printf("%6d %-6s %12.1f %12.1f %7.1fx\n", depth, shapes[s].name, inc, full, inc > 0 ? full / inc : 0);
        }
    }
    return 0;
}
