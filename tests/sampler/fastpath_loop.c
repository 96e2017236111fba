/* fastpath_loop.c - an allocation loop for the fast-path check: run under
 * callgrind with sampling off, on with a period no allocation reaches, and in
 * poisson mode likewise; the loop function's own instruction count (the
 * inlined fast path, the calls into the slow path excluded) must not differ.
 * usage: fastpath-loop off|fixed|poisson [N] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sgc.h"

static uint32_t tid;

/* n allocations of 24-byte payloads (32-byte footprint), dropped at once. */
__attribute__((noinline)) uintptr_t fastpath_loop(long n) {
    uintptr_t sum = 0;
    for (long i = 0; i < n; i++)
        sum += (uintptr_t)sgc_alloc(tid, 24) & 0xff;
    return sum;
}

int main(int argc, char **argv) {
    if (argc < 2 || argc > 3) {
        fprintf(stderr, "usage: fastpath-loop off|fixed|poisson [N]\n");
        return 2;
    }
    long n = argc == 3 ? atol(argv[2]) : 1000000;
    sgc_init();
    static const sgc_type t = {"fastpath_obj", 24, 0, SGC_VAR_NONE};
    tid = sgc_type_register(&t);
    /* A period far beyond what the loop allocates: the same slow-path
     * entries (nursery full) as with sampling off. */
    uint64_t huge = (uint64_t)1 << 40;
    if (!strcmp(argv[1], "fixed"))
        sgc_sampling_start(huge, SGC_SAMPLE_FIXED, 0);
    else if (!strcmp(argv[1], "poisson"))
        sgc_sampling_start(huge, SGC_SAMPLE_POISSON, 1);
    else if (strcmp(argv[1], "off")) {
        fprintf(stderr, "fastpath-loop: unknown mode \"%s\" (expected off, fixed or poisson)\n", argv[1]);
        return 2;
    }
    printf("%lu\n", (unsigned long)fastpath_loop(n));
    return 0;
}
