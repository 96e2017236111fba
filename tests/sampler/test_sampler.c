/* test_sampler.c - unit tests of the allocation sampler on the real runtime:
 * every edge case of the rule with exact counts, survival, records, settings.
 *
 * Criterion runs each test in its own process, so each starts a fresh
 * runtime with the nursery it asks for.  Expected counts come from the rule
 * itself, floor((B+s)/P) - floor(B/P), computed here independently of the
 * runtime, and from hand-worked values for the named edge cases.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sgc_internal.h"
#include "sgc_sample.h"

static uint32_t tid;
static uint32_t tid_other;

/* Settled samples as the observer saw them. */
#define MAX_EVENTS 200000
static sgc_alloc_sample events[MAX_EVENTS];
static uint64_t event_serial[MAX_EVENTS];
static size_t nevents;

static void observe(void *ctx, const sgc_alloc_sample *rec, uint64_t serial) {
    (void)ctx;
    cr_assert_lt(nevents, MAX_EVENTS);
    events[nevents] = *rec;
    event_serial[nevents] = serial;
    nevents++;
}

/* Starts the runtime with a nursery of the given size and no sampling. */
static void start_runtime(const char *nursery) {
    setenv("SGC_NURSERY", nursery, 1);
    unsetenv("SGC_ALLOC_PERIOD");
    unsetenv("SGC_ALLOC_MODE");
    unsetenv("SGC_GC_STRESS");
    unsetenv("SGC_PROFILE");
    sgc_init();
    static const sgc_type t = {"test_bytes", 0, 0, SGC_VAR_BYTES};
    static const sgc_type t2 = {"test_other", 0, 0, SGC_VAR_BYTES};
    tid = sgc_type_register(&t);
    tid_other = sgc_type_register(&t2);
    sgc__sample_set_observer(observe, NULL);
    nevents = 0;
}

static uint64_t points_now(void) {
    sgc_stats st;
    sgc_get_stats(&st);
    return st.alloc_sample_points;
}

static sgc_obj last_obj;

/* Allocates payload bytes; returns the samples that allocation took. */
static uint64_t alloc_points(size_t payload) {
    uint64_t before = sgc__stats.alloc_sample_points;
    last_obj = sgc_alloc(tid, payload);
    return sgc__stats.alloc_sample_points - before;
}

/* The rule, in closed form. */
static uint64_t rule(uint64_t b, uint64_t s, uint64_t p) { return (b + s) / p - b / p; }

/* Allocates n objects of payload bytes and checks each count against the
 * rule, continuing from *b bytes into the session. */
static void run_fixed(uint64_t *b, uint64_t p, size_t payload, int n) {
    uint64_t s = SGC_FOOTPRINT(payload);
    for (int i = 0; i < n; i++) {
        uint64_t got = alloc_points(payload);
        uint64_t want = rule(*b, s, p);
        cr_assert_eq(got, want, "P=%llu s=%llu B=%llu: %llu samples, rule says %llu", (unsigned long long)p,
                     (unsigned long long)s, (unsigned long long)*b, (unsigned long long)got, (unsigned long long)want);
        *b += s;
    }
}

Test(fixed, size_equals_period) {
    start_runtime("64K");
    cr_assert_eq(sgc_sampling_start(64, SGC_SAMPLE_FIXED, 0), 0);
    for (int i = 0; i < 1000; i++)
        cr_assert_eq(alloc_points(56), 1); /* footprint 64 == P: every one, exactly once */
}

Test(fixed, ending_exactly_on_a_point_is_sampled) {
    start_runtime("64K");
    sgc_sampling_start(64, SGC_SAMPLE_FIXED, 0);
    cr_assert_eq(alloc_points(24), 0); /* bytes 1..32 */
    cr_assert_eq(alloc_points(24), 1); /* bytes 33..64: ends on 64 */
    cr_assert_eq(alloc_points(0), 0);  /* 65..72 */
    cr_assert_eq(alloc_points(48), 1); /* 73..128: ends on 128 */
    cr_assert_eq(alloc_points(48), 0); /* 129..184 */
}

