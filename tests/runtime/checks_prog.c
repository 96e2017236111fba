/* checks_prog.c - breaks one of the runtime's checked invariants on purpose
 * (tests/runtime/checks_check.sh).  Built against the checked runtime
 * (SGC_CHECKS=1), each mode but "none" must abort with the invariant's
 * message; "none" does the same work without the breach and exits 0, so a
 * failure of the others is the breach's and nothing else's.
 *
 * usage: checks-prog none|pop|remaining
 *   pop        pops the outer of two frames first (sgc.h: sgc_frame_pop
 *              pops the innermost frame)
 *   remaining  sets the allocation sampler's distance to the next sample
 *              point to 0 while sampling, then reads the stats, which
 *              accounts the bytes first (sgc_sample.h: remaining >= 1)
 */
#include <stdio.h>
#include <string.h>

#include "sgc.h"
#include "sgc_sample.h"

static sgc_func fn_outer = {"outer", 0}, fn_inner = {"inner", 0};

int main(int argc, char **argv) {
    if (argc != 2 || (strcmp(argv[1], "none") && strcmp(argv[1], "pop") && strcmp(argv[1], "remaining"))) {
        fprintf(stderr, "usage: checks-prog none|pop|remaining\n");
        return 2;
    }
    int pop = !strcmp(argv[1], "pop"), remaining = !strcmp(argv[1], "remaining");
    sgc_init();
    static const sgc_type pair = {"pair", 16, 3, SGC_VAR_NONE};
    uint32_t tid = sgc_type_register(&pair);
    if (sgc_sampling_start(4096, SGC_SAMPLE_FIXED, 1) != 0) {
        fprintf(stderr, "checks-prog: sampling did not start\n");
        return 1;
    }
    sgc_frame outer = {0}, inner = {0};
    outer.func = &fn_outer;
    inner.func = &fn_inner;
    sgc_frame_push(&outer);
    sgc_frame_push(&inner);
    for (int i = 0; i < 1000; i++)
        (void)sgc_alloc(tid, 16);
    if (pop) {
        sgc_frame_pop(&outer); /* the breach: inner is still the top */
        sgc_frame_pop(&inner);
    } else {
        sgc_frame_pop(&inner);
        sgc_frame_pop(&outer);
    }
    if (remaining) {
        sgc_collect_minor();        /* the nursery's bytes accounted: the next sync counts none */
        sgc__sampler.remaining = 0; /* the breach */
    }
    sgc_stats st;
    sgc_get_stats(&st);
    printf("checks-prog: %llu allocation samples\n", (unsigned long long)st.alloc_samples);
    sgc_shutdown();
    return 0;
}
