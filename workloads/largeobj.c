/* largeobj.c - arrays straddling the large-object threshold and the sampling periods.
 *
 * What it models: programs that allocate buffers and arrays of widely
 * varying size (image tiles, I/O buffers, numeric arrays).  The footprints
 * are chosen to sit just below, on, and just above the runtime's
 * large-object threshold (8 KiB) and the typical sampling periods (4 KiB,
 * 32 KiB, 256 KiB, 1 MiB), so the runs exercise the paths the paper's
 * pseudocode leaves out: objects that take several samples at once, large
 * objects consuming the distance to the next sample point, and large
 * objects that survive (are kept) or die young.  It is not one of the
 * paper's four benchmarks; it checks the sampler where they do not.
 *
 * Each iteration draws a footprint (weighted table below) and an element
 * kind (bytes, doubles, words, or pointers), allocates the array, writes
 * every 512th element and the last one, and reads them back.  Pointer
 * arrays get a small young Tag object in their first and last slots, so
 * young large objects pointing into the nursery and (after promotion) the
 * write barrier on old large objects are both exercised.  One array in 8
 * is kept in a ring of 32 (a Keeper record remembers how it was made); when
 * it is evicted, all its written elements are verified again, after however
 * many collections it has lived through.  The rest die at once.
 *
 * Scaling: --size N runs N iterations (linear; about 80 KiB per iteration
 * on average).
 *
 * Checksum: every digest, in order.  The values written are functions of
 * the iteration and the element index, so the reference replays the same
 * random draws and ring without allocating any arrays.
 */
#include "wl_common.h"

typedef struct Tag {
    int64_t iteration; /* the iteration whose pointer array holds this tag */
} Tag;

typedef struct Keeper {
    void *array;       /* the kept array (any of the four array types) */
    int64_t iteration; /* when it was made */
    int64_t kind;      /* element kind, enum lo_kind */
    int64_t elements;  /* element count */
} Keeper;

enum { KEEP_RING = 32 };

typedef struct KeepRing {
    Keeper *slots[KEEP_RING]; /* slot = (kept count) % KEEP_RING */
} KeepRing;

enum lo_kind { LO_BYTES = 0, LO_DOUBLES, LO_WORDS, LO_POINTERS, LO_KINDS };

static uint32_t t_tag, t_keeper, t_keep_ring, t_array[LO_KINDS];

/* Footprints (header included) and their weights (out of 64). */
static const struct {
    uint32_t footprint, weight;
} size_table[] = {
    {64, 4},      {512, 4},     {2048, 4},    /* small */
    {4088, 4},    {4096, 4},    {4104, 4},    /* 4 KiB period */
    {8184, 6},    {8192, 6},    {8200, 6},    /* large-object threshold */
    {16384, 2},                               /* large */
    {32760, 4},   {32768, 4},   {32776, 4},   /* 32 KiB period */
    {262136, 2},  {262144, 2},  {262152, 1},  /* 256 KiB period */
    {1048568, 1}, {1048576, 1}, {1048584, 1}, /* 1 MiB period */
};
enum { STRIDE = 512 }; /* elements between two written positions */

/* One random draw: the footprint and kind of this iteration's array, and
 * whether it is kept.  Shared by the workload and the reference. */
typedef struct lo_draw {
    size_t payload;   /* bytes after the header */
    int kind;         /* enum lo_kind */
    int64_t elements; /* payload / element size */
    int keep;         /* 1: goes into the keep ring */
} lo_draw;

static lo_draw draw(wl_rng *rng) {
    lo_draw d;
    uint64_t r = wl_rand(rng);
    uint32_t w = (uint32_t)(r & 63);
    size_t i = 0;
    while (w >= size_table[i].weight) {
        w -= size_table[i].weight;
        i++;
    }
    d.payload = size_table[i].footprint - SGC_HEADER_BYTES;
    d.kind = (int)((r >> 8) % LO_KINDS);
    d.elements = (int64_t)(d.kind == LO_BYTES ? d.payload : d.payload / 8);
    d.keep = ((r >> 16) & 7) == 0;
    return d;
}

