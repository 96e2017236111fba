/* gc_stress.c - randomized GC stress test: random object graphs mutated across many
 * collections, checked after every step against a shadow model.
 *
 * usage: gc_stress [--seed N] [--steps N] [--max-live N]
 *
 * The mutator holds its objects through 16 frame locals and a global root
 * table (itself a heap object, so stores into it go through the barrier).
 * Every object carries a unique id in its first word; the model keeps, per
 * id, the type, the size and the id each pointer field should refer to.
 * After every step the whole reachable graph is walked from the roots next to
 * the model: ids, types, sizes, every edge, every byte of byte arrays, and
 * sharing (two edges to the same id must reach the same address).  Run it
 * with SGC_VERIFY=1 so the heap verifier checks every collection too, with a
 * small SGC_NURSERY so collections are frequent, and with SGC_GC_STRESS.  At
 * the end the runtime's allocation counters must equal what the program
 * allocated, exactly.  Exit status: 0 pass, 1 mismatch (with a message),
 * 2 bad arguments.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sgc_internal.h"

#define NLOCALS 16
#define NTABLE 64

enum { K_NODE, K_ARR, K_BYTES };

typedef struct mobj {
    uint8_t kind;
    uint32_t nptrs;  /* pointer fields */
    uint32_t nbytes; /* byte-array length */
    uint32_t *ptrs;  /* id each pointer field refers to; 0 = NULL */
} mobj;

static mobj *model; /* indexed by id; id 0 unused */
static uint32_t nids, cap_ids;
static uint32_t local_id[NLOCALS], table_id[NTABLE];
static sgc_obj locals[NLOCALS];
static sgc_obj table; /* global root: pointer array of NTABLE */
static uint32_t T_NODE, T_ARR, T_BYTES, T_TABLE;
static uint64_t rng_state;
static uint64_t want_nursery_bytes, want_nursery_objects, want_large_bytes, want_large_objects;
static size_t nursery_size;
static uint64_t step;

/* Per-check visit stamps and addresses, by id. */
static uint64_t *seen_stamp;
static sgc_obj *seen_addr;
static uint64_t stamp;
static uint32_t *stack_ids;
static sgc_obj *stack_ptrs;
static size_t stack_cap;

static uint64_t rnd(void) {
    uint64_t x = rng_state;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    rng_state = x;
    return x * 0x2545F4914F6CDD1DULL;
}
static uint32_t below(uint32_t n) { return (uint32_t)(rnd() % n); }

static void die(const char *what, uint32_t id) {
    fprintf(stderr, "gc_stress: step %llu: %s (object id %u)\n", (unsigned long long)step, what, id);
    exit(1);
}

/* Pointer field i of an actual object (any kind). */
static sgc_obj *field(sgc_obj o, uint32_t i) {
    uint32_t t = SGC_TYPE_OF(o);
    uint64_t *w = o;
    if (t == T_NODE)
        return (sgc_obj *)&w[1 + i];
    return (sgc_obj *)&w[1 + i]; /* arrays: word 0 is the id, pointers follow */
}
static uint32_t nfields(sgc_obj o) {
    uint32_t t = SGC_TYPE_OF(o);
    if (t == T_NODE)
        return 3;
    if (t == T_ARR)
        return (uint32_t)(SGC_PAYLOAD_BYTES(o) / 8 - 1);
    return 0;
}
static uint32_t id_of(sgc_obj o) { return o ? (uint32_t)((uint64_t *)o)[0] : 0; }

static void account(size_t payload) {
    size_t fp = SGC_FOOTPRINT(payload);
    if (fp >= SGC_LARGE_MIN || fp > nursery_size) {
        want_large_bytes += fp;
        want_large_objects++;
    } else {
        want_nursery_bytes += fp;
        want_nursery_objects++;
    }
}

