/* lrucache.c - a long-lived hash map with LRU eviction under churn.
 *
 * What it models: the server-side cache pattern - a big, long-lived table
 * that is mostly read, with a steady stream of insertions and evictions.
 * The table and most entries live in the old generation; each miss
 * allocates a young entry and value and links them into old objects (write
 * barrier, remembered set); each hit moves an old entry to the front of the
 * recency list (old-to-old stores) and sometimes replaces its value with a
 * young one; evicted entries die old, so major collections have real work.
 * Survival is mixed: values replaced soon die young, inserted entries
 * mostly survive until evicted.  It stands for the long-lived, mutable
 * data of real programs (the paper's PyPy-annotator run has the same
 * character: a big, long-lived, changing graph), which its microbench and
 * gcbench lack.
 *
 * The map: a bucket array (a pointer array, a large object at the default
 * capacity) of chains of Entry objects, plus a doubly-linked recency list
 * through the same entries.  Keys: three accesses in four go to a hot set of
 * capacity/2 keys (mostly hits); one in four to a range 64 times the
 * capacity (mostly misses).  One hit in eight replaces the value.  Every
 * operation also allocates a Request that dies at once, as a server would.
 *
 * Scaling: --size N performs N*1024 operations (linear); --capacity C sets
 * the number of entries kept (default 32768).
 *
 * Checksum: for every operation, hit or miss and, on a hit, the stored key,
 * version, length and first and last byte of the value; at the end, the
 * whole recency list in order.  The reference is a plain C implementation of
 * the same cache (malloc and free) driven by the same random numbers.
 */
#include <stdlib.h>
#include "wl_common.h"

typedef struct Value {
    int64_t key;           /* the key it was stored under */
    int64_t version;       /* the operation that stored it */
    int64_t length;        /* bytes that follow */
    unsigned char bytes[]; /* bytes[k] = (key * 31 + version + k) & 0xff */
} Value;

typedef struct Entry {
    struct Entry *chain; /* next entry in the same bucket */
    struct Entry *newer; /* towards the most recently used end; NULL at the head */
    struct Entry *older; /* towards the least recently used end; NULL at the tail */
    Value *value;        /* the current value */
    int64_t key;
} Entry;

typedef struct Request {
    Value *result; /* the value found, NULL on a miss */
    int64_t key;   /* the key asked for */
} Request;

typedef struct Cache {
    Entry **buckets;  /* pointer array of nbuckets chains */
    Entry *head;      /* most recently used */
    Entry *tail;      /* least recently used: evicted next */
    int64_t count;    /* entries in the cache */
    int64_t nbuckets; /* a power of two >= 2 * capacity */
} Cache;

static uint32_t t_value, t_entry, t_cache, t_buckets, t_request;
static int64_t opt_capacity = 32768;

static int64_t value_length(int64_t key, int64_t version) {
    return 16 + (int64_t)(((uint64_t)key * 13 + (uint64_t)version) % 185);
}

static inline uint64_t bucket_of(int64_t key, int64_t nbuckets) {
    return ((uint64_t)key * 0x9e3779b97f4a7c15ull >> 20) & (uint64_t)(nbuckets - 1);
}

/* The key and update decision of one operation (shared with the reference). */
typedef struct lru_op {
    int64_t key;
    int replace; /* on a hit: store a new value */
} lru_op;

static lru_op next_op(wl_rng *rng, int64_t capacity) {
    uint64_t r = wl_rand(rng);
    lru_op op;
    uint64_t range = (r & 3) ? (uint64_t)(capacity / 2 > 0 ? capacity / 2 : 1) : (uint64_t)capacity * 64;
    op.key = (int64_t)(((unsigned __int128)(r >> 8) * range) >> 56);
    op.replace = ((r >> 4) & 7) == 0;
    return op;
}

/* What a hit reports: the same formula for workload and reference. */
static uint64_t hit_digest(int64_t key, int64_t version, int64_t length, unsigned first, unsigned last) {
    uint64_t d = (uint64_t)key;
    d = d * 31 + (uint64_t)version;
    d = d * 31 + (uint64_t)length;
    d = d * 31 + first;
    return d * 31 + last;
}

static Value *make_value(int64_t key, int64_t version) {
    Value *v = NULL;
    SGC_FRAME(&v);
    int64_t n = value_length(key, version);
    v = SGC_NEW_VAR(t_value, sizeof(Value), n, 1);
    v->key = key;
    v->version = version;
    v->length = n;
    for (int64_t k = 0; k < n; k++)
        v->bytes[k] = (unsigned char)((uint64_t)key * 31 + (uint64_t)version + (uint64_t)k);
    return v;
}

