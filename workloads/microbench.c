/* microbench.c - a tight allocation loop through a small call chain (the paper's microbenchmark).
 *
 * What it models: the paper's "microbench.py": a loop that does little but
 * allocate short-lived objects of a few different sizes through a shallow
 * call chain, so allocation (and therefore allocation sampling) dominates
 * the run time.  Each iteration builds a small record (Point), a boxed
 * vector of 1..16 words (Vector), a byte buffer of 8..263 bytes (Text) and a
 * pair tying them together (Pair); a ring of 16 recent pairs keeps each one
 * alive for 16 iterations, so objects die young but not instantly and some
 * are caught live by each minor collection.
 *
 * Scaling: --size N runs N*1024 iterations (linear).  Call chain:
 * main -> microbench_loop -> microbench_step -> make_point / make_vector /
 * make_text / make_pair, each with its own frame.
 *
 * Checksum: each iteration reads values back from the pair that falls out
 * of the ring (allocated 16 iterations earlier, so it has possibly been
 * moved by a collection) and from the new one, and mixes them.  The values
 * are functions of the iteration number, so the reference computes them
 * with plain arithmetic, without any objects.
 */
#include "wl_common.h"

typedef struct Point {
    int64_t x, y; /* x = iteration, y = 3 * iteration + 1 */
} Point;

typedef struct Vector {
    int64_t length;  /* words that follow */
    int64_t words[]; /* words[k] = iteration * 7 + k */
} Vector;

typedef struct Text {
    int64_t length;        /* bytes that follow */
    unsigned char bytes[]; /* bytes[k] = (iteration + k) & 0xff */
} Text;

typedef struct Pair {
    Point *point;   /* this iteration's point */
    Vector *vector; /* this iteration's vector */
    Text *text;     /* this iteration's text */
    int64_t iteration;
} Pair;

typedef struct Ring {
    Pair *slots[16]; /* the last 16 pairs, slot = iteration % 16 */
} Ring;

enum { RING = 16 };

static uint32_t t_point, t_vector, t_text, t_pair, t_ring;

static int64_t vector_length(int64_t i) { return 1 + (i * 5) % 16; }
static int64_t text_length(int64_t i) { return 8 + (i * 37) % 256; }

static Point *make_point(int64_t i) {
    SGC_FRAME();
    Point *p = SGC_NEW(t_point, Point);
    p->x = i;
    p->y = 3 * i + 1;
    return p;
}

static Vector *make_vector(int64_t i) {
    Vector *v = NULL;
    SGC_FRAME(&v);
    int64_t n = vector_length(i);
    v = SGC_NEW_VAR(t_vector, sizeof(Vector), n, sizeof(int64_t));
    v->length = n;
    for (int64_t k = 0; k < n; k++)
        v->words[k] = i * 7 + k;
    return v;
}

static Text *make_text(int64_t i) {
    Text *t = NULL;
    SGC_FRAME(&t);
    int64_t n = text_length(i);
    t = SGC_NEW_VAR(t_text, sizeof(Text), n, 1);
    t->length = n;
    for (int64_t k = 0; k < n; k++)
        t->bytes[k] = (unsigned char)(i + k);
    return t;
}

static Pair *make_pair(Point *point, Vector *vector, Text *text, int64_t i) {
    Pair *pair = NULL;
    SGC_FRAME(&point, &vector, &text, &pair);
    pair = SGC_NEW(t_pair, Pair);
    pair->point = point;
    pair->vector = vector;
    pair->text = text;
    pair->iteration = i;
    sgc_write_barrier(pair);
    return pair;
}

/* What an iteration reads back from one of its pairs. */
static uint64_t pair_digest(const Pair *p) {
    const Vector *v = p->vector;
    const Text *t = p->text;
    uint64_t d = (uint64_t)p->iteration;
    d = d * 31 + (uint64_t)p->point->x;
    d = d * 31 + (uint64_t)p->point->y;
    d = d * 31 + (uint64_t)v->length;
    d = d * 31 + (uint64_t)v->words[0];
    d = d * 31 + (uint64_t)v->words[v->length - 1];
    d = d * 31 + (uint64_t)t->length;
    d = d * 31 + t->bytes[0];
    d = d * 31 + t->bytes[t->length - 1];
    return d;
}