/* Allocates a fresh object with random kind and size; fields NULL. */
static sgc_obj new_object(void) {
    if (nids + 1 >= cap_ids) {
        cap_ids = cap_ids ? cap_ids * 2 : 4096;
        model = realloc(model, cap_ids * sizeof *model);
        seen_stamp = realloc(seen_stamp, cap_ids * sizeof *seen_stamp);
        seen_addr = realloc(seen_addr, cap_ids * sizeof *seen_addr);
        if (!model || !seen_stamp || !seen_addr)
            die("out of memory for the model", 0);
        memset(seen_stamp + nids + 1, 0, (cap_ids - nids - 1) * sizeof *seen_stamp);
    }
    uint32_t id = ++nids;
    mobj *m = &model[id];
    memset(m, 0, sizeof *m);
    uint32_t r = below(100);
    sgc_obj o;
    size_t payload;
    if (r < 55) {
        m->kind = K_NODE;
        m->nptrs = 3;
        payload = 32;
        o = sgc_alloc(T_NODE, payload);
    } else if (r < 85) {
        m->kind = K_ARR;
        m->nptrs = below(100) < 3 ? 1022 + below(600) : below(24);
        payload = 8 + 8 * (size_t)m->nptrs;
        o = sgc_alloc(T_ARR, payload);
    } else {
        m->kind = K_BYTES;
        m->nbytes = below(100) < 3 ? 8200 + below(20000) : below(200);
        payload = 8 + (size_t)m->nbytes;
        o = sgc_alloc(T_BYTES, payload);
    }
    account(payload);
    m->ptrs = m->nptrs ? calloc(m->nptrs, sizeof(uint32_t)) : NULL;
    if (m->nptrs && !m->ptrs)
        die("out of memory for the model", id);
    /* New objects are zero-filled, padding included. */
    const unsigned char *z = o;
    for (size_t i = 0; i < SGC_PAYLOAD_BYTES(o); i++)
        if (z[i] != 0)
            die("a new object is not zero-filled", id);
    ((uint64_t *)o)[0] = id;
    if (m->kind == K_BYTES) {
        unsigned char *b = (unsigned char *)o + 8;
        for (uint32_t i = 0; i < m->nbytes; i++)
            b[i] = (unsigned char)(id * 31u + i);
    }
    return o;
}

/* A random reachable object (or NULL): a root, then a few random edges. */
static sgc_obj walk(void) {
    uint32_t r = below(NLOCALS + NTABLE);
    sgc_obj o = r < NLOCALS ? locals[r] : ((sgc_obj *)table)[1 + (r - NLOCALS)];
    uint32_t depth = below(5);
    for (uint32_t d = 0; d < depth && o; d++) {
        uint32_t n = nfields(o);
        if (n == 0)
            break;
        sgc_obj next = *field(o, below(n));
        if (!next)
            break;
        o = next;
    }
    return o;
}

/* Sets root r (a local or a table slot) in the heap and in the model. */
static void set_root(uint32_t r, sgc_obj v) {
    if (r < NLOCALS) {
        locals[r] = v;
        local_id[r] = id_of(v);
    } else {
        ((sgc_obj *)table)[1 + (r - NLOCALS)] = v;
        sgc_write_barrier(table);
        table_id[r - NLOCALS] = id_of(v);
    }
}

/* Stores v into a random field of a random reachable object, if it has one. */
static void store_somewhere(sgc_obj v) {
    sgc_obj a = walk();
    if (!a || nfields(a) == 0) {
        set_root(below(NLOCALS + NTABLE), v);
        return;
    }
    uint32_t k = below(nfields(a));
    *field(a, k) = v;
    sgc_write_barrier(a);
    model[id_of(a)].ptrs[k] = id_of(v);
}

static void push(uint32_t id, sgc_obj p, size_t *n) {
    if (*n == stack_cap) {
        stack_cap = stack_cap ? 2 * stack_cap : 1024;
        stack_ids = realloc(stack_ids, stack_cap * sizeof *stack_ids);
        stack_ptrs = realloc(stack_ptrs, stack_cap * sizeof *stack_ptrs);
        if (!stack_ids || !stack_ptrs)
            die("out of memory for the check", 0);
    }
    stack_ids[*n] = id;
    stack_ptrs[*n] = p;
    (*n)++;
}