static Cache *make_cache(int64_t capacity) {
    Cache *cache = NULL;
    Entry **buckets = NULL;
    SGC_FRAME(&cache, &buckets);
    int64_t nb = 2;
    while (nb < 2 * capacity)
        nb *= 2;
    cache = SGC_NEW(t_cache, Cache);
    buckets = SGC_NEW_VAR(t_buckets, 0, nb, sizeof(Entry *));
    SGC_SET(cache, buckets, buckets);
    cache->nbuckets = nb;
    return cache;
}

/* Unlinks e from the recency list. */
static void lru_unlink(Cache *c, Entry *e) {
    SGC_FRAME(&c, &e);
    if (e->newer)
        SGC_SET(e->newer, older, e->older);
    else
        SGC_SET(c, head, e->older);
    if (e->older)
        SGC_SET(e->older, newer, e->newer);
    else
        SGC_SET(c, tail, e->newer);
}

/* Links e at the most recently used end. */
static void lru_push_front(Cache *c, Entry *e) {
    SGC_FRAME(&c, &e);
    SGC_SET(e, newer, (Entry *)NULL);
    SGC_SET(e, older, c->head);
    if (c->head)
        SGC_SET(c->head, newer, e);
    else
        SGC_SET(c, tail, e);
    SGC_SET(c, head, e);
}

static Entry *lookup(Cache *c, int64_t key) {
    SGC_FRAME(&c);
    Entry *e = c->buckets[bucket_of(key, c->nbuckets)];
    while (e && e->key != key)
        e = e->chain;
    return e;
}

/* Removes the least recently used entry from its chain and the list. */
static void evict_one(Cache *c) {
    Entry *victim = NULL, *prev = NULL;
    SGC_FRAME(&c, &victim, &prev);
    victim = c->tail;
    uint64_t b = bucket_of(victim->key, c->nbuckets);
    if (c->buckets[b] == victim) {
        c->buckets[b] = victim->chain;
        sgc_write_barrier(c->buckets);
    } else {
        prev = c->buckets[b];
        while (prev->chain != victim)
            prev = prev->chain;
        SGC_SET(prev, chain, victim->chain);
    }
    lru_unlink(c, victim);
    c->count--;
}

static Entry *insert(Cache *c, int64_t key, int64_t version) {
    Entry *e = NULL;
    Value *v = NULL;
    SGC_FRAME(&c, &e, &v);
    v = make_value(key, version);
    e = SGC_NEW(t_entry, Entry);
    e->key = key;
    SGC_SET(e, value, v);
    uint64_t b = bucket_of(key, c->nbuckets);
    SGC_SET(e, chain, c->buckets[b]);
    c->buckets[b] = e;
    sgc_write_barrier(c->buckets);
    lru_push_front(c, e);
    c->count++;
    return e;
}

/* The short-lived object every operation allocates, as a server allocates
 * a request: it dies at once, so the nursery always holds young garbage. */
static Request *make_request(int64_t key) {
    SGC_FRAME();
    Request *r = SGC_NEW(t_request, Request);
    r->key = key;
    return r;
}

static void lrucache(int64_t ops, int64_t capacity, wl_checksum *sum) {
    Cache *cache = NULL;
    Entry *e = NULL;
    Value *v = NULL;
    Request *req = NULL;
    SGC_FRAME(&cache, &e, &v, &req);
    cache = make_cache(capacity);
    wl_rng rng = wl_rng_seed(7);
    uint64_t acc = 0;
    for (int64_t op = 0; op < ops; op++) {
        lru_op o = next_op(&rng, capacity);
        req = make_request(o.key);
        e = lookup(cache, req->key);
        uint64_t d;
        if (e) {
            SGC_SET(req, result, e->value);
            v = req->result;
            d = hit_digest(v->key, v->version, v->length, v->bytes[0], v->bytes[v->length - 1]);
            lru_unlink(cache, e);
            lru_push_front(cache, e);
            if (o.replace) {
                v = make_value(o.key, op);
                SGC_SET(e, value, v);
            }
        } else {
            d = 0x5bd1e995u ^ (uint64_t)o.key;
            insert(cache, o.key, op);
            if (cache->count > capacity)
                evict_one(cache);
        }
        e = NULL;
        v = NULL;
        req = NULL;
        acc = acc * 0x100000001b3ull + d;
        if ((op & 1023) == 1023) {
            wl_mix(sum, acc);
            acc = 0;
        }
    }
    wl_mix(sum, acc);
    wl_mix(sum, (uint64_t)cache->count);
    for (e = cache->head; e; e = e->older) {
        wl_mix(sum, (uint64_t)e->key);
        wl_mix(sum, (uint64_t)e->value->version);
    }
}

