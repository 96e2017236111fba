/* test_gc.c - unit tests of the collector: allocation, collections, barrier, large objects, roots.
 *
 * Criterion runs each test in its own process, so each starts from a fresh
 * runtime; settings are put in the environment before the first allocation.
 * Expected values are exact: footprints and slot sizes are known.
 */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sgc_internal.h"

#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif

typedef struct node {
    struct node *a, *b; /* pointer fields */
    uint64_t value;
} node; /* footprint 32: slot of 32 in the old generation */

static uint32_t T_NODE, T_PTRS, T_BYTES, T_DOUBLES;

static void setup(void) {
    unsetenv("SGC_NURSERY");
    unsetenv("SGC_GC_STRESS");
    unsetenv("SGC_POISON");
    unsetenv("SGC_STATS");
    unsetenv("SGC_HEAP_MAX");
    setenv("SGC_VERIFY", "1", 1);
    T_NODE = sgc_type_register(&(sgc_type){"node", sizeof(node), 0x3, SGC_VAR_NONE});
    T_PTRS = sgc_type_register(&(sgc_type){"ptrs", 8, 0, SGC_VAR_PTRS});
    T_BYTES = sgc_type_register(&(sgc_type){"bytes", 0, 0, SGC_VAR_BYTES});
    T_DOUBLES = sgc_type_register(&(sgc_type){"doubles", 8, 0, SGC_VAR_DOUBLES});
}

static int in_nursery(const void *p) {
    return (const char *)p >= sgc_nursery.start && (const char *)p < sgc_nursery.end;
}

static node *new_node(uint64_t v) {
    node *n = SGC_NEW(T_NODE, node);
    n->value = v;
    return n;
}

static sgc_stats stats(void) {
    sgc_stats s;
    sgc_get_stats(&s);
    return s;
}

TestSuite(gc, .init = setup);

Test(gc, types_register_once_and_name) {
    cr_assert_eq(sgc_type_register(&(sgc_type){"node", 24, 3, SGC_VAR_NONE}), T_NODE);
    cr_assert_str_eq(sgc_type_name(T_PTRS), "ptrs");
    cr_assert_str_eq(sgc_type_name(0), "?");
    cr_assert_str_eq(sgc_type_name(9999), "?");
    cr_assert_eq(T_NODE + 1, T_PTRS);
}

Test(gc, malformed_type_aborts, .signal = SIGABRT) {
    sgc_type_register(&(sgc_type){"bad", 16, 0x4, SGC_VAR_NONE}); /* word 2 is past 16 bytes */
}

/* A payload near SIZE_MAX wraps SGC_FOOTPRINT to a small size; the fast and
 * slow paths route by payload, so it is refused rather than bump-allocated. */
Test(gc, payload_that_wraps_the_footprint_aborts, .signal = SIGABRT) { sgc_alloc(T_BYTES, SIZE_MAX - 3); }

Test(gc, alloc_header_zero_and_counts) {
    node *n = new_node(7);
    cr_assert(in_nursery(n));
    cr_assert_eq(SGC_TYPE_OF(n), T_NODE);
    cr_assert_eq(SGC_PAYLOAD_BYTES(n), 24);
    cr_assert_eq(n->a, NULL);
    unsigned char *b = sgc_alloc(T_BYTES, 13);
    cr_assert_eq(SGC_PAYLOAD_BYTES(b), 16);
    for (int i = 0; i < 16; i++)
        cr_assert_eq(b[i], 0);
    cr_assert_eq((char *)b - (char *)n, 32, "bump allocation is contiguous");
    sgc_alloc(T_BYTES, 0);
    sgc_stats s = stats();
    cr_assert_eq(s.nursery_objects, 3);
    cr_assert_eq(s.nursery_bytes, 32 + 24 + 8);
    cr_assert_eq(s.large_objects, 0);
}

Test(gc, nursery_reused_zeroed_after_minor) {
    for (int i = 0; i < 100; i++) {
        uint64_t *w = sgc_alloc(T_BYTES, 64);
        memset(w, 0xff, 64);
    }
    sgc_collect_minor();
    cr_assert_eq(sgc_nursery.free, sgc_nursery.start);
    for (int i = 0; i < 100; i++) {
        unsigned char *w = sgc_alloc(T_BYTES, 64);
        for (int j = 0; j < 64; j++)
            cr_assert_eq(w[j], 0);
    }
    sgc_stats s = stats();
    cr_assert_eq(s.nursery_objects, 200);
    cr_assert_eq(s.nursery_bytes, 200 * 72);
    cr_assert_eq(s.bytes_promoted, 0);
    cr_assert_eq(s.minor_collections, 1);
}