Test(fixed, size_one_below_period) {
    start_runtime("64K");
    sgc_sampling_start(57, SGC_SAMPLE_FIXED, 0); /* footprint 56 = P - 1 */
    cr_assert_eq(alloc_points(48), 0);           /* 1..56 */
    cr_assert_eq(alloc_points(48), 1);           /* 57..112 holds 57 */
    uint64_t b = 112;
    run_fixed(&b, 57, 48, 5000);
    cr_assert_eq(points_now(), (5002ull * 56) / 57);
}

Test(fixed, size_one_above_period) {
    start_runtime("64K");
    sgc_sampling_start(55, SGC_SAMPLE_FIXED, 0); /* footprint 56 = P + 1 */
    for (int k = 1; k <= 110; k++) {
        uint64_t want = (k % 55 == 0) ? 2 : 1; /* every 55th allocation covers two points */
        cr_assert_eq(alloc_points(48), want, "allocation %d", k);
    }
}

Test(fixed, multiple_of_period) {
    start_runtime("64K");
    sgc_sampling_start(16, SGC_SAMPLE_FIXED, 0);
    for (int i = 0; i < 1000; i++)
        cr_assert_eq(alloc_points(56), 4); /* 64 = 4 P */
    cr_assert_eq(nevents, 0);              /* nothing settled before a collection */
    sgc_collect_minor();
    cr_assert_eq(nevents, 1000); /* one record per object, with its points */
    for (size_t i = 0; i < nevents; i++)
        cr_assert_eq(events[i].points, 4);
}

Test(fixed, object_larger_than_the_nursery) {
    start_runtime("4K");
    sgc_sampling_start(1000, SGC_SAMPLE_FIXED, 0);
    cr_assert_eq(alloc_points(6000), 6); /* 6008 bytes, outside the 4 KiB nursery */
    cr_assert_eq(alloc_points(984), 1);  /* 6009..7000 ends on 7000 */
    sgc_collect_minor();
    cr_assert_eq(nevents, 2);
    cr_assert_eq(events[0].large, 1);
    cr_assert_eq(events[0].size, 6008);
    cr_assert_eq(events[0].points, 6);
    cr_assert_eq(events[1].large, 0);
}

Test(fixed, period_three_times_the_nursery) {
    start_runtime("16K");
    sgc_sampling_start(48 * 1024, SGC_SAMPLE_FIXED, 0);
    sgc_stats st0, st1;
    sgc_get_stats(&st0);
    for (int k = 1; k <= 3 * 768; k++) {
        uint64_t want = (k % 768 == 0) ? 1 : 0; /* 768 * 64 = 48 KiB */
        cr_assert_eq(alloc_points(56), want, "allocation %d", k);
    }
    sgc_get_stats(&st1);
    cr_assert_geq(st1.minor_collections - st0.minor_collections, 8); /* 144 KiB through 16 KiB */
    cr_assert_eq(st1.alloc_sample_points - st0.alloc_sample_points, 3);
}

Test(fixed, four_kib_nursery_mixed_sizes) {
    start_runtime("4K");
    sgc_sampling_start(1000, SGC_SAMPLE_FIXED, 0);
    uint64_t b = 0;
    for (int i = 0; i < 3000; i++)
        run_fixed(&b, 1000, (size_t)(i * 37) % 700, 1);
    cr_assert_eq(points_now(), b / 1000);
}

Test(fixed, start_and_stop_in_mid_nursery) {
    start_runtime("64K");
    for (int i = 0; i < 100; i++)
        cr_assert_eq(alloc_points(24), 0); /* off */
    sgc_sampling_start(100, SGC_SAMPLE_FIXED, 0);
    uint64_t b = 0;
    run_fixed(&b, 100, 24, 77); /* 77 * 32 = 2464 bytes: 24 samples */
    cr_assert_eq(points_now(), 24);
    sgc_sampling_stop();
    for (int i = 0; i < 100; i++)
        cr_assert_eq(alloc_points(24), 0);
    sgc_sampling_start(64, SGC_SAMPLE_FIXED, 0); /* B starts again from 0 */
    cr_assert_eq(alloc_points(48), 0);           /* 1..56 */
    cr_assert_eq(alloc_points(0), 1);            /* 57..64 */
    sgc_sampling_start(64, SGC_SAMPLE_FIXED, 0); /* a restart resets B too */
    cr_assert_eq(alloc_points(48), 0);
    cr_assert_eq(alloc_points(0), 1);
    sgc_stats st;
    sgc_get_stats(&st);
    cr_assert_eq(st.sampled_bytes, 2464 + 64 + 64); /* only bytes while on */
    cr_assert_eq(st.alloc_sample_points, 26);
}

