/* tc_count.c - gperftools' sample count (workloads/peers/pr_gperftools.cc:
 * the stack captures of sampled allocations, counted where tcmalloc makes
 * them) against tcmalloc's own list of sampled objects: allocates BYTES in
 * 32-byte objects and frees none, so every sampled object is still
 * allocated, then prints "samples N live M" (pr_sampler_read).  Run with
 * TCMALLOC_SAMPLE_PARAMETER; tests/peers/c_peers.sh checks N = M. */
#include <stdio.h>
#include <stdlib.h>

#include "../../workloads/peers/pr_common.h"

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: tc_count BYTES\n");
        return 2;
    }
    long long bytes = atoll(argv[1]);
    if (bytes <= 0) {
        fprintf(stderr, "tc_count: BYTES must be positive\n");
        return 2;
    }
    void **keep = calloc((size_t)(bytes / 32), sizeof *keep); /* before the work: one large block */
    if (!keep)
        return 1;
    for (long long i = 0; i < bytes / 32; i++)
        if (!(keep[i] = malloc(32)))
            return 1;
    pr_sampler s = {0};
    pr_sampler_read(&s);
    if (!s.samples_known || !s.live_known) {
        fprintf(stderr, "tc_count: %s\n", s.problem ? s.problem : "no count");
        return 1;
    }
    printf("samples %llu live %llu\n", (unsigned long long)s.samples, (unsigned long long)s.live);
    return 0;
}