Test(gc, minor_promotes_reachable_only) {
    node *keep = NULL, *tmp = NULL;
    SGC_FRAME(&keep, &tmp);
    keep = new_node(1);
    for (uint64_t i = 2; i <= 100; i++) {
        tmp = new_node(i);
        tmp->a = keep;
        keep = tmp;
        new_node(1000 + i); /* garbage */
    }
    tmp = NULL;
    node *before = keep;
    sgc_collect_minor();
    cr_assert_neq(keep, before, "a surviving nursery object moves");
    cr_assert(!in_nursery(keep));
    uint64_t expect = 100;
    for (node *n = keep; n; n = n->a, expect--) {
        cr_assert_eq(n->value, expect);
        cr_assert(!in_nursery(n));
        cr_assert(SGC_HDR(n) & SGC_F_TRACK_YOUNG, "old objects start out watched by the barrier");
    }
    cr_assert_eq(expect, 0);
    sgc_stats s = stats();
    cr_assert_eq(s.bytes_promoted, 100 * 32);
    cr_assert_eq(s.heap_bytes, 100 * 32);
    cr_assert_eq(s.nursery_objects, 199);
}

Test(gc, sharing_and_cycles_preserved) {
    node *x = NULL;
    SGC_FRAME(&x);
    x = new_node(1);
    x->a = new_node(2);
    x->b = x->a;
    x->a->a = x; /* cycle */
    sgc_collect_minor();
    cr_assert_eq(x->a, x->b);
    cr_assert_eq(x->a->a, x);
    cr_assert_eq(x->a->value, 2);
    cr_assert_eq(stats().bytes_promoted, 64);
}

Test(gc, frames_skip_null_slots_and_pop) {
    node *outer = NULL;
    SGC_FRAME(&outer);
    sgc_frame *mine = sgc_top;
    outer = new_node(5);
    {
        node *inner = NULL;
        void *slots[] = {NULL, &inner, NULL};
        static sgc_func fn = {"inner", 0};
        sgc_frame f = {.func = &fn, .roots = slots, .nroots = 3};
        sgc_frame_push(&f);
        cr_assert_eq(sgc_top, &f);
        cr_assert_eq(f.parent, mine);
        inner = new_node(6); /* inner's slot is a root; NULL slots skipped */
        sgc_collect_minor();
        cr_assert_eq(inner->value, 6);
        cr_assert(!in_nursery(inner));
        sgc_frame_pop(&f);
    }
    cr_assert_eq(sgc_top, mine);
    cr_assert_eq(outer->value, 5);
    cr_assert_not_null(strstr(mine->func->name, "frames_skip_null_slots_and_pop"), "%s", mine->func->name);
}

static node *global_node;
static node *global_null;

Test(gc, globals_are_roots) {
    sgc_global_root(&global_node);
    sgc_global_root(&global_null);
    global_node = new_node(42);
    global_node->a = new_node(43);
    sgc_collect_major();
    cr_assert(!in_nursery(global_node));
    cr_assert_eq(global_node->value, 42);
    cr_assert_eq(global_node->a->value, 43);
    cr_assert_eq(stats().heap_bytes, 64);
    global_node = NULL;
    sgc_collect_major();
    cr_assert_eq(stats().heap_bytes, 0);
}

Test(gc, write_barrier_records_old_object) {
    node *old = NULL;
    SGC_FRAME(&old);
    old = new_node(1);
    sgc_collect_minor();
    cr_assert(SGC_HDR(old) & SGC_F_TRACK_YOUNG);
    node *young = new_node(2);
    SGC_SET(old, a, young);
    cr_assert_eq(SGC_HDR(old) & SGC_F_TRACK_YOUNG, 0, "recorded: flag cleared");
    SGC_SET(old, b, young); /* already recorded: the fast path skips */
    sgc_verify_heap();
    sgc_collect_minor();
    cr_assert(!in_nursery(old->a), "the young object survived through the remembered set only");
    cr_assert_eq(old->a->value, 2);
    cr_assert_eq(old->a, old->b);
    cr_assert(SGC_HDR(old) & SGC_F_TRACK_YOUNG, "watched again after the collection");
    cr_assert_eq(stats().bytes_promoted, 64);
}