/* Compares the reachable heap with the model; returns how many objects are reachable. */
static uint32_t check_all(void) {
    stamp++;
    size_t n = 0;
    uint32_t live = 0;
    for (uint32_t r = 0; r < NLOCALS; r++)
        push(local_id[r], locals[r], &n);
    if (SGC_TYPE_OF(table) != T_TABLE || SGC_PAYLOAD_BYTES(table) != 8 * (NTABLE + 1))
        die("the root table's header changed", 0);
    for (uint32_t r = 0; r < NTABLE; r++)
        push(table_id[r], ((sgc_obj *)table)[1 + r], &n);
    while (n > 0) {
        n--;
        uint32_t id = stack_ids[n];
        sgc_obj p = stack_ptrs[n];
        if (id == 0) {
            if (p != NULL)
                die("a field that should be NULL is not", 0);
            continue;
        }
        if (p == NULL)
            die("a field that should point to an object is NULL", id);
        if (seen_stamp[id] == stamp) {
            if (seen_addr[id] != p)
                die("two references to one object reach different addresses", id);
            continue;
        }
        seen_stamp[id] = stamp;
        seen_addr[id] = p;
        live++;
        if (id_of(p) != id)
            die("an edge reaches an object with the wrong id", id);
        const mobj *m = &model[id];
        uint32_t want_t = m->kind == K_NODE ? T_NODE : m->kind == K_ARR ? T_ARR : T_BYTES;
        size_t want_payload = m->kind == K_NODE ? 32 : m->kind == K_ARR ? 8 + 8 * (size_t)m->nptrs : 8 + m->nbytes;
        if (SGC_TYPE_OF(p) != want_t || SGC_PAYLOAD_BYTES(p) != ((want_payload + 7) & ~(size_t)7))
            die("an object's type or size changed", id);
        if (m->kind == K_BYTES) {
            const unsigned char *b = (const unsigned char *)p + 8;
            for (uint32_t i = 0; i < m->nbytes; i++)
                if (b[i] != (unsigned char)(id * 31u + i))
                    die("a byte array's contents changed", id);
        }
        for (uint32_t i = 0; i < m->nptrs; i++)
            push(m->ptrs[i], *field(p, i), &n);
    }
    return live;
}

