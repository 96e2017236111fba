/* fuzz_sampler.c - libFuzzer target: random operation sequences run on the
 * real runtime and on the reference model (fuzz_model.h), which must agree
 * exactly on every allocation's sample count, on every sampled object's
 * survival (in order), and on the byte and sample totals.
 *
 * Input bytes decode into operations (missing bytes read as 0):
 *   op % 8 in 0..3  alloc: the next byte picks a size class (small, medium,
 *                   around SGC_LARGE_MIN, large up to 4 nurseries) and keep
 *   4               minor collection
 *   5               major collection
 *   6               start fixed sampling with a period drawn from a few
 *                   classes (tiny, word multiples, near the nursery size, any)
 *   7               start poisson sampling (same periods, a seed) or stop
 * The nursery is 16 KiB (SGC_NURSERY overrides), so periods larger than the
 * nursery, objects larger than the nursery and large objects all occur.
 * A mismatch prints what differs and aborts, which libFuzzer reports with
 * the input that caused it.  With FUZZ_TRACE=1 in the environment each input
 * is also printed to stderr as an allocation trace (docs/FORMATS.md) that
 * sgc-replay can run.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fuzz_model.h"
#include "sgc_internal.h"
#include "sgc_sample.h"

typedef struct fuzz_event {
    uint64_t id;  /* serial of the sampled object */
    int survival; /* enum sgc_survival */
} fuzz_event;

typedef struct fuzz_events {
    fuzz_event *v; /* events in order */
    size_t n, cap; /* used / allocated */
} fuzz_events;

static fuzz_events got, want;
static uint32_t fuzz_tid;
static uint64_t nursery_bytes;
static int trace; /* FUZZ_TRACE: print each input as a trace */

/* Objects kept reachable: the roots of one frame. */
#define FUZZ_MAX_KEEP 4096
static sgc_obj kept[FUZZ_MAX_KEEP];
static void *kept_slots[FUZZ_MAX_KEEP];
static sgc_frame root_frame;
static sgc_func fuzz_func = {"fuzz_sampler", 0};

static void push_event(fuzz_events *e, uint64_t id, int survival) {
    if (e->n == e->cap) {
        e->cap = e->cap ? 2 * e->cap : 256;
        e->v = realloc(e->v, e->cap * sizeof *e->v);
        if (!e->v)
            abort();
    }
    e->v[e->n++] = (fuzz_event){id, survival};
}

static void on_sample(void *ctx, const sgc_alloc_sample *rec, uint64_t serial) {
    (void)ctx;
    push_event(&got, serial, rec->survival);
}

static void on_model(void *ctx, uint64_t id, int survival) {
    (void)ctx;
    push_event(&want, id, survival);
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    setenv("SGC_NURSERY", "16384", 0);
    unsetenv("SGC_ALLOC_PERIOD");
    sgc_init();
    nursery_bytes = (uint64_t)(sgc_nursery.end - sgc_nursery.start);
    static const sgc_type t = {"fuzz_bytes", 0, 0, SGC_VAR_BYTES};
    fuzz_tid = sgc_type_register(&t);
    for (int i = 0; i < FUZZ_MAX_KEEP; i++)
        kept_slots[i] = &kept[i];
    root_frame.func = &fuzz_func;
    root_frame.roots = kept_slots;
    root_frame.nroots = 0; /* grows with the objects kept */
    sgc_frame_push(&root_frame);
    sgc__sample_set_observer(on_sample, NULL);
    const char *tr = getenv("FUZZ_TRACE");
    trace = tr && *tr && strcmp(tr, "0");
    return 0;
}

typedef struct reader {
    const uint8_t *p, *end; /* unread input */
} reader;

static unsigned next8(reader *r) { return r->p < r->end ? *r->p++ : 0; }
static unsigned next16(reader *r) { return next8(r) | next8(r) << 8; }
static uint64_t next32(reader *r) { return next16(r) | (uint64_t)next16(r) << 16; }

static uint64_t pick_period(reader *r) {
    switch (next8(r) % 4) {
    case 0: return 1 + next8(r);                                             /* 1..256: several points per object */
    case 1: return 8 * (1 + next16(r) % 4096);                               /* word multiples up to 32 KiB */
    case 2: return nursery_bytes * (1 + next8(r) % 4) + (next8(r) % 17) - 8; /* around k nurseries */
    default: return 1 + next32(r) % (1u << 20);                              /* anything up to 1 MiB */
    }
}

static size_t pick_payload(reader *r, unsigned c) {
    switch (c % 4) {
    case 0: return next8(r);                                 /* small */
    case 1: return 8 * (size_t)next8(r) + next8(r) % 8;      /* up to 2 KiB, any alignment */
    case 2: return SGC_LARGE_MIN - 64 + next8(r) % 128;      /* either side of the large threshold */
    default: return (size_t)next32(r) % (4 * nursery_bytes); /* up to 4 nurseries */
    }
}

