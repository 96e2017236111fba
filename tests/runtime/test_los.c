/* test_los.c - the large-object space (runtime/sgc_los.c) and the lazily
 * zeroed nursery (runtime/sgc_alloc.c).  Chunks are the
 * runtime's own mappings, reused by page count and zeroed as far as the new
 * object reaches, big or surplus ones unmapped; large objects that die are
 * reused, and sampling leaves the heap's mappings as they were. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sgc_gc.h"

static size_t page(void) { return (size_t)sysconf(_SC_PAGESIZE); }

TestSuite(los, .init = NULL);

Test(los, chunks_are_page_aligned_zeroed_and_reused_by_page_count) {
    size_t pg = page();
    uint64_t m0 = sgc__los_mapped();
    unsigned char *a = sgc__los_alloc(3 * pg - 100);
    cr_assert_not_null(a);
    cr_assert_eq((uintptr_t)a % pg, 0);
    cr_assert_eq(sgc__los_mapped() - m0, 3 * pg);
    for (size_t i = 0; i < 3 * pg - 100; i++)
        cr_assert_eq(a[i], 0);
    memset(a, 0xab, 3 * pg);
    sgc__los_free(a, 3 * pg - 100);
    cr_assert_eq(sgc__los_cached(), 3 * pg);
    /* Same page count, smaller object: the same chunk, zeroed as far as the
     * new object reaches (the rest is not the object's). */
    unsigned char *b = sgc__los_alloc(2 * pg + 1);
    cr_assert_eq(b, a);
    cr_assert_eq(sgc__los_cached(), 0);
    for (size_t i = 0; i < 2 * pg + 1; i++)
        cr_assert_eq(b[i], 0, "byte %zu of a reused chunk is not zero", i);
    /* Another page count: a new mapping. */
    unsigned char *c = sgc__los_alloc(pg);
    cr_assert_neq(c, a);
    cr_assert_eq(sgc__los_mapped() - m0, 4 * pg);
    sgc__los_free(b, 2 * pg + 1);
    sgc__los_free(c, pg);
    cr_assert_eq(sgc__los_cached(), 4 * pg);
    cr_assert_eq(sgc__los_mapped() - m0, 4 * pg);
}

Test(los, above_64_pages_sizes_share_lists_in_steps_of_16_pages) {
    size_t pg = page();
    void *a = sgc__los_alloc(70 * pg);
    sgc__los_free(a, 70 * pg);
    cr_assert_eq(sgc__los_cached(), 80 * pg);
    void *b = sgc__los_alloc(79 * pg + 5); /* 80 pages too */
    cr_assert_eq(b, a);
    sgc__los_free(b, 79 * pg + 5);
}

Test(los, what_the_cache_cannot_hold_goes_back_to_the_system) {
    size_t pg = page();
    uint64_t m0 = sgc__los_mapped();
    /* Larger than any list: unmapped on free. */
    size_t huge = (size_t)(SGC_LOS_CLASSES + 16) * pg;
    void *h = sgc__los_alloc(huge);
    cr_assert_eq(sgc__los_mapped() - m0, huge);
    sgc__los_free(h, huge);
    cr_assert_eq(sgc__los_mapped(), m0);
    cr_assert_eq(sgc__los_cached(), 0);
    /* Beyond the cache's cap: 3 chunks of 32 MiB, at most 2 kept (64 MiB). */
    size_t big = (size_t)SGC_LOS_CLASSES * pg;
    void *p[3];
    for (int i = 0; i < 3; i++)
        p[i] = sgc__los_alloc(big);
    for (int i = 0; i < 3; i++)
        sgc__los_free(p[i], big);
    cr_assert_eq(sgc__los_cached(), 2 * (uint64_t)big);
    cr_assert_eq(sgc__los_mapped() - m0, 2 * (uint64_t)big);
}

/* Through the collector: a dead large object's chunk serves the next one of
 * its size, which comes out zeroed, in every heap mode. */