int main(int argc, char **argv) {
    uint64_t seed = 1, steps = 20000, max_live = 3000;
    for (int i = 1; i < argc; i++) {
        char *end = NULL;
        uint64_t *dst = NULL;
        if (strcmp(argv[i], "--seed") == 0)
            dst = &seed;
        else if (strcmp(argv[i], "--steps") == 0)
            dst = &steps;
        else if (strcmp(argv[i], "--max-live") == 0)
            dst = &max_live;
        if (dst == NULL || i + 1 >= argc) {
            fprintf(stderr, "usage: gc_stress [--seed N] [--steps N] [--max-live N]\n");
            return 2;
        }
        *dst = strtoull(argv[++i], &end, 10);
        if (*end != '\0') {
            fprintf(stderr, "gc_stress: %s %s: not a number\n", argv[i - 1], argv[i]);
            return 2;
        }
    }
    rng_state = seed * 0x9E3779B97F4A7C15ULL + 1;
    T_NODE = sgc_type_register(&(sgc_type){"stress_node", 32, 0xe, SGC_VAR_NONE});
    T_ARR = sgc_type_register(&(sgc_type){"stress_array", 8, 0, SGC_VAR_PTRS});
    T_BYTES = sgc_type_register(&(sgc_type){"stress_bytes", 8, 0, SGC_VAR_BYTES});
    T_TABLE = sgc_type_register(&(sgc_type){"stress_table", 8, 0, SGC_VAR_PTRS});
    sgc_init();
    nursery_size = sgc__settings.nursery_size;

    sgc_obj tmp = NULL;
    void *slots[NLOCALS + 1];
    for (int i = 0; i < NLOCALS; i++)
        slots[i] = &locals[i];
    slots[NLOCALS] = &tmp;
    static sgc_func fn = {"gc_stress_main", 0};
    sgc_frame fr = {.func = &fn, .roots = slots, .nroots = NLOCALS + 1};
    sgc_frame_push(&fr);
    sgc_global_root(&table);
    table = sgc_alloc(T_TABLE, 8 * (NTABLE + 1));
    account(8 * (NTABLE + 1));

    uint32_t live = 0;
    for (step = 1; step <= steps; step++) {
        uint32_t r = below(1000);
        int shrink = live > max_live;
        if (r < 400) {
            tmp = new_object();
            /* Point some of its fields at existing objects (old or young). */
            uint32_t nf = nfields(tmp);
            for (uint32_t k = 0; k < nf && k < 4; k++) {
                sgc_obj t = walk();
                *field(tmp, k) = t;
                sgc_write_barrier(tmp);
                model[id_of(tmp)].ptrs[k] = id_of(t);
            }
            if (!shrink)
                store_somewhere(tmp);
            tmp = NULL;
        } else if (r < 700) {
            sgc_obj a = walk();
            if (a && nfields(a)) {
                sgc_obj b = (shrink || below(10) == 0) ? NULL : walk();
                uint32_t k = below(nfields(a));
                *field(a, k) = b;
                sgc_write_barrier(a);
                model[id_of(a)].ptrs[k] = id_of(b);
            }
        } else if (r < 850) {
            set_root(below(NLOCALS + NTABLE), (shrink || below(4) == 0) ? NULL : walk());
        } else if (r < 900) {
            for (uint32_t k = below(64); k > 0; k--) {
                tmp = new_object(); /* garbage as soon as tmp moves on */
            }
            tmp = NULL;
        } else if (r < 930) {
            sgc_collect_minor();
        } else if (r < 940) {
            sgc_collect_major();
        } else {
            /* Drop a whole subtree: a root to NULL. */
            set_root(below(NLOCALS + NTABLE), NULL);
        }
        live = check_all();
    }
    sgc_collect_major();
    live = check_all();
    sgc_verify_heap();

    sgc_stats s;
    sgc_get_stats(&s);
    printf("gc_stress: seed %llu, %llu steps, %u objects made, %u live at the end; "
           "%llu minor and %llu major collections, %llu bytes promoted, %llu large promoted, peak heap %llu\n",
           (unsigned long long)seed, (unsigned long long)steps, nids, live, (unsigned long long)s.minor_collections,
           (unsigned long long)s.major_collections, (unsigned long long)s.bytes_promoted,
           (unsigned long long)s.large_promoted, (unsigned long long)s.peak_heap_bytes);
    if (s.nursery_bytes != want_nursery_bytes || s.nursery_objects != want_nursery_objects ||
        s.large_bytes != want_large_bytes || s.large_objects != want_large_objects) {
        fprintf(stderr,
                "gc_stress: allocation counters disagree: nursery %llu bytes / %llu objects (want %llu / %llu), "
                "large %llu / %llu (want %llu / %llu)\n",
                (unsigned long long)s.nursery_bytes, (unsigned long long)s.nursery_objects,
                (unsigned long long)want_nursery_bytes, (unsigned long long)want_nursery_objects,
                (unsigned long long)s.large_bytes, (unsigned long long)s.large_objects,
                (unsigned long long)want_large_bytes, (unsigned long long)want_large_objects);
        return 1;
    }
    if (s.minor_collections == 0 || s.major_collections == 0) {
        fprintf(stderr, "gc_stress: the run did not exercise both collections\n");
        return 1;
    }
    sgc_frame_pop(&fr);
    return 0;
}
