/* deep_exit.c - test helper: writes a profile to argv[1], records one time
 * sample ten frames deep, then calls exit(3) from there. */
#include <stdlib.h>

#include "sgc_internal.h"
#include "sgc_profile.h"

static void d(int n) {
    static sgc_func fn = {"d", 0};
    SGC_FRAME_FN(&fn);
    if (n <= 0)
        return;
    if (n > 1) {
        d(n - 1);
        return;
    }
    sgc__profile_time_sample(sgc__now_ns(), sgc__profile_stack_current(), SGC_PHASE_MUTATOR);
    exit(3);
}

int main(int argc, char **argv) {
    if (argc != 2)
        return 2;
    setenv("SGC_PROFILE", argv[1], 1);
    sgc_init();
    static sgc_func fn = {"main", 0};
    SGC_FRAME_FN(&fn);
    d(10);
    return 0;
}