typedef struct blob {
    uint64_t words[4096];
} blob;

static void reuse_round_trip(void) {
    sgc_type t = {"blob", 8, 0, SGC_VAR_WORDS};
    uint32_t tid = sgc_type_register(&t);
    uint64_t *a = sgc_alloc(tid, 40000);
    for (size_t i = 0; i < 40000 / 8; i++)
        a[i] = ~(uint64_t)0;
    uint64_t mapped = sgc__los_mapped();
    sgc_collect_minor(); /* a is dead: its chunk goes to the free lists */
    cr_assert_eq(sgc__los_mapped(), mapped);
    cr_assert_gt(sgc__los_cached(), 0);
    uint64_t *b = sgc_alloc(tid, 40000);
    cr_assert_eq(b, a, "the dead object's chunk was not reused");
    cr_assert_eq(sgc__los_mapped(), mapped);
    for (size_t i = 0; i < 40000 / 8; i++)
        cr_assert_eq(b[i], 0, "word %zu of a reused large object is not zero", i);
}

Test(los, collector_reuses_dead_large_objects_zeroed) {
    unsetenv("SGC_POISON");
    sgc_init();
    reuse_round_trip();
}

Test(los, collector_reuses_dead_large_objects_zeroed_when_poisoning) {
    setenv("SGC_POISON", "1", 1);
    sgc_init();
    reuse_round_trip();
}

/* ---- The lazily zeroed nursery ------------------------------------------- */

/* Objects of many sizes across many chunk boundaries and collections: each
 * comes out zeroed although the nursery is dirty (filled with a pattern
 * here before it is handed out again), and the object count is exact at
 * every point, between chunks, mid-chunk and after collections. */
static void lazy_round_trip(void) {
    sgc_type t = {"raw", 8, 0, SGC_VAR_BYTES};
    uint32_t tid = sgc_type_register(&t);
    sgc_stats s0, s;
    sgc_get_stats(&s0);
    uint64_t n = 0, bytes = 0;
    for (int i = 0; i < 60000; i++) {
        size_t payload = 8 + (size_t)(i * 37 % 700);
        unsigned char *p = sgc_alloc(tid, payload);
        for (size_t k = 0; k < payload; k++)
            cr_assert_eq(p[k], 0, "object %d byte %zu not zero", i, k);
        memset(p, 0x5a, payload); /* dirty: the next use of this memory must be zeroed again */
        n++;
        bytes += SGC_FOOTPRINT(payload);
        if (i % 7919 == 0) {
            sgc_get_stats(&s);
            cr_assert_eq(s.nursery_objects - s0.nursery_objects, n, "count at object %d", i);
            cr_assert_eq(s.nursery_bytes - s0.nursery_bytes, bytes);
        }
        /* The unallocated rest of the zeroed part is zero. */
        cr_assert_leq(sgc_nursery.limit, sgc__nursery_zeroed);
    }
    sgc_collect_minor();
    sgc_get_stats(&s);
    cr_assert_eq(s.nursery_objects - s0.nursery_objects, n);
    cr_assert_eq(s.nursery_bytes - s0.nursery_bytes, bytes);
    /* A collection zeroes nothing: only the chunk of the next allocation is. */
    cr_assert_eq(sgc__nursery_zeroed, sgc_nursery.start);
    sgc_alloc(tid, 8);
    cr_assert_eq(sgc__nursery_zeroed, sgc_nursery.start + SGC_ZERO_CHUNK);
}

Test(lazy, objects_zeroed_and_counted_exactly) {
    setenv("SGC_NURSERY", "64K", 1);
    sgc_init();
    lazy_round_trip();
}

Test(lazy, with_sampling_and_poison) {
    setenv("SGC_NURSERY", "64K", 1);
    setenv("SGC_ALLOC_PERIOD", "3000", 1);
    setenv("SGC_POISON", "1", 1);
    sgc_init();
    lazy_round_trip();
}