/* ---- The reference: the same cache in plain C ---------------------------- */

typedef struct ref_entry {
    struct ref_entry *chain, *newer, *older;
    int64_t key, version;
} ref_entry;

static uint64_t expected(const wl_run *run) {
    int64_t capacity = opt_capacity, ops = run->size * 1024, nb = 2, count = 0;
    while (nb < 2 * capacity)
        nb *= 2;
    ref_entry **buckets = wl_xcalloc((size_t)nb, sizeof *buckets);
    ref_entry *head = NULL, *tail = NULL;
    wl_checksum sum = WL_CHECKSUM_INIT;
    wl_rng rng = wl_rng_seed(7);
    uint64_t acc = 0;
    for (int64_t op = 0; op < ops; op++) {
        lru_op o = next_op(&rng, capacity);
        ref_entry *e = buckets[bucket_of(o.key, nb)];
        while (e && e->key != o.key)
            e = e->chain;
        uint64_t d;
        if (e) {
            int64_t len = value_length(e->key, e->version);
            d = hit_digest(e->key, e->version, len, (unsigned char)((uint64_t)e->key * 31 + (uint64_t)e->version),
                           (unsigned char)((uint64_t)e->key * 31 + (uint64_t)e->version + (uint64_t)(len - 1)));
            if (e != head) { /* move to front */
                e->newer->older = e->older;
                if (e->older)
                    e->older->newer = e->newer;
                else
                    tail = e->newer;
                e->newer = NULL;
                e->older = head;
                head->newer = e;
                head = e;
            }
            if (o.replace)
                e->version = op;
        } else {
            d = 0x5bd1e995u ^ (uint64_t)o.key;
            e = wl_xmalloc(sizeof *e);
            e->key = o.key;
            e->version = op;
            uint64_t b = bucket_of(o.key, nb);
            e->chain = buckets[b];
            buckets[b] = e;
            e->newer = NULL;
            e->older = head;
            if (head)
                head->newer = e;
            else
                tail = e;
            head = e;
            if (++count > capacity) {
                ref_entry *victim = tail, **slot = &buckets[bucket_of(victim->key, nb)];
                while (*slot != victim)
                    slot = &(*slot)->chain;
                *slot = victim->chain;
                tail = victim->newer;
                tail->older = NULL;
                free(victim);
                count--;
            }
        }
        acc = acc * 0x100000001b3ull + d;
        if ((op & 1023) == 1023) {
            wl_mix(&sum, acc);
            acc = 0;
        }
    }
    wl_mix(&sum, acc);
    wl_mix(&sum, (uint64_t)count);
    for (ref_entry *e = head; e; e = e->older) {
        wl_mix(&sum, (uint64_t)e->key);
        wl_mix(&sum, (uint64_t)e->version);
    }
    for (ref_entry *e = head, *next; e; e = next) {
        next = e->older;
        free(e);
    }
    free(buckets);
    return wl_checksum_value(&sum);
}

int main(int argc, char **argv) {
    static const wl_option options[] = {
        {"--capacity", WL_OPT_INT, &opt_capacity, 2, (int64_t)1 << 26,
         "entries the cache keeps before evicting (default 32768)"},
        {0},
    };
    static const wl_spec spec = {
        .name = "lrucache",
        .summary = "long-lived hash map with LRU eviction under churn: promotion, write "
                   "barrier, major collections",
        .default_size = 400,
        .min_size = 1,
        .max_size = (int64_t)1 << 32,
        .size_help = "thousands of cache operations",
        .options = options,
    };
    wl_run run = wl_start(&spec, argc, argv);
    t_value = wl_type("LRU.Value", sizeof(Value), 0, SGC_VAR_BYTES);
    t_entry = wl_type("LRU.Entry", sizeof(Entry),
                      WL_PTR(Entry, chain) | WL_PTR(Entry, newer) | WL_PTR(Entry, older) | WL_PTR(Entry, value),
                      SGC_VAR_NONE);
    t_cache = wl_type("LRU.Cache", sizeof(Cache), WL_PTR(Cache, buckets) | WL_PTR(Cache, head) | WL_PTR(Cache, tail),
                      SGC_VAR_NONE);
    t_buckets = wl_type("LRU.BucketArray", 0, 0, SGC_VAR_PTRS);
    t_request = wl_type("LRU.Request", sizeof(Request), WL_PTR(Request, result), SGC_VAR_NONE);
    wl_checksum sum = WL_CHECKSUM_INIT;
    lrucache(run.size * 1024, opt_capacity, &sum);
    return wl_finish(&run, &sum, expected);
}