Test(gc, verifier_catches_missing_barrier, .signal = SIGABRT) {
    node *old = NULL;
    SGC_FRAME(&old);
    old = new_node(1);
    sgc_collect_minor();
    old->a = new_node(2); /* no barrier: the remembered set is incomplete */
    sgc_verify_heap();
}

Test(gc, verifier_catches_dangling_root, .signal = SIGABRT) {
    node *x = NULL;
    SGC_FRAME(&x);
    x = new_node(1);
    x = (node *)((char *)x + 8); /* not an object start */
    sgc_verify_heap();
}

Test(gc, major_frees_and_reuses_old_memory) {
    node *keep = NULL, *tmp = NULL;
    SGC_FRAME(&keep, &tmp);
    for (int i = 0; i < 1000; i++) {
        tmp = new_node((uint64_t)i);
        tmp->a = keep;
        keep = tmp;
    }
    sgc_collect_minor();
    cr_assert_eq(stats().heap_bytes, 1000 * 32);
    node *first = keep, *second = keep->a;
    keep = keep->a->a; /* drop two */
    tmp = NULL;
    sgc_collect_major();
    sgc_stats s = stats();
    cr_assert_eq(s.heap_bytes, 998 * 32);
    cr_assert_eq(s.major_collections, 1);
    /* The freed slots are reused by the next promotions. */
    tmp = new_node(5000);
    sgc_collect_minor();
    cr_assert_eq(stats().heap_bytes, 999 * 32);
    cr_assert(tmp == first || tmp == second, "a freed slot is reused");
    cr_assert_eq(tmp->value, 5000);
    uint64_t expect = 997;
    for (node *n = keep; n; n = n->a, expect--)
        cr_assert_eq(n->value, expect);
    cr_assert_eq(expect, (uint64_t)-1);
}

Test(gc, major_keeps_cycles_and_large_objects) {
    node *x = NULL;
    sgc_obj *arr = NULL;
    SGC_FRAME(&x, &arr);
    arr = sgc_alloc(T_PTRS, 8 + 8 * 2000); /* large: 16016-byte footprint */
    x = new_node(1);
    x->a = new_node(2);
    x->a->a = x;
    arr[1] = x;
    arr[2000] = x->a;
    for (int i = 0; i < 3; i++)
        sgc_collect_major();
    cr_assert_eq(arr[1], x);
    cr_assert_eq(arr[2000], x->a);
    cr_assert_eq(x->a->a->value, 1);
    sgc_stats s = stats();
    cr_assert_eq(s.heap_bytes, 16016 + 64);
    cr_assert_eq(s.major_collections, 3);
    cr_assert_eq(s.large_promoted, 1);
}

Test(gc, pointer_arrays_and_data_arrays) {
    sgc_obj *arr = NULL;
    double *d = NULL;
    SGC_FRAME(&arr, &d);
    arr = sgc_alloc(T_PTRS, 8 + 8 * 50);
    for (int i = 0; i < 50; i++) {
        node *n = new_node((uint64_t)i);
        arr[1 + i] = n;
        sgc_write_barrier(arr);
    }
    d = sgc_alloc(T_DOUBLES, 8 + 8 * 4);
    d[1] = 1.5; /* looks nothing like a pointer; must not be traced */
    ((uint64_t *)d)[2] = 0xdeadbeefdeadbee8ull;
    sgc_collect_minor();
    sgc_collect_major();
    for (int i = 0; i < 50; i++)
        cr_assert_eq(((node *)arr[1 + i])->value, (uint64_t)i);
    cr_assert_eq(d[1], 1.5);
    cr_assert_eq(((uint64_t *)d)[2], 0xdeadbeefdeadbee8ull);
    /* 50 nodes (32) + array of 416 (slot 448) + doubles 48 (slot 48) */
    cr_assert_eq(stats().heap_bytes, 50 * 32 + 448 + 48);
}

