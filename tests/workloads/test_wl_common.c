/* test_wl_common.c - unit tests of the workloads' shared helper (arguments, checksum, check, types). */
#include <criterion/criterion.h>
#include <stdio.h>
#include "wl_common.h"

static int64_t depth_opt;
static int flag_opt;
static const char *name_opt;

static const wl_option options[] = {
    {"--depth", WL_OPT_INT, &depth_opt, 1, 100, "a depth"},
    {"--fast", WL_OPT_FLAG, &flag_opt, 0, 0, "a flag"},
    {"--name", WL_OPT_STRING, &name_opt, 0, 0, "a name"},
    {0},
};

static const wl_spec spec = {
    .name = "unit",
    .summary = "unit test workload",
    .default_size = 10,
    .min_size = 1,
    .max_size = 1000,
    .size_help = "units",
    .options = options,
};

static wl_run start(int argc, const char **argv) {
    depth_opt = 5;
    flag_opt = 0;
    name_opt = NULL;
    return wl_start(&spec, argc, (char **)argv);
}

Test(wl_args, defaults) {
    const char *argv[] = {"unit", NULL};
    wl_run r = start(1, argv);
    cr_assert_eq(r.size, 10);
    cr_assert_eq(r.check, 0);
    cr_assert_eq(depth_opt, 5);
    cr_assert_eq(flag_opt, 0);
    cr_assert_null(name_opt);
}

Test(wl_args, all_forms) {
    const char *argv[] = {"unit", "--size", "7", "--check", "--depth=42", "--fast", "--name", "x", NULL};
    wl_run r = start(8, argv);
    cr_assert_eq(r.size, 7);
    cr_assert_eq(r.check, 1);
    cr_assert_eq(depth_opt, 42);
    cr_assert_eq(flag_opt, 1);
    cr_assert_str_eq(name_opt, "x");
    const char *argv2[] = {"unit", "--size=1000", NULL};
    cr_assert_eq(start(2, argv2).size, 1000);
}

#define BAD_ARGS(test, ...)                                   \
    Test(wl_args, test, .exit_code = 2) {                     \
        const char *argv[] = {"unit", __VA_ARGS__, NULL};     \
        start((int)(sizeof argv / sizeof argv[0]) - 1, argv); \
    }
BAD_ARGS(size_zero, "--size", "0")
BAD_ARGS(size_too_big, "--size", "1001")
BAD_ARGS(size_not_number, "--size", "12x")
BAD_ARGS(size_negative, "--size=-3")
BAD_ARGS(size_empty, "--size=")
BAD_ARGS(size_missing, "--size")
BAD_ARGS(size_overflow, "--size", "99999999999999999999999")
BAD_ARGS(unknown_option, "--sizes", "3")
BAD_ARGS(stray_argument, "3")
BAD_ARGS(check_with_value, "--check=1")
BAD_ARGS(flag_with_value, "--fast=yes")
BAD_ARGS(option_out_of_range, "--depth", "101")
BAD_ARGS(option_missing_value, "--depth")

Test(wl_args, help_exits_zero, .exit_code = 0) {
    const char *argv[] = {"unit", "--help", NULL};
    start(2, argv);
    cr_assert_fail("--help returned");
}

Test(wl_args, parse_int) {
    int64_t v = 0;
    cr_assert_eq(wl_parse_int("0", &v), 0);
    cr_assert_eq(v, 0);
    cr_assert_eq(wl_parse_int("-17", &v), 0);
    cr_assert_eq(v, -17);
    cr_assert_eq(wl_parse_int("9223372036854775807", &v), 0);
    cr_assert_eq(v, INT64_MAX);
    cr_assert_eq(wl_parse_int("-9223372036854775808", &v), 0);
    cr_assert_eq(v, INT64_MIN);
    cr_assert_eq(wl_parse_int("9223372036854775808", &v), -1);
    cr_assert_eq(wl_parse_int("", &v), -1);
    cr_assert_eq(wl_parse_int("-", &v), -1);
    cr_assert_eq(wl_parse_int(" 1", &v), -1);
    cr_assert_eq(wl_parse_int("1e3", &v), -1);
}