static void fail(const char *what, unsigned long long a, unsigned long long b) {
    fprintf(stderr, "fuzz_sampler: mismatch: %s: runtime %llu, model %llu\n", what, a, b);
    abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    reader r = {data, data + size};
    /* A clean slate: nothing kept, sampling off, nothing pending. */
    sgc_sampling_stop();
    memset(kept, 0, sizeof kept);
    root_frame.nroots = 0;
    sgc_collect_major();
    got.n = want.n = 0;
    model m;
    model_init(&m, on_model, NULL);
    sgc_stats st;
    sgc_get_stats(&st);
    uint64_t bytes0 = st.sampled_bytes, points0 = st.alloc_sample_points;
    uint64_t serial_base = sgc__stats.alloc_samples;
    size_t nkept = 0;
    if (trace)
        fprintf(stderr, "# fuzz input of %zu bytes\nnursery %llu\n", size, (unsigned long long)nursery_bytes);

    while (r.p < r.end) {
        unsigned op = next8(&r) % 8;
        uint64_t gcs = sgc__stats.minor_collections + sgc__stats.major_collections;
        if (op < 4) {
            unsigned c = next8(&r);
            size_t payload = pick_payload(&r, c);
            int keep = (c & 4) && nkept < FUZZ_MAX_KEEP;
            if (trace)
                fprintf(stderr, "alloc %zu%s\n", payload, keep ? " keep" : "");
            uint64_t before = sgc__stats.alloc_sample_points;
            sgc_obj obj = sgc_alloc(fuzz_tid, payload);
            uint64_t points = sgc__stats.alloc_sample_points - before;
            /* Any collection in the slow path ran before the object existed. */
            if (sgc__stats.minor_collections + sgc__stats.major_collections != gcs)
                model_minor(&m);
            uint64_t expect = model_alloc(&m, SGC_FOOTPRINT(payload), serial_base + m.total_sampled + 1, keep);
            if (points != expect)
                fail("samples of one allocation", points, expect);
            if (keep) {
                kept[nkept++] = obj;
                root_frame.nroots = (uint32_t)nkept;
            }
        } else if (op == 4) {
            if (trace)
                fprintf(stderr, "minor\n");
            sgc_collect_minor();
            model_minor(&m);
        } else if (op == 5) {
            if (trace)
                fprintf(stderr, "major\n");
            sgc_collect_major();
            model_minor(&m);
        } else if (op == 6) {
            uint64_t p = pick_period(&r);
            if (trace)
                fprintf(stderr, "period %llu\n", (unsigned long long)p);
            sgc_sampling_start(p, SGC_SAMPLE_FIXED, 0);
            model_start(&m, p, SGC_SAMPLE_FIXED, 0);
        } else {
            unsigned c = next8(&r);
            if (c % 4 == 0) {
                if (trace)
                    fprintf(stderr, "period 0\n");
                sgc_sampling_stop();
                model_stop(&m);
            } else {
                uint64_t p = pick_period(&r), seed = next32(&r);
                if (trace)
                    fprintf(stderr, "poisson %llu %llu\n", (unsigned long long)p, (unsigned long long)seed);
                sgc_sampling_start(p, SGC_SAMPLE_POISSON, seed);
                model_start(&m, p, SGC_SAMPLE_POISSON, seed);
            }
        }
        if (got.n != want.n)
            fail("sampled objects settled so far", got.n, want.n);
    }
    sgc_sampling_stop();
    model_stop(&m);
    if (got.n != want.n)
        fail("sampled objects settled", got.n, want.n);
    for (size_t i = 0; i < got.n; i++) {
        if (got.v[i].id != want.v[i].id)
            fail("serial of the next settled object", got.v[i].id, want.v[i].id);
        if (got.v[i].survival != want.v[i].survival) {
            fprintf(stderr, "fuzz_sampler: sampled object %llu: ", (unsigned long long)got.v[i].id);
            fail("survival (0 died, 1 survived, 2 unknown)", (unsigned)got.v[i].survival, (unsigned)want.v[i].survival);
        }
    }
    sgc_get_stats(&st);
    if (st.sampled_bytes - bytes0 != m.total_bytes)
        fail("bytes allocated while sampling", st.sampled_bytes - bytes0, m.total_bytes);
    if (st.alloc_sample_points - points0 != m.total_points)
        fail("sample points", st.alloc_sample_points - points0, m.total_points);
    if (sgc__stats.alloc_samples - serial_base != m.total_sampled)
        fail("sampled objects", sgc__stats.alloc_samples - serial_base, m.total_sampled);
    model_free(&m);
    return 0;
}