Test(gc, young_large_freed_when_unreachable) {
    sgc_alloc(T_BYTES, 10000);
    sgc_alloc(T_BYTES, 20000);
    sgc_stats s = stats();
    cr_assert_eq(s.large_objects, 2);
    cr_assert_eq(s.large_bytes, SGC_FOOTPRINT(10000) + SGC_FOOTPRINT(20000));
    cr_assert_eq(s.heap_bytes, SGC_FOOTPRINT(10000) + SGC_FOOTPRINT(20000));
    cr_assert_eq(s.nursery_objects, 0);
    sgc_collect_minor();
    s = stats();
    cr_assert_eq(s.heap_bytes, 0);
    cr_assert_eq(s.large_promoted, 0);
}

Test(gc, young_large_promoted_when_reachable) {
    sgc_obj *big = NULL;
    SGC_FRAME(&big);
    big = sgc_alloc(T_PTRS, 8 + 8 * 1100);
    cr_assert(!in_nursery(big));
    cr_assert(sgc__is_young_large(big));
    big[1] = new_node(9); /* young large -> nursery: no barrier needed while young */
    sgc_obj before = big;
    sgc_collect_minor();
    cr_assert_eq(big, before, "large objects never move");
    cr_assert(!sgc__is_young_large(big));
    cr_assert(!in_nursery(big[1]));
    cr_assert_eq(((node *)big[1])->value, 9);
    sgc_stats s = stats();
    cr_assert_eq(s.large_promoted, 1);
    cr_assert_eq(s.bytes_promoted, 32);
    /* Old now: a young pointer stored into it needs the barrier. */
    big[2] = new_node(10);
    sgc_write_barrier(big);
    sgc_collect_minor();
    cr_assert_eq(((node *)big[2])->value, 10);
    big = NULL;
    sgc_collect_major();
    cr_assert_eq(stats().heap_bytes, 0);
}

Test(gc, large_reached_only_from_old_object) {
    node *old = NULL;
    SGC_FRAME(&old);
    old = new_node(1);
    sgc_collect_minor();
    SGC_SET(old, a, (node *)sgc_alloc(T_BYTES, 9000));
    sgc_collect_minor();
    cr_assert_eq(stats().large_promoted, 1);
    cr_assert_eq(SGC_PAYLOAD_BYTES(old->a), 9000);
}

Test(gc, object_larger_than_nursery_is_large) {
    setenv("SGC_NURSERY", "4K", 1);
    sgc_init();
    cr_assert_eq(sgc_nursery.end - sgc_nursery.start, 4096);
    sgc_obj o = sgc_alloc(T_BYTES, 5000); /* < SGC_LARGE_MIN but > nursery */
    cr_assert(sgc__is_young_large(o));
    cr_assert_eq(stats().large_objects, 1);
}

Test(gc, many_large_objects_trigger_minor_collections) {
    /* Only large garbage: young large objects must not pile up. */
    for (int i = 0; i < 2000; i++)
        sgc_alloc(T_BYTES, 100000);
    sgc_stats s = stats();
    cr_assert_gt(s.minor_collections, 0);
    cr_assert_lt(s.peak_heap_bytes, (uint64_t)6 << 20);
}

Test(gc, major_triggered_by_growth_exactly) {
    /* Each round promotes 2048 nodes (64 KiB) and drops them.  Nothing stays
     * live, so the threshold stays at the 4 MiB floor: the 64th minor
     * collection reaches it.  128 rounds: exactly 2 major collections. */
    node *keep = NULL, *tmp = NULL;
    SGC_FRAME(&keep, &tmp);
    for (int r = 0; r < 128; r++) {
        keep = NULL;
        for (int i = 0; i < 2048; i++) {
            tmp = new_node((uint64_t)i);
            tmp->a = keep;
            keep = tmp;
        }
        sgc_collect_minor();
    }
    sgc_stats s = stats();
    cr_assert_eq(s.minor_collections, 128);
    cr_assert_eq(s.major_collections, 2);
    /* Majors after rounds 64 and 127 (64 KiB survives each: that round's
     * chain is still rooted); round 128 adds its chain. */
    cr_assert_eq(s.heap_bytes, 128 * 1024, "got %llu", (unsigned long long)s.heap_bytes);
    cr_assert_eq(s.peak_heap_bytes, (4 << 20) + (1 << 20), "peak = floor + nursery, got %llu",
                 (unsigned long long)s.peak_heap_bytes);
}