/* The value written at element k of the array of iteration it. */
static inline uint64_t value_at(int64_t it, int kind, int64_t k) {
    switch (kind) {
    case LO_BYTES: return (uint64_t)((it * 7 + k) & 0xff);
    case LO_DOUBLES: {
        double d = (double)it + (double)k * 0.5;
        uint64_t bits;
        memcpy(&bits, &d, sizeof bits);
        return bits;
    }
    case LO_WORDS: return (uint64_t)(it * 1000003 + k);
    default: return (uint64_t)it; /* LO_POINTERS: the Tag's iteration */
    }
}

/* Element k of array a, read back as the same 64-bit value value_at gives. */
static inline uint64_t read_at(void *a, int kind, int64_t k) {
    switch (kind) {
    case LO_BYTES: return ((unsigned char *)a)[k];
    case LO_DOUBLES: {
        uint64_t bits;
        memcpy(&bits, &((double *)a)[k], sizeof bits);
        return bits;
    }
    case LO_WORDS: return ((uint64_t *)a)[k];
    default: {
        Tag *t = ((Tag **)a)[k];
        return t ? (uint64_t)t->iteration : 0xdeadull; /* a lost tag shows in the digest */
    }
    }
}

/* The positions written: 0, STRIDE, 2*STRIDE, ... and the last one.  Only
 * the first and last for pointer arrays (their tags are objects). */
static inline int64_t next_position(int kind, int64_t k, int64_t elements) {
    if (k == elements - 1)
        return elements;
    if (kind == LO_POINTERS)
        return elements - 1;
    return k + STRIDE < elements - 1 ? k + STRIDE : elements - 1;
}

/* Digest of all written positions of an array. */
static uint64_t array_digest(void *a, int kind, int64_t elements) {
    SGC_FRAME(&a);
    uint64_t h = (uint64_t)kind * 0x9e37u + (uint64_t)elements;
    for (int64_t k = 0; k < elements; k = next_position(kind, k, elements))
        h = (h ^ read_at(a, kind, k)) * 0x100000001b3ull;
    return h;
}

/* What array_digest returns for a correctly kept array (the reference). */
static uint64_t expected_digest(int64_t it, int kind, int64_t elements) {
    uint64_t h = (uint64_t)kind * 0x9e37u + (uint64_t)elements;
    for (int64_t k = 0; k < elements; k = next_position(kind, k, elements))
        h = (h ^ value_at(it, kind, k)) * 0x100000001b3ull;
    return h;
}

static Tag *make_tag(int64_t it) {
    SGC_FRAME();
    Tag *t = SGC_NEW(t_tag, Tag);
    t->iteration = it;
    return t;
}

/* Allocates and fills one array. */
static void *make_array(const lo_draw *d, int64_t it) {
    void *a = NULL;
    Tag *tag = NULL;
    SGC_FRAME(&a, &tag);
    a = sgc_alloc(t_array[d->kind], d->payload);
    if (d->kind == LO_POINTERS) {
        tag = make_tag(it);
        ((Tag **)a)[0] = tag;
        sgc_write_barrier(a);
        tag = make_tag(it);
        ((Tag **)a)[d->elements - 1] = tag;
        sgc_write_barrier(a);
        return a;
    }
    for (int64_t k = 0; k < d->elements; k = next_position(d->kind, k, d->elements)) {
        uint64_t v = value_at(it, d->kind, k);
        switch (d->kind) {
        case LO_BYTES: ((unsigned char *)a)[k] = (unsigned char)v; break;
        case LO_DOUBLES: memcpy(&((double *)a)[k], &v, sizeof v); break;
        default: ((uint64_t *)a)[k] = v; break;
        }
    }
    return a;
}

static Keeper *make_keeper(void *array, const lo_draw *d, int64_t it) {
    Keeper *k = NULL;
    SGC_FRAME(&array, &k);
    k = SGC_NEW(t_keeper, Keeper);
    k->array = array;
    k->iteration = it;
    k->kind = d->kind;
    k->elements = d->elements;
    sgc_write_barrier(k);
    return k;
}

