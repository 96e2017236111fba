/* acc_sites.c - test helper for the accuracy tests (tests/accuracy/
 * accuracy_check.sh): allocates from named sites in a pattern whose exact
 * profile is worked out by hand there.  Settings come from the environment
 * (SGC_ALLOC_PERIOD, SGC_PROFILE, SGC_STATS, ...).
 *
 *   acc_sites sites        the hand-computed profile (sizes, sites, types, survival)
 *   acc_sites two          alpha and beta, 100 objects of 32 bytes each
 *   acc_sites one          alpha only, 200 objects of 32 bytes
 *   acc_sites other        epsilon only, 100 objects of 32 bytes
 *   acc_sites periodic N   N rounds of a: 16 bytes, b: 48 bytes, c: 64 bytes
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sgc.h"

static uint32_t t_a, t_b;
static sgc_obj kept[12];

static void alpha(int n, int keep_every) {
    SGC_FRAME();
    for (int i = 0; i < n; i++) {
        sgc_obj o = sgc_alloc(t_a, 24); /* footprint 32 */
        if (keep_every && i % keep_every == 0)
            kept[i / keep_every] = o;
    }
}

static void beta(int n) {
    SGC_FRAME();
    for (int i = 0; i < n; i++)
        sgc_alloc(t_b, 100); /* footprint 112 */
}

static void gamma_(int n) {
    static sgc_func fn = {"gamma", 0};
    SGC_FRAME_FN(&fn);
    for (int i = 0; i < n; i++) {
        sgc_obj o = sgc_alloc(t_b, 9000); /* footprint 9008: a large object */
        if (i < 2)
            kept[10 + i] = o;
    }
}

static void alpha_gamma(void) {
    static sgc_func fn = {"alpha", 0};
    SGC_FRAME_FN(&fn);
    gamma_(10);
}

static void delta(int n) {
    SGC_FRAME();
    for (int i = 0; i < n; i++)
        sgc_alloc(t_a, 16); /* footprint 24 */
}

static void epsilon(int n) {
    SGC_FRAME();
    for (int i = 0; i < n; i++)
        sgc_alloc(t_a, 24);
}

static void site_a(void) {
    static sgc_func fn = {"a", 0};
    SGC_FRAME_FN(&fn);
    sgc_alloc(t_a, 8); /* 16 */
}
static void site_b(void) {
    static sgc_func fn = {"b", 0};
    SGC_FRAME_FN(&fn);
    sgc_alloc(t_a, 40); /* 48 */
}
static void site_c(void) {
    static sgc_func fn = {"c", 0};
    SGC_FRAME_FN(&fn);
    sgc_alloc(t_a, 56); /* 64 */
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: acc_sites sites|two|one|other|periodic N\n");
        return 2;
    }
    static const sgc_type ta = {"A", 0, 0, SGC_VAR_BYTES};
    static const sgc_type tb = {"B", 0, 0, SGC_VAR_BYTES};
    sgc_init();
    t_a = sgc_type_register(&ta);
    t_b = sgc_type_register(&tb);
    for (int i = 0; i < 12; i++)
        sgc_global_root(&kept[i]);
    const char *mode = argv[1];
    if (!strcmp(mode, "sites")) {
        for (int i = 0; i < 2; i++)
            sgc_alloc(t_a, 8); /* no frame: 2 x 16 */
        static sgc_func fn = {"main", 0};
        SGC_FRAME_FN(&fn);
        alpha(100, 10); /* 3200 bytes, 10 kept */
        beta(50);       /* 5600 */
        alpha_gamma();  /* 90080, 2 kept */
        for (int i = 0; i < 3; i++)
            sgc_alloc(t_a, 0); /* main itself: 3 x 8 */
        sgc_collect_minor();   /* settles every sample so far */
        delta(4);              /* 96, survival unknown at exit */
    } else if (!strcmp(mode, "two")) {
        static sgc_func fn = {"main", 0};
        SGC_FRAME_FN(&fn);
        alpha(100, 0);
        for (int i = 0; i < 100; i++) {
            static sgc_func fb = {"beta", 0};
            SGC_FRAME_FN(&fb);
            sgc_alloc(t_a, 24);
        }
    } else if (!strcmp(mode, "one")) {
        static sgc_func fn = {"main", 0};
        SGC_FRAME_FN(&fn);
        alpha(200, 0);
    } else if (!strcmp(mode, "other")) {
        static sgc_func fn = {"main", 0};
        SGC_FRAME_FN(&fn);
        epsilon(100);
    } else if (!strcmp(mode, "periodic") && argc == 3) {
        long n = strtol(argv[2], NULL, 10);
        static sgc_func fn = {"main", 0};
        SGC_FRAME_FN(&fn);
        for (long i = 0; i < n; i++) {
            site_a();
            site_b();
            site_c();
        }
    } else {
        fprintf(stderr, "acc_sites: unknown mode '%s'\n", mode);
        return 2;
    }
    return 0;
}