Test(gc, growth_factor_setting) {
    setenv("SGC_MAJOR_GROWTH", "1.5", 1);
    setenv("SGC_VERIFY", "0", 1);
    /* About 7.5 MiB stays live, then each round promotes 64 KiB of garbage:
     * the next major collection comes at the first minor collection that
     * brings the heap to 1.5 x live. */
    sgc_obj *arr = NULL;
    node *keep = NULL, *tmp = NULL;
    SGC_FRAME(&arr, &keep, &tmp);
    arr = sgc_alloc(T_PTRS, 8 + 8 * 196608);
    for (int i = 0; i < 196608; i++) {
        tmp = new_node(1);
        arr[1 + i] = tmp;
        sgc_write_barrier(arr);
    }
    sgc_collect_major();
    sgc_stats s = stats();
    uint64_t live = s.heap_bytes, majors = s.major_collections;
    cr_assert_eq(live, SGC_FOOTPRINT(8 + 8 * 196608) + (uint64_t)196608 * 32);
    uint64_t threshold = (uint64_t)((double)live * 1.5);
    uint64_t want_rounds = (threshold - live + 65535) / 65536, rounds = 0;
    while (stats().major_collections == majors && rounds < 1000) {
        keep = NULL;
        for (int i = 0; i < 2048; i++) {
            tmp = new_node(2);
            tmp->a = keep;
            keep = tmp;
        }
        sgc_collect_minor();
        rounds++;
    }
    cr_assert_eq(rounds, want_rounds);
    cr_assert_eq(stats().heap_bytes, live + 65536, "only the last round's chain is live after the major");
}

Test(gc, poison_evacuated_nursery) {
    setenv("SGC_POISON", "1", 1);
    node *x = NULL;
    SGC_FRAME(&x);
    x = new_node(77);
    node *stale = x;
    sgc_collect_minor();
    cr_assert_neq(x, stale);
    cr_assert_eq(x->value, 77);
    cr_assert_eq(stale->value, 0xdbdbdbdbdbdbdbdbull, "evacuated space is poisoned");
    cr_assert_eq((uintptr_t)stale->a, 0xdbdbdbdbdbdbdbdbull);
    /* The nursery in use is zero, so new objects still come out zeroed. */
    node *y = new_node(0);
    cr_assert_eq(y->a, NULL);
    cr_assert_eq(y->value, 0);
}

Test(gc, stress_mode_collects_every_n) {
    setenv("SGC_GC_STRESS", "10", 1);
    node *keep = NULL;
    SGC_FRAME(&keep);
    for (int i = 0; i < 1000; i++) {
        node *n = new_node((uint64_t)i);
        n->a = keep;
        keep = n;
    }
    uint64_t expect = 999;
    for (node *n = keep; n; n = n->a, expect--)
        cr_assert_eq(n->value, expect);
    sgc_stats s = stats();
    cr_assert_eq(s.minor_collections, 100);
    cr_assert_eq(s.nursery_objects, 1000);
}

/* The nursery count (sgc__nursery_count) counts runs of identical headers
 * 16 and 8 at a time: runs of every length from 1 to 40 (a run ends where
 * the next object's type or size differs), read by sgc_get_stats in the
 * middle of a chunk, counted across the slow path's 16 KiB chunks and at a
 * collection with forwarded objects among them, all exact. */
Test(gc, nursery_count_runs_exact) {
    setenv("SGC_NURSERY", "1M", 1);
    node *keep = NULL;
    SGC_FRAME(&keep);
    uint64_t want = 0;
    for (int round = 0; round < 3; round++) {
        for (size_t len = 1; len <= 40; len++) {
            for (size_t i = 0; i < len; i++) {
                sgc_alloc(T_BYTES, 8 + 8 * (len % 3));
                want++;
            }
            /* The next run's first object differs in type. */
            node *n = new_node(len);
            want++;
            if (len % 7 == 0) { /* a survivor: forwarded at the collection */
                n->a = keep;
                keep = n;
            }
            if (len % 5 == 0)
                cr_assert_eq(stats().nursery_objects, want, "round %d, run of %zu", round, len);
        }
        cr_assert_eq(stats().nursery_objects, want);
        if (round == 1)
            sgc_collect_minor();
    }
    sgc_collect_minor();
    cr_assert_eq(stats().nursery_objects, want);
}