static void largeobj(int64_t iterations, wl_checksum *sum) {
    KeepRing *ring = NULL;
    void *array = NULL;
    Keeper *keeper = NULL;
    SGC_FRAME(&ring, &array, &keeper);
    ring = SGC_NEW(t_keep_ring, KeepRing);
    wl_rng rng = wl_rng_seed(5);
    int64_t kept = 0;
    for (int64_t it = 0; it < iterations; it++) {
        lo_draw d = draw(&rng);
        array = make_array(&d, it);
        wl_mix(sum, array_digest(array, d.kind, d.elements));
        if (d.keep) {
            keeper = ring->slots[kept % KEEP_RING];
            if (keeper)
                wl_mix(sum,
                       array_digest(keeper->array, (int)keeper->kind, keeper->elements) ^ (uint64_t)keeper->iteration);
            keeper = make_keeper(array, &d, it);
            SGC_SET(ring, slots[kept % KEEP_RING], keeper);
            kept++;
        }
        array = NULL;
        keeper = NULL;
    }
    for (int64_t s = 0; s < KEEP_RING; s++) {
        keeper = ring->slots[(kept + s) % KEEP_RING];
        if (keeper)
            wl_mix(sum, array_digest(keeper->array, (int)keeper->kind, keeper->elements) ^ (uint64_t)keeper->iteration);
    }
}

static uint64_t expected(const wl_run *run) {
    /* The keep ring as plain descriptors: iteration, kind, elements. */
    struct {
        int64_t it, kind, elements;
    } ring[KEEP_RING];
    int used[KEEP_RING] = {0};
    wl_checksum sum = WL_CHECKSUM_INIT;
    wl_rng rng = wl_rng_seed(5);
    int64_t kept = 0;
    for (int64_t it = 0; it < run->size; it++) {
        lo_draw d = draw(&rng);
        wl_mix(&sum, expected_digest(it, d.kind, d.elements));
        if (d.keep) {
            int s = (int)(kept % KEEP_RING);
            if (used[s])
                wl_mix(&sum, expected_digest(ring[s].it, (int)ring[s].kind, ring[s].elements) ^ (uint64_t)ring[s].it);
            ring[s].it = it;
            ring[s].kind = d.kind;
            ring[s].elements = d.elements;
            used[s] = 1;
            kept++;
        }
    }
    for (int64_t i = 0; i < KEEP_RING; i++) {
        int s = (int)((kept + i) % KEEP_RING);
        if (used[s])
            wl_mix(&sum, expected_digest(ring[s].it, (int)ring[s].kind, ring[s].elements) ^ (uint64_t)ring[s].it);
    }
    return wl_checksum_value(&sum);
}

int main(int argc, char **argv) {
    static const wl_spec spec = {
        .name = "largeobj",
        .summary = "arrays whose sizes straddle the large-object threshold and the sampling "
                   "periods; some kept, most dropped",
        .default_size = 40000,
        .min_size = 1,
        .max_size = (int64_t)1 << 40,
        .size_help = "arrays allocated (about 80 KiB each on average)",
    };
    wl_run run = wl_start(&spec, argc, argv);
    uint32_t weights = 0;
    for (size_t i = 0; i < sizeof size_table / sizeof size_table[0]; i++)
        weights += size_table[i].weight;
    if (weights != 64) /* draw() picks with 6 random bits */
        wl_fail(&run, "size table weights add up to %u, not 64", weights);
    t_tag = wl_type("LargeObj.Tag", sizeof(Tag), 0, SGC_VAR_NONE);
    t_keeper = wl_type("LargeObj.Keeper", sizeof(Keeper), WL_PTR(Keeper, array), SGC_VAR_NONE);
    t_keep_ring = wl_type("LargeObj.KeepRing", sizeof(KeepRing), (1ull << KEEP_RING) - 1, SGC_VAR_NONE);
    t_array[LO_BYTES] = wl_type("LargeObj.ByteArray", 0, 0, SGC_VAR_BYTES);
    t_array[LO_DOUBLES] = wl_type("LargeObj.DoubleArray", 0, 0, SGC_VAR_DOUBLES);
    t_array[LO_WORDS] = wl_type("LargeObj.WordArray", 0, 0, SGC_VAR_WORDS);
    t_array[LO_POINTERS] = wl_type("LargeObj.PointerArray", 0, 0, SGC_VAR_PTRS);

    wl_checksum sum = WL_CHECKSUM_INIT;
    largeobj(run.size, &sum);
    return wl_finish(&run, &sum, expected);
}