/* The same digest from the iteration number alone (the reference). */
static uint64_t digest_of(int64_t i) {
    int64_t vn = vector_length(i), tn = text_length(i);
    uint64_t d = (uint64_t)i;
    d = d * 31 + (uint64_t)i;
    d = d * 31 + (uint64_t)(3 * i + 1);
    d = d * 31 + (uint64_t)vn;
    d = d * 31 + (uint64_t)(i * 7);
    d = d * 31 + (uint64_t)(i * 7 + vn - 1);
    d = d * 31 + (uint64_t)tn;
    d = d * 31 + (unsigned char)i;
    d = d * 31 + (unsigned char)(i + tn - 1);
    return d;
}

/* One iteration: four allocations, one ring store, two digests. */
static uint64_t microbench_step(Ring *ring, int64_t i) {
    Point *point = NULL;
    Vector *vector = NULL;
    Text *text = NULL;
    Pair *pair = NULL;
    SGC_FRAME(&ring, &point, &vector, &text, &pair);
    point = make_point(i);
    vector = make_vector(i);
    text = make_text(i);
    pair = make_pair(point, vector, text, i);
    uint64_t d = pair_digest(pair);
    Pair *old = ring->slots[i % RING];
    if (old)
        d ^= pair_digest(old) << 1;
    SGC_SET(ring, slots[i % RING], pair);
    return d;
}

static void microbench_loop(int64_t iterations, wl_checksum *sum) {
    Ring *ring = NULL;
    SGC_FRAME(&ring);
    ring = SGC_NEW(t_ring, Ring);
    uint64_t acc = 0;
    for (int64_t i = 0; i < iterations; i++) {
        acc = acc * 0x100000001b3ull + microbench_step(ring, i);
        if ((i & 1023) == 1023) {
            wl_mix(sum, acc);
            acc = 0;
        }
    }
    wl_mix(sum, acc);
}

static uint64_t expected(const wl_run *run) {
    int64_t iterations = run->size * 1024;
    wl_checksum sum = WL_CHECKSUM_INIT;
    uint64_t acc = 0;
    for (int64_t i = 0; i < iterations; i++) {
        uint64_t d = digest_of(i);
        if (i >= RING)
            d ^= digest_of(i - RING) << 1;
        acc = acc * 0x100000001b3ull + d;
        if ((i & 1023) == 1023) {
            wl_mix(&sum, acc);
            acc = 0;
        }
    }
    wl_mix(&sum, acc);
    return wl_checksum_value(&sum);
}

int main(int argc, char **argv) {
    static const wl_spec spec = {
        .name = "microbench",
        .summary = "tight allocation loop of short-lived objects of mixed sizes through a small "
                   "call chain",
        .default_size = 1800,
        .min_size = 1,
        .max_size = (int64_t)1 << 32,
        .size_help = "thousands of loop iterations (4 allocations each)",
    };
    wl_run run = wl_start(&spec, argc, argv);
    t_point = wl_type("Micro.Point", sizeof(Point), 0, SGC_VAR_NONE);
    t_vector = wl_type("Micro.Vector", sizeof(Vector), 0, SGC_VAR_WORDS);
    t_text = wl_type("Micro.Text", sizeof(Text), 0, SGC_VAR_BYTES);
    t_pair = wl_type("Micro.Pair", sizeof(Pair), WL_PTR(Pair, point) | WL_PTR(Pair, vector) | WL_PTR(Pair, text),
                     SGC_VAR_NONE);
    t_ring = wl_type("Micro.Ring", sizeof(Ring), 0xffff, SGC_VAR_NONE);

    wl_checksum sum = WL_CHECKSUM_INIT;
    microbench_loop(run.size * 1024, &sum);
    return wl_finish(&run, &sum, expected);
}