Test(gc, stats_record_written_atomically) {
    char path[] = "/tmp/sgc-test-stats-XXXXXX";
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    close(fd);
    setenv("SGC_STATS", path, 1);
    setenv("SGC_NURSERY", "64K", 1);
    node *keep = NULL;
    SGC_FRAME(&keep);
    keep = new_node(1);
    sgc_alloc(T_BYTES, 10000);
    sgc_collect_minor();
    sgc_collect_major();
    sgc_shutdown();
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f);
    char line[256];
    cr_assert_not_null(fgets(line, sizeof line, f));
    cr_assert_str_eq(line, "sgc-stats 1\n");
    struct {
        const char *key;
        const char *value;
        int found;
    } want[] = {
        {"nursery_bytes", "32", 0},       {"nursery_objects", "1", 0},     {"large_bytes", "10008", 0},
        {"large_objects", "1", 0},        {"bytes_allocated", "10040", 0}, {"objects_allocated", "2", 0},
        {"minor_collections", "2", 0},    {"major_collections", "1", 0},   {"bytes_promoted", "32", 0},
        {"large_promoted", "0", 0},       {"peak_heap_bytes", "75576", 0}, {"nursery_size", "65536", 0},
        {"alloc_mode", "fixed", 0},       {"time_clock", "wall", 0},       {"major_growth", "2.000", 0},
        {"stress_every", "0", 0},         {"alloc_period", "0", 0},        {"alloc_offset", "0", 0},
        {"time_hz_achieved", "0.000", 0},
    };
    int keys = 0;
    while (fgets(line, sizeof line, f)) {
        char key[64], value[128];
        cr_assert_eq(sscanf(line, "%63s %127s", key, value), 2, "line: %s", line);
        keys++;
        for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
            if (strcmp(key, want[i].key) == 0) {
                cr_assert_str_eq(value, want[i].value, "%s", key);
                want[i].found = 1;
            }
    }
    fclose(f);
    unlink(path);
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        cr_assert(want[i].found, "key %s missing", want[i].key);
    cr_assert_geq(keys, 33);
}

Test(gc, out_of_memory_exits_1_with_message, .exit_code = 1) {
    setenv("SGC_VERIFY", "0", 1);
    sgc_init();
#ifndef UNDER_ASAN
    /* ASan reserves its shadow memory up front, so an address-space limit
     * would stop ASan itself: only the plain build limits it. */
    struct rlimit rl = {(rlim_t)512 << 20, (rlim_t)512 << 20};
    cr_assert_eq(setrlimit(RLIMIT_AS, &rl), 0);
    sgc_alloc(T_BYTES, (size_t)1 << 30);
#else
    sgc_alloc(T_BYTES, (size_t)31 << 30);
#endif
}

Test(gc, object_above_32_gib_refused, .signal = SIGABRT) { sgc_alloc(T_BYTES, (size_t)1 << 40); }

Test(gc, object_count_exact_with_runs_and_survivors) {
    /* Runs of identical headers of every length around the 8-at-a-time
     * step, different sizes and types, survivors (forwarded headers) mixed
     * in, across several collections and at read time. */
    sgc_obj *keep = NULL;
    SGC_FRAME(&keep);
    keep = sgc_alloc(T_PTRS, 8 + 8 * 400);
    uint64_t objects = 1, bytes = SGC_FOOTPRINT(8 + 8 * 400), kept = 0;
    for (int round = 0; round < 3; round++) {
        for (int len = 1; len <= 40; len++) {
            size_t payload = (size_t)(len % 5) * 8 + 8;
            for (int i = 0; i < len; i++) {
                sgc_obj o = sgc_alloc(len % 3 ? T_BYTES : T_DOUBLES, payload);
                if (i == len / 2 && kept < 400) { /* survives: a forwarded header inside a run */
                    keep[1 + kept++] = o;
                    sgc_write_barrier(keep);
                }
                objects++;
                bytes += SGC_FOOTPRINT(payload);
            }
        }
        sgc_stats s = stats();
        cr_assert_eq(s.nursery_objects, objects, "at read time, round %d", round);
        cr_assert_eq(s.nursery_bytes, bytes);
        sgc_collect_minor();
        s = stats();
        cr_assert_eq(s.nursery_objects, objects, "after a collection, round %d", round);
    }
    /* A nursery filled exactly to its end with one long run. */
    while (sgc_nursery.free + 24 <= sgc_nursery.end) {
        sgc_alloc(T_BYTES, 16);
        objects++;
    }
    cr_assert_eq(stats().nursery_objects, objects);
    sgc_alloc(T_BYTES, 16); /* the nursery is full: collects first */
    cr_assert_eq(stats().nursery_objects, objects + 1);
}