Test(fixed, large_object_crossing_several_points) {
    start_runtime("64K");
    sgc_sampling_start(1000, SGC_SAMPLE_FIXED, 0);
    cr_assert_eq(alloc_points(984), 0);    /* 1..992 */
    cr_assert_eq(alloc_points(10000), 11); /* 993..11000: 1000, 2000, ..., 11000 */
    cr_assert_eq(alloc_points(984), 0);    /* 11001..11992: the limit was not left stale */
    cr_assert_eq(alloc_points(0), 1);      /* 11993..12000 */
    sgc_collect_minor();
    cr_assert_eq(nevents, 2);
    cr_assert_eq(events[0].points, 11);
    cr_assert_eq(events[0].large, 1);
    cr_assert_eq(events[0].size, 10008);
    cr_assert_eq(events[0].tid, tid);
}

Test(fixed, across_minor_and_major_collections) {
    start_runtime("8K");
    sgc_sampling_start(3000, SGC_SAMPLE_FIXED, 0);
    uint64_t b = 0;
    for (int round = 0; round < 50; round++) {
        run_fixed(&b, 3000, 40 + round * 8, 13);
        if (round % 3 == 0)
            sgc_collect_minor();
        if (round % 7 == 0)
            sgc_collect_major();
        run_fixed(&b, 3000, 9000, 1); /* a large one too */
    }
    cr_assert_eq(points_now(), b / 3000);
}

Test(fixed, stress_mode) {
    setenv("SGC_GC_STRESS", "3", 1);
    setenv("SGC_NURSERY", "16K", 1);
    unsetenv("SGC_ALLOC_PERIOD");
    sgc_init();
    static const sgc_type t = {"test_bytes", 0, 0, SGC_VAR_BYTES};
    tid = sgc_type_register(&t);
    sgc_sampling_start(100, SGC_SAMPLE_FIXED, 0);
    uint64_t b = 0;
    for (int i = 0; i < 2000; i++)
        run_fixed(&b, 100, (size_t)(i * 13) % 300, 1);
    cr_assert_eq(points_now(), b / 100);
    sgc_stats st;
    sgc_get_stats(&st);
    cr_assert_geq(st.minor_collections, 600);
}

Test(fixed, nursery_that_moves) {
    /* SGC_POISON alternates two nursery buffers: the distance must carry
     * over without counting the jump between them as bytes. */
    setenv("SGC_POISON", "1", 1);
    start_runtime("4K");
    sgc_sampling_start(1000, SGC_SAMPLE_FIXED, 0);
    uint64_t b = 0;
    for (int i = 0; i < 3000; i++)
        run_fixed(&b, 1000, (size_t)(i * 53) % 500, 1);
    cr_assert_eq(points_now(), b / 1000);
    sgc_sampling_start(1, SGC_SAMPLE_POISSON, 5); /* mean 1: every byte */
    cr_assert_eq(alloc_points(20000), 20008);
    cr_assert_eq(alloc_points(0), 8);
}

Test(fixed, from_the_environment) {
    setenv("SGC_ALLOC_PERIOD", "1K", 1);
    setenv("SGC_ALLOC_MODE", "fixed", 1);
    setenv("SGC_NURSERY", "64K", 1);
    sgc_init();
    static const sgc_type t = {"test_bytes", 0, 0, SGC_VAR_BYTES};
    tid = sgc_type_register(&t);
    cr_assert_eq(sgc__sampler.period, 1024);
    uint64_t b = 0;
    run_fixed(&b, 1024, 100, 1000);
    sgc_stats st;
    sgc_get_stats(&st);
    cr_assert_eq(st.alloc_sample_points, b / 1024);
    cr_assert_eq(st.sampled_bytes, b);
}

/* SGC_ALLOC_OFFSET = o: the points are P - o, 2P - o, ...; an allocation
 * after B bytes takes floor((B+o+s)/P) - floor((B+o)/P) samples. */