Test(wl_checksum, known_values_and_sensitivity) {
    wl_checksum a = WL_CHECKSUM_INIT, b = WL_CHECKSUM_INIT, c = WL_CHECKSUM_INIT;
    /* Pinned values: the printed checksums of every workload depend on them. */
    cr_assert_eq(wl_checksum_value(&a), 0xbd0ed0d08a42a70cull);
    wl_mix(&a, 1);
    wl_mix(&a, 2);
    cr_assert_eq(wl_checksum_value(&a), 0xa27c28e6866da6c0ull);
    wl_mix(&b, 2);
    wl_mix(&b, 1);
    cr_assert_neq(wl_checksum_value(&a), wl_checksum_value(&b), "order must matter");
    wl_mix(&c, 1);
    wl_mix(&c, 3);
    cr_assert_neq(wl_checksum_value(&a), wl_checksum_value(&c));
    /* A single flipped input bit changes about half of the output bits. */
    for (int bit = 0; bit < 64; bit++) {
        wl_checksum x = WL_CHECKSUM_INIT, y = WL_CHECKSUM_INIT;
        wl_mix(&x, 0x1234);
        wl_mix(&y, 0x1234 ^ (1ull << bit));
        wl_mix(&x, 5);
        wl_mix(&y, 5);
        int diff = __builtin_popcountll(wl_checksum_value(&x) ^ wl_checksum_value(&y));
        cr_assert(diff >= 16 && diff <= 48, "bit %d changed %d output bits", bit, diff);
    }
    wl_checksum p = WL_CHECKSUM_INIT, n = WL_CHECKSUM_INIT;
    wl_mix_double(&p, 0.0);
    wl_mix_double(&n, -0.0);
    cr_assert_neq(wl_checksum_value(&p), wl_checksum_value(&n));
}

Test(wl_rng, deterministic) {
    wl_rng r = wl_rng_seed(1), s = wl_rng_seed(1), t = wl_rng_seed(2);
    uint64_t first = wl_rand(&r);
    cr_assert_eq(first, wl_rand(&s));
    cr_assert_neq(first, wl_rand(&t));
    wl_rng z = wl_rng_seed(0);
    cr_assert_neq(z.s, 0);
    for (int i = 0; i < 1000; i++)
        cr_assert_lt(wl_rand_below(&r, 7), 7u);
}

static uint64_t expect_value;
static uint64_t expected_fn(const wl_run *run) { return expect_value; }

Test(wl_finish, match_returns_zero) {
    const char *argv[] = {"unit", "--check", NULL};
    wl_run r = start(2, argv);
    wl_checksum c = WL_CHECKSUM_INIT;
    wl_mix(&c, 99);
    expect_value = wl_checksum_value(&c);
    cr_assert_eq(wl_finish(&r, &c, expected_fn), 0);
}

Test(wl_finish, mismatch_exits_one, .exit_code = 1) {
    const char *argv[] = {"unit", "--check", NULL};
    wl_run r = start(2, argv);
    wl_checksum c = WL_CHECKSUM_INIT;
    wl_mix(&c, 99);
    expect_value = wl_checksum_value(&c) ^ 1;
    wl_finish(&r, &c, expected_fn);
    cr_assert_fail("a wrong checksum passed --check");
}

Test(wl_finish, no_check_never_calls_expected) {
    const char *argv[] = {"unit", NULL};
    wl_run r = start(1, argv);
    wl_checksum c = WL_CHECKSUM_INIT;
    expect_value = 0; /* wrong, but --check was not given */
    cr_assert_eq(wl_finish(&r, &c, expected_fn), 0);
}

typedef struct Three {
    void *a;
    int64_t n;
    void *b;
} Three;

Test(wl_type, pointer_bits_and_registration) {
    cr_assert_eq(WL_PTR(Three, a), 1u);
    cr_assert_eq(WL_PTR(Three, b), 4u);
    uint32_t t1 = wl_type("Unit.Three", sizeof(Three), WL_PTR(Three, a) | WL_PTR(Three, b), SGC_VAR_NONE);
    uint32_t t2 = wl_type("Unit.Three", sizeof(Three), WL_PTR(Three, a) | WL_PTR(Three, b), SGC_VAR_NONE);
    cr_assert_eq(t1, t2);
    cr_assert_str_eq(sgc_type_name(t1), "Unit.Three");
}

Test(wl_type, pointer_beyond_fixed_part_exits_one, .exit_code = 1) { wl_type("Unit.Bad", 16, 1u << 2, SGC_VAR_NONE); }

Test(wl_type, fixed_part_too_big_exits_one, .exit_code = 1) { wl_type("Unit.Huge", 520, 0, SGC_VAR_NONE); }