/* err begins with want (a sanitizer build may print more after it). */
static void assert_begins(const char *err, const char *want) {
    cr_assert_eq(strncmp(err, want, strlen(want)), 0, "got: %s\nwant: %s", err, want);
}

/* Runs fn in a child with stderr captured; returns its exit status (-1 if
 * it did not exit) and what it printed. */
static int in_child(void (*fn)(void), char *err, size_t errlen) {
    int fds[2];
    cr_assert_eq(pipe(fds), 0);
    fflush(NULL);
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) {
        close(fds[0]);
        dup2(fds[1], 2);
        fn();
        _exit(0);
    }
    close(fds[1]);
    size_t n = 0;
    ssize_t r;
    while (n + 1 < errlen && (r = read(fds[0], err + n, errlen - 1 - n)) > 0)
        n += (size_t)r;
    err[n] = '\0';
    close(fds[0]);
    int status;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void init_only(void) { sgc_init(); }

Test(gc, unwritable_stats_path_refused_at_start) {
    char err[512];
    setenv("SGC_STATS", "/nonexistent-dir/stats", 1);
    cr_assert_eq(in_child(init_only, err, sizeof err), 2, "%s", err);
    assert_begins(err, "freecheck: SGC_STATS=/nonexistent-dir/stats: cannot write the stats record there: "
                       "cannot write /nonexistent-dir/stats (through a temporary file next to it): No such file or "
                       "directory\n");
    /* A FIFO (as /dev/null would be): refused, and left as it is. */
    char dir[] = "/tmp/sgc-test-fifo-XXXXXX", fifo[64];
    cr_assert_not_null(mkdtemp(dir));
    snprintf(fifo, sizeof fifo, "%s/fifo", dir);
    cr_assert_eq(mkfifo(fifo, 0600), 0);
    setenv("SGC_STATS", fifo, 1);
    char want[160];
    snprintf(want, sizeof want, "freecheck: SGC_STATS=%s: cannot write the stats record there: not a regular file",
             fifo);
    cr_assert_eq(in_child(init_only, err, sizeof err), 2, "%s", err);
    assert_begins(err, want);
    struct stat st;
    cr_assert(stat(fifo, &st) == 0 && S_ISFIFO(st.st_mode), "the FIFO is still a FIFO");
    unlink(fifo);
    rmdir(dir);
    setenv("SGC_STATS", "/tmp", 1);
    cr_assert_eq(in_child(init_only, err, sizeof err), 2, "%s", err);
    assert_begins(err, "freecheck: SGC_STATS=/tmp: cannot write the stats record there: is a directory\n");
}

Test(gc, stats_record_that_becomes_unwritable_exits_1, .exit_code = 1) {
    char dir[] = "/tmp/sgc-test-statsdir-XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char path[64];
    snprintf(path, sizeof path, "%s/stats", dir);
    setenv("SGC_STATS", path, 1);
    sgc_alloc(T_BYTES, 8);
    cr_assert_eq(rmdir(dir), 0, "the check at start-up leaves nothing behind");
    sgc_shutdown(); /* prints why and exits with status 1 */
}

#ifndef UNDER_ASAN
static void init_in_256m(void) {
    struct rlimit rl = {(rlim_t)256 << 20, (rlim_t)256 << 20};
    if (setrlimit(RLIMIT_AS, &rl) != 0)
        _exit(99);
    sgc_init();
}
#endif