Test(fixed, start_offset_from_the_environment) {
    setenv("SGC_ALLOC_PERIOD", "1000", 1);
    setenv("SGC_ALLOC_MODE", "fixed", 1);
    setenv("SGC_ALLOC_OFFSET", "296", 1);
    setenv("SGC_NURSERY", "64K", 1);
    sgc_init();
    static const sgc_type t = {"test_bytes", 0, 0, SGC_VAR_BYTES};
    tid = sgc_type_register(&t);
    /* Hand-worked: the first point is byte 704, 704 = 22 x 32. */
    for (int i = 0; i < 21; i++)
        cr_assert_eq(alloc_points(24), 0, "allocation %d", i);
    cr_assert_eq(alloc_points(24), 1, "the 22nd 32-byte object ends on byte 704");
    cr_assert_eq(alloc_points(968), 0, "bytes 705 .. 1680: the next point is 1704");
    cr_assert_eq(alloc_points(16), 1, "1681 .. 1704");
    uint64_t b = 1704;
    for (int i = 0; i < 2000; i++) {
        size_t payload = (size_t)(i * 37 % 3000);
        uint64_t s = SGC_FOOTPRINT(payload);
        cr_assert_eq(alloc_points(payload), rule(b + 296, s, 1000), "B=%llu s=%llu", (unsigned long long)b,
                     (unsigned long long)s);
        b += s;
    }
    sgc_stats st;
    sgc_get_stats(&st);
    cr_assert_eq(st.sampled_bytes, b);
    cr_assert_eq(st.alloc_sample_points, (b + 296) / 1000);
}

Test(fixed, bad_arguments) {
    start_runtime("64K");
    cr_assert_eq(sgc_sampling_start(64, (sgc_sample_mode)7, 0), -1);
    cr_assert_eq(sgc_sampling_start(SGC_SAMPLE_MAX_PERIOD + 1, SGC_SAMPLE_FIXED, 0), -1);
    cr_assert_eq(sgc__sampler.period, 0);
    cr_assert_eq(sgc_sampling_start(SGC_SAMPLE_MAX_PERIOD, SGC_SAMPLE_FIXED, 0), 0);
    cr_assert_eq(alloc_points(9000), 0);
    cr_assert_eq(sgc_sampling_start(0, SGC_SAMPLE_FIXED, 0), 0); /* 0 stops */
    cr_assert_eq(sgc__sampler.period, 0);
}

/* ---- Survival and records --------------------------------------------- */

Test(survival, nursery_and_large_kept_and_dropped) {
    start_runtime("64K");
    sgc_obj a = NULL, c = NULL;
    SGC_FRAME(&a, &c);
    sgc_sampling_start(1, SGC_SAMPLE_FIXED, 0); /* every byte: every object sampled */
    a = sgc_alloc(tid, 16);                     /* kept, nursery */
    sgc_alloc(tid, 16);                         /* dropped, nursery */
    c = sgc_alloc(tid_other, 9000);             /* kept, large */
    sgc_alloc(tid, 9000);                       /* dropped, large */
    cr_assert_eq(nevents, 0);
    sgc_collect_minor();
    cr_assert_eq(nevents, 4);
    cr_assert_eq(events[0].survival, SGC_SURVIVED);
    cr_assert_eq(events[1].survival, SGC_DIED);
    cr_assert_eq(events[2].survival, SGC_SURVIVED);
    cr_assert_eq(events[3].survival, SGC_DIED);
    cr_assert_eq(events[0].large + events[1].large, 0);
    cr_assert_eq(events[2].large + events[3].large, 2);
    cr_assert_eq(events[2].tid, tid_other);
    cr_assert_eq(events[0].points, 24);
    cr_assert_eq(events[2].points, 9008);
    /* Survivors are old now: a second collection reports nothing again. */
    sgc_collect_minor();
    cr_assert_eq(nevents, 4);
    /* Pending when sampling stops: unknown, handed over at the stop. */
    a = sgc_alloc(tid, 16);
    sgc_alloc(tid, 9000);
    sgc_sampling_stop();
    cr_assert_eq(nevents, 6);
    cr_assert_eq(events[4].survival, SGC_SURVIVAL_UNKNOWN);
    cr_assert_eq(events[5].survival, SGC_SURVIVAL_UNKNOWN);
    sgc_collect_minor();
    cr_assert_eq(nevents, 6);
    for (size_t i = 0; i < nevents; i++)
        cr_assert_eq(event_serial[i], i + 1);
}

Test(survival, across_a_major_collection_and_restart) {
    start_runtime("64K");
    sgc_obj a = NULL;
    SGC_FRAME(&a);
    sgc_sampling_start(64, SGC_SAMPLE_FIXED, 0);
    a = sgc_alloc(tid, 56);
    sgc_alloc(tid, 56);
    sgc_collect_major();
    cr_assert_eq(nevents, 2);
    cr_assert_eq(events[0].survival, SGC_SURVIVED);
    cr_assert_eq(events[1].survival, SGC_DIED);
    a = sgc_alloc(tid, 56);
    sgc_sampling_start(128, SGC_SAMPLE_FIXED, 0); /* a restart stops first */
    cr_assert_eq(nevents, 3);
    cr_assert_eq(events[2].survival, SGC_SURVIVAL_UNKNOWN);
}

Test(survival, collection_in_the_slow_path_settles_earlier_samples_only) {
    start_runtime("4K");
    sgc_obj keep = NULL;
    SGC_FRAME(&keep);
    sgc_sampling_start(4000, SGC_SAMPLE_FIXED, 0);
    uint64_t b = 0;
    run_fixed(&b, 4000, 56, 62); /* 3968 bytes: no sample yet; nursery has 128 left */
    cr_assert_eq(points_now(), 0);
    keep = sgc_alloc(tid, 248); /* 256 bytes: needs a collection, then samples */
    cr_assert_eq(points_now(), 1);
    cr_assert_eq(nevents, 0); /* its own collection ran before it existed */
    sgc_collect_minor();
    cr_assert_eq(nevents, 1);
    cr_assert_eq(events[0].survival, SGC_SURVIVED);
}

Test(survival, pending_list_grows_without_loss) {
    start_runtime("16M");
    sgc_sampling_start(8, SGC_SAMPLE_FIXED, 0);
    for (int i = 0; i < 150000; i++)
        cr_assert_eq(alloc_points(8), 2);
    cr_assert_eq(nevents, 0);
    sgc_collect_minor();
    cr_assert_eq(nevents, 150000);
    cr_assert_eq(event_serial[149999], 150000);
    sgc_stats st;
    sgc_get_stats(&st);
    cr_assert_eq(st.alloc_samples, 150000);
    cr_assert_eq(st.alloc_sample_points, 300000);
}

static sgc_func depth_funcs[3] = {{"outer", 0}, {"middle", 0}, {"inner", 0}};

Test(records, fields_and_stack) {
    start_runtime("64K");
    sgc_frame f[3];
    for (int i = 0; i < 3; i++) {
        f[i].func = &depth_funcs[i];
        f[i].roots = NULL;
        f[i].nroots = 0;
        sgc_frame_push(&f[i]);
    }
    sgc_sampling_start(100, SGC_SAMPLE_FIXED, 0);
    uint64_t t0 = sgc__now_ns();
    sgc_alloc(tid, 200); /* 1..208: 100 and 200 */
    sgc_frame_pop(&f[2]);
    sgc_alloc(tid_other, 0);  /* 209..216: no point */
    sgc_alloc(tid_other, 80); /* 217..304: 300 */
    uint64_t t1 = sgc__now_ns();
    sgc_collect_minor();
    cr_assert_eq(nevents, 2);
    cr_assert_eq(events[0].size, 208);
    cr_assert_eq(events[0].points, 2);
    cr_assert_eq(events[0].tid, tid);
    cr_assert_eq(events[1].size, 88);
    cr_assert_eq(events[1].points, 1);
    cr_assert_eq(events[1].tid, tid_other);
    cr_assert(events[0].ts_ns >= t0 && events[0].ts_ns <= events[1].ts_ns && events[1].ts_ns <= t1);
    /* Different stacks, different non-empty nodes. */
    cr_assert_neq(events[0].stack, 0);
    cr_assert_neq(events[1].stack, 0);
    cr_assert_neq(events[0].stack, events[1].stack);
    sgc_frame_pop(&f[1]);
    sgc_frame_pop(&f[0]);
}