Test(gc, nursery_the_system_cannot_map_exits_2) {
#ifdef UNDER_ASAN
    cr_skip_test("ASan reserves its shadow memory up front: an address-space limit would stop ASan itself");
#else
    char err[512];
    setenv("SGC_NURSERY", "1G", 1);
    cr_assert_eq(in_child(init_in_256m, err, sizeof err), 2, "%s", err);
    assert_begins(err, "freecheck: SGC_NURSERY=1G: the system refused to map 1073741824 bytes for the nursery "
                       "(Cannot allocate memory); choose a smaller nursery\n");
#endif
}

/* A list that only grows: 8000 nodes of 32 bytes per step, all kept. */
static void grow_forever(void) {
    node *keep = NULL;
    SGC_FRAME(&keep);
    for (;;) {
        node *n = new_node(1);
        n->a = keep;
        keep = n;
    }
}

Test(gc, heap_max_stops_a_growing_heap_with_a_message) {
    char err[512];
    setenv("SGC_VERIFY", "0", 1);
    setenv("SGC_NURSERY", "64K", 1);
    setenv("SGC_HEAP_MAX", "8M", 1);
    cr_assert_eq(in_child(grow_forever, err, sizeof err), 1, "%s", err);
    const char *want = "freecheck: out of memory: the live heap exceeds SGC_HEAP_MAX=8388608 (after a full "
                       "collection: ";
    cr_assert_eq(strncmp(err, want, strlen(want)), 0, "%s", err);
    cr_assert_not_null(strstr(err, " bytes in the old generation and large objects, 65536 in the nursery)\n"), "%s",
                       err);
}

static void large_beyond_max(void) {
    node *keep = NULL;
    SGC_FRAME(&keep);
    sgc_alloc(T_BYTES, (size_t)9 << 20);
}

Test(gc, heap_max_refuses_a_large_object_beyond_it) {
    char err[512];
    setenv("SGC_VERIFY", "0", 1);
    setenv("SGC_NURSERY", "64K", 1);
    setenv("SGC_HEAP_MAX", "8M", 1);
    cr_assert_eq(in_child(large_beyond_max, err, sizeof err), 1, "%s", err);
    assert_begins(err, "freecheck: out of memory: a large object of 9437192 bytes exceeds SGC_HEAP_MAX=8388608 "
                       "(after a full collection: 0 bytes in the old generation and large objects, 65536 in "
                       "the nursery)\n");
}

Test(gc, heap_max_lets_garbage_through) {
    /* 64 MiB of garbage and 200 large objects, 16 MiB in all, with at most
     * 6 MiB live at any time: never more than the limit after a collection. */
    setenv("SGC_VERIFY", "0", 1);
    setenv("SGC_NURSERY", "64K", 1);
    setenv("SGC_HEAP_MAX", "8M", 1);
    node *keep = NULL;
    SGC_FRAME(&keep);
    for (int i = 0; i < (1 << 21); i++) {
        node *n = new_node((uint64_t)i);
        if (i % (1 << 17) == 0)
            keep = NULL; /* drops up to 128K nodes, 4 MiB */
        n->a = keep;
        keep = n;
    }
    for (int i = 0; i < 200; i++)
        sgc_alloc(T_BYTES, 80000);
    cr_assert_eq(stats().nursery_objects, 1 << 21);
    /* A minor collection may promote one nursery's worth before the check. */
    cr_assert_leq(stats().peak_heap_bytes, ((uint64_t)8 << 20) + (64 << 10));
}

/* A profile that cannot be written completely (a full disk; here the file
 * size limit, RLIMIT_FSIZE, with SIGXFSZ ignored, so that write() fails as
 * on a full disk) is said on stderr and makes the exit status 1: the
 * program runs on, but its run is not silently a good one. */
Test(gc, incomplete_profile_exits_1, .exit_code = 1) {
    char path[] = "/tmp/sgc-test-fullprofile-XXXXXX";
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    close(fd);
    setenv("SGC_VERIFY", "0", 1);
    setenv("SGC_PROFILE", path, 1);
    setenv("SGC_ALLOC_PERIOD", "4K", 1);
    signal(SIGXFSZ, SIG_IGN);
    struct rlimit rl = {4096, 4096};
    cr_assert_eq(setrlimit(RLIMIT_FSIZE, &rl), 0);
    for (int i = 0; i < 100000; i++)
        sgc_alloc(T_BYTES, 64);
    unlink(path);
    sgc_shutdown();
}
