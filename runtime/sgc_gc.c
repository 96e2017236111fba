/* sgc_gc.c - the collector: types, roots, nursery, minor and major collections, stats.
 *
 * Minor collection.  Live nursery objects are copied into the old generation
 * (sgc_gc_old.c), breadth-first from the roots as in Cheney's algorithm; the
 * to-space is not contiguous (it is the size-segregated old generation), so
 * the scan queue is an explicit array of copied objects instead of a scan
 * pointer.  Roots: the shadow-stack frames, the registered globals, the
 * remembered set; young large objects reached from any of these are marked
 * and scanned like copied objects.  Objects without pointer fields are
 * copied and never queued.
 *
 * Major collection.  Always right after a minor one, so nothing is young:
 * mark from the frames and globals through old and large objects (explicit
 * mark stack), then sweep.  It runs when the heap (old generation + large
 * objects) has reached max(SGC_MAJOR_FLOOR, live after the previous major
 * collection * SGC_MAJOR_GROWTH).
 *
 * Counting nursery objects without touching the fast path: each minor
 * collection walks the nursery from start to free once (headers only; a
 * forwarded object's size is read from its copy).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "sgc_gc.h"
#include "sgc_output.h"
#include "sgc_stats_keys.h"
#include "sgc_timer.h"

/* ---- Shared state --------------------------------------------------------- */

sgc_frame *sgc_top;
sgc_nursery_state sgc_nursery;
volatile sig_atomic_t sgc__phase;
sgc_stats sgc__stats;
int sgc__initialized;

sgc_gc_type sgc__gc_types[SGC_MAX_TYPES + 1];
uint32_t sgc__gc_ntypes;

void ***sgc__globals;
size_t sgc__nglobals;
static size_t globals_cap;
sgc_obj *sgc__remset;
size_t sgc__nremset;
static size_t remset_cap;

/* The nursery mapping.  With SGC_POISON two halves alternate, so the half
 * just evacuated can stay poisoned for a whole mutator period (a stale
 * pointer into it then reads poison) while the other, zeroed, is in use. */
static char *nursery_base[2];
static int nursery_half;
static size_t nursery_bytes; /* size of one half */

static uint64_t start_ns;      /* sgc_init */
static uint64_t next_major_at; /* heap_bytes that triggers a major collection */
static int shut_down;
static int statm_fd = -1;

/* Scan queue (minor) and mark stack (major). */
static sgc_obj *work;
static size_t nwork, work_cap;

/* The virtual clock's last reading (SGC_VIRTUAL_CLOCK). */
static uint64_t virtual_now;

uint64_t sgc__now_ns(void) {
    uint64_t step = sgc__settings.virtual_clock_ns;
    if (step)
        return __atomic_add_fetch(&virtual_now, step, __ATOMIC_RELAXED); /* lock-free: signal-safe */
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t sgc__record_ns(uint64_t real_ns) { return sgc__settings.virtual_clock_ns ? sgc__now_ns() : real_ns; }

char *sgc__tmp_path(const char *path) {
    static const char hex[] = "0123456789abcdef";
    size_t len = strlen(path);
    char *tmp = malloc(len + sizeof ".tmp." - 1 + 8 + 1);
    if (tmp == NULL)
        return NULL;
    memcpy(tmp, path, len);
    memcpy(tmp + len, ".tmp.", 5);
    /* Eight hex digits whatever the pid: the same instructions for every
     * pid, where printf's decimal digits cost more for a longer pid. */
    uint32_t pid = (uint32_t)getpid();
    for (int i = 0; i < 8; i++)
        tmp[len + 5 + i] = hex[(pid >> (28 - 4 * i)) & 15];
    tmp[len + 13] = '\0';
    return tmp;
}

/* Grows an array of pointer-sized elements to hold at least need entries. */
static void grow(void *arrp, size_t *cap, size_t need, const char *what) {
    void **arr = (void **)arrp;
    size_t n = *cap ? *cap : 256;
    while (n < need)
        n *= 2;
    void *p = realloc(*arr, n * sizeof(void *));
    if (p == NULL)
        sgc__oom(what, n * sizeof(void *));
    *arr = p;
    *cap = n;
}

static inline void work_push(sgc_obj o) {
    if (__builtin_expect(nwork == work_cap, 0))
        grow(&work, &work_cap, nwork + 1, "the collector's work list");
    work[nwork++] = o;
}

/* ---- Types ---------------------------------------------------------------- */

uint32_t sgc_type_register(const sgc_type *type) {
    if (type == NULL || type->name == NULL) {
        fprintf(stderr, "freecheck: sgc_type_register: a type needs a name\n");
        abort();
    }
    for (uint32_t i = 1; i <= sgc__gc_ntypes; i++)
        if (strcmp(sgc__gc_types[i].t.name, type->name) == 0)
            return i;
    if (type->fixed_size > 512 || (type->fixed_size < 512 && (type->ptr_map >> ((type->fixed_size + 7) / 8)) != 0) ||
        (type->var == SGC_VAR_PTRS && type->fixed_size % 8 != 0) || (unsigned)type->var > SGC_VAR_WORDS) {
        fprintf(stderr,
                "freecheck: sgc_type_register: type %s is malformed (fixed part at most 512 bytes, "
                "pointer map within the fixed part, pointer arrays 8-byte aligned)\n",
                type->name);
        abort();
    }
    if (sgc__gc_ntypes == SGC_MAX_TYPES) {
        fprintf(stderr, "freecheck: sgc_type_register: more than %d types (registering %s)\n", SGC_MAX_TYPES,
                type->name);
        abort();
    }
    uint32_t id = ++sgc__gc_ntypes;
    sgc_gc_type *g = &sgc__gc_types[id];
    g->t = *type;
    g->fixed_words = (type->fixed_size + 7) / 8;
    g->has_ptrs = type->ptr_map != 0 || type->var == SGC_VAR_PTRS;
    return id;
}

const char *sgc_type_name(uint32_t tid) {
    if (tid == 0 || tid > sgc__gc_ntypes)
        return "?";
    return sgc__gc_types[tid].t.name;
}

/* ---- Roots ---------------------------------------------------------------- */

void sgc_global_root(void *slot) {
    if (sgc__nglobals == globals_cap)
        grow(&sgc__globals, &globals_cap, sgc__nglobals + 1, "global roots");
    sgc__globals[sgc__nglobals++] = (void **)slot;
}

void sgc_write_barrier_slow(sgc_obj obj) {
    SGC_HDR(obj) &= ~(uint64_t)SGC_F_TRACK_YOUNG;
    if (sgc__nremset == remset_cap)
        grow(&sgc__remset, &remset_cap, sgc__nremset + 1, "the remembered set");
    sgc__remset[sgc__nremset++] = obj;
}

/* ---- Heap set-up ---------------------------------------------------------- */

static uint64_t heap_bytes(void) { return sgc__old_bytes + sgc__large_bytes; }

static void note_peak(void) {
    uint64_t h = heap_bytes();
    sgc__stats.heap_bytes = h;
    if (h + nursery_bytes > sgc__stats.peak_heap_bytes)
        sgc__stats.peak_heap_bytes = h + nursery_bytes;
}

char *sgc__nursery_zeroed;
char *sgc__nursery_counted;

/* Starts allocating in one half of the nursery mapping.  Nothing in it is
 * taken to be zero: the slow path zeroes it chunk by chunk. */
static void nursery_use(int half) {
    nursery_half = half;
    sgc_nursery.start = nursery_base[half];
    sgc_nursery.free = nursery_base[half];
    sgc_nursery.end = nursery_base[half] + nursery_bytes;
    sgc__nursery_zeroed = sgc_nursery.start;
    sgc__nursery_counted = sgc_nursery.start;
}

static void collect(int force_major);

/* Is the heap plus the nursery above SGC_HEAP_MAX (if set)? */
static int over_heap_max(uint64_t more) {
    return sgc__settings.heap_max != 0 && heap_bytes() + nursery_bytes + more > sgc__settings.heap_max;
}

/* The program needs more than SGC_HEAP_MAX: a clean failure at a point where
 * the heap is consistent, so the profile and stats record are still written
 * (exit runs sgc_shutdown). */
__attribute__((noreturn)) static void heap_max_exceeded(const char *what, uint64_t more) {
    char size[48] = "";
    if (more)
        snprintf(size, sizeof size, " of %llu bytes", (unsigned long long)more);
    fprintf(stderr,
            "freecheck: out of memory: %s%s exceeds SGC_HEAP_MAX=%llu (after a full collection: %llu bytes in "
            "the old generation and large objects, %zu in the nursery)\n",
            what, size, (unsigned long long)sgc__settings.heap_max, (unsigned long long)heap_bytes(), nursery_bytes);
    exit(1);
}

static void heap_init(void) {
    nursery_bytes = sgc__settings.nursery_size;
    size_t map = sgc__settings.poison ? 2 * nursery_bytes : nursery_bytes;
    char *m;
    sgc__hugepages_init();
    if (sgc__hugepages_in_effect) {
        /* Both halves (SGC_POISON) in one mapping, rounded up to whole huge
         * pages: a huge page backs only a 2 MiB range the mapping covers. */
        map = (map + SGC_HUGE_PAGE_BYTES - 1) & ~(SGC_HUGE_PAGE_BYTES - 1);
        m = sgc__map_aligned(map, SGC_HUGE_PAGE_BYTES);
        if (m == NULL)
            m = MAP_FAILED;
    } else
        m = mmap(NULL, map, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) {
        /* A size the parser accepts (up to 64G) that this machine cannot
         * map: the setting is what the user must change, so exit 2 as for
         * any other bad setting, before anything has run. */
        fprintf(stderr,
                "freecheck: SGC_NURSERY=%s: the system refused to map %zu bytes for the nursery%s (%s); "
                "choose a smaller nursery\n",
                getenv("SGC_NURSERY") ? getenv("SGC_NURSERY") : "", map,
                sgc__settings.poison ? " (twice the size, SGC_POISON=1)" : "", strerror(errno));
        exit(2);
    }
    nursery_base[0] = m;
    nursery_base[1] = sgc__settings.poison ? m + nursery_bytes : m;
    nursery_use(0);
    sgc__nursery_zeroed = sgc_nursery.end; /* a fresh mapping is zero */
    sgc__old_init();
    next_major_at = SGC_MAJOR_FLOOR;
    statm_fd = open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
    note_peak();
}

void sgc_init(void) {
    if (sgc__initialized)
        return;
    sgc__initialized = 1;
    start_ns = sgc__now_ns();
    sgc__settings_load();
    if (sgc__settings.virtual_clock_ns)
        start_ns = sgc__now_ns(); /* the virtual clock's first reading: run_ns counts from it */
    sgc__outputs_check();         /* exit 2 before anything runs or is written */
    heap_init();
    sgc_nursery.limit = sgc_nursery.free; /* until the slow path sets it */
    sgc__profile_init();
    sgc__sample_init();
    sgc__timer_init();
    sgc__alt_init();
    sgc__alloc_reset_limit();
    atexit(sgc_shutdown);
}

/* ---- Large objects -------------------------------------------------------- */

sgc_obj sgc__large_alloc(uint32_t tid, size_t payload, size_t footprint) {
    if (!sgc__initialized)
        sgc_init();
    /* Young large objects are only freed by a minor collection; a program
     * that allocates nothing but large objects would never have one.  So
     * collect first once the young large objects outweigh the nursery. */
    uint64_t budget = nursery_bytes > ((uint64_t)4 << 20) ? nursery_bytes : ((uint64_t)4 << 20);
    if (sgc__young_large_bytes + footprint > budget && sgc__young_large != NULL)
        sgc__minor_collect();
    if (over_heap_max(footprint)) {
        collect(1);
        sgc__alloc_reset_limit();
        if (over_heap_max(footprint))
            heap_max_exceeded("a large object", footprint);
    }
    /* The header holds the payload in 32 bits of words: 32 GiB at most. */
    if (payload > ((size_t)UINT32_MAX << 3) - 8 || footprint < payload) {
        fprintf(stderr, "freecheck: cannot allocate an object of %zu bytes: the largest object is 32 GiB\n", payload);
        abort();
    }
    size_t total = sizeof(sgc_large) + footprint - SGC_HEADER_BYTES;
    sgc_large *l = sgc__los_alloc(total);
    if (l == NULL)
        sgc__oom("a large object", total);
    l->footprint = footprint;
    l->header = SGC_HDR_MAKE(tid, footprint) | SGC_F_LARGE | SGC_F_YOUNG_LARGE;
    l->next = sgc__young_large;
    sgc__young_large = l;
    sgc__young_large_bytes += footprint;
    sgc__large_bytes += footprint;
    sgc__stats.large_bytes += footprint;
    sgc__stats.large_objects++;
    note_peak();
    return SGC_LARGE_OBJ(l);
}

int sgc__is_young_large(sgc_obj obj) {
    uint64_t h = SGC_HDR(obj);
    return (h & SGC_F_FORWARDED) == 0 && (h & SGC_F_YOUNG_LARGE) != 0;
}

/* The nursery part being collected: [start, free) of the current half.  p is
 * an object (payload) pointer, 8 bytes past its header, so a zero-payload
 * object at the very end has p == free: test the header's address. */
static inline int in_nursery(const void *p) {
    const char *h = (const char *)p - SGC_HEADER_BYTES;
    return h >= sgc_nursery.start && h < sgc_nursery.free;
}

int sgc__young_survived(sgc_obj young, sgc_obj *moved_to) {
    uint64_t h = SGC_HDR(young);
    if (in_nursery(young)) {
        if (!(h & SGC_F_FORWARDED))
            return 0;
        if (moved_to)
            *moved_to = (sgc_obj)(uintptr_t)(h & ~(uint64_t)SGC_F_FORWARDED);
        return 1;
    }
    if ((h & SGC_F_YOUNG_LARGE) && (h & SGC_F_MARKED)) {
        if (moved_to)
            *moved_to = young;
        return 1;
    }
    return 0;
}

/* ---- Minor collection ----------------------------------------------------- */

/* Copies a nursery object into the old generation (once) and returns where it is now. */
static inline sgc_obj evacuate(sgc_obj p) {
    uint64_t h = SGC_HDR(p);
    if (h & SGC_F_FORWARDED)
        return (sgc_obj)(uintptr_t)(h & ~(uint64_t)SGC_F_FORWARDED);
    size_t footprint = SGC_HEADER_BYTES + ((size_t)(h >> 32) << 3);
    char *slot = sgc__old_alloc(footprint);
    if (footprint <= 64) {
        /* Most survivors are a few words: a word loop beats a memcpy call.
         * The empty asm keeps compilers from turning the loop back into one. */
        const uint64_t *from = (const uint64_t *)((char *)p - SGC_HEADER_BYTES);
        uint64_t *to = (uint64_t *)slot;
        for (size_t i = 0; i < footprint / 8; i++) {
            to[i] = from[i];
            __asm__("" : "+r"(i));
        }
    } else {
        memcpy(slot, (char *)p - SGC_HEADER_BYTES, footprint);
    }
    /* Old now and not in the remembered set: the barrier must watch it. */
    *(uint64_t *)slot = h | SGC_F_TRACK_YOUNG;
    sgc_obj n = slot + SGC_HEADER_BYTES;
    SGC_HDR(p) = (uint64_t)(uintptr_t)n | SGC_F_FORWARDED;
    /* Leave the size behind for the nursery walk (see sgc_gc.h), so it need
     * not read the copy: a cache miss per survivor. */
    if (footprint >= 16)
        *(uint64_t *)p = SGC_FWD_SIZE_WORD(footprint);
    sgc__stats.bytes_promoted += footprint;
    if (sgc__gc_types[(h >> 8) & 0xffffffu].has_ptrs)
        work_push(n);
    return n;
}

/* Updates one reference during a minor collection. */
static inline void minor_visit(sgc_obj *slot) {
    sgc_obj p = *slot;
    if (p == NULL)
        return;
    if (in_nursery(p)) {
        *slot = evacuate(p);
        return;
    }
    /* Not in the nursery: old, or a young large object.  Reading the header
     * of every old object referenced would cost a cache miss each, so skip
     * it when there are no young large objects at all (the common case). */
    if (sgc__young_large == NULL)
        return;
    uint64_t h = SGC_HDR(p);
    if ((h & (SGC_F_YOUNG_LARGE | SGC_F_MARKED)) == SGC_F_YOUNG_LARGE) {
        SGC_HDR(p) = h | SGC_F_MARKED;
        if (sgc__gc_types[(h >> 8) & 0xffffffu].has_ptrs)
            work_push(p);
    }
}

/* Counts the nursery objects whose headers lie in [*pp, stop) and leaves *pp
 * at the first object start at or after stop (never beyond to, the end of
 * the allocated part).
 *
 * Stepping from header to header is a chain of dependent loads (about 7
 * cycles an object), which would cost more than allocating the objects did.
 * So runs of identical headers are counted 16 (then 8) at a time: if the
 * object at p has header h and size s, the next object starts at p + s, so
 * when the headers at p + s, ..., p + 15s all equal h, those are 16 objects
 * of that type and size.  The loads do not depend on each other, so the CPU
 * issues them together.  Forwarded headers are all different and end a run. */
static uint64_t count_objects(const char **pp, const char *stop, const char *to) {
    uint64_t n = 0;
    const char *p = *pp;
    while (p < stop) {
        uint64_t h = *(const uint64_t *)p;
        if (!(h & SGC_F_FORWARDED) && h != 0) {
            size_t s = SGC_HEADER_BYTES + ((size_t)(h >> 32) << 3);
#define SGC_RUN_DIFF(k) (*(const uint64_t *)(p + (k)*s) ^ h)
            /* 16 at a time while the run lasts, then 8 at a time. */
            while ((size_t)(to - p) >= 16 * s) {
                uint64_t diff = SGC_RUN_DIFF(1) | SGC_RUN_DIFF(2) | SGC_RUN_DIFF(3) | SGC_RUN_DIFF(4) |
                                SGC_RUN_DIFF(5) | SGC_RUN_DIFF(6) | SGC_RUN_DIFF(7) | SGC_RUN_DIFF(8) |
                                SGC_RUN_DIFF(9) | SGC_RUN_DIFF(10) | SGC_RUN_DIFF(11) | SGC_RUN_DIFF(12) |
                                SGC_RUN_DIFF(13) | SGC_RUN_DIFF(14) | SGC_RUN_DIFF(15);
                if (diff != 0)
                    break;
                n += 16;
                p += 16 * s;
                if (p >= stop || *(const uint64_t *)p != h)
                    goto run_done;
            }
            while ((size_t)(to - p) >= 8 * s) {
                uint64_t diff = SGC_RUN_DIFF(1) | SGC_RUN_DIFF(2) | SGC_RUN_DIFF(3) | SGC_RUN_DIFF(4) |
                                SGC_RUN_DIFF(5) | SGC_RUN_DIFF(6) | SGC_RUN_DIFF(7);
                if (diff != 0)
                    break;
                n += 8;
                p += 8 * s;
                if (p >= stop || *(const uint64_t *)p != h)
                    break;
            }
#undef SGC_RUN_DIFF
        run_done:
            if (p >= stop)
                break;
            h = *(const uint64_t *)p;
        }
        size_t size;
        if (h & SGC_F_FORWARDED) {
            uint64_t w = (size_t)(to - p) > SGC_HEADER_BYTES ? *(const uint64_t *)(p + SGC_HEADER_BYTES) : 0;
            size = SGC_FWD_SIZE_IS(w) ? SGC_FWD_SIZE_OF(w) : SGC_HEADER_BYTES;
        } else if (h == 0) {
            fprintf(stderr, "freecheck: corrupt nursery: zero header at offset %zu\n", (size_t)(p - sgc_nursery.start));
            abort();
        } else {
            size = SGC_HEADER_BYTES + ((size_t)(h >> 32) << 3);
        }
        p += size;
        n++;
    }
    *pp = p;
    return n;
}

uint64_t sgc__nursery_count(const char *from, const char *to) {
    const char *p = from;
    return count_objects(&p, to, to);
}

static uint64_t rss_bytes(void) {
    char buf[128];
    if (statm_fd < 0)
        return 0;
    ssize_t n = pread(statm_fd, buf, sizeof buf - 1, 0);
    if (n <= 0)
        return 0;
    buf[n] = '\0';
    unsigned long long size = 0, resident = 0;
    if (sscanf(buf, "%llu %llu", &size, &resident) != 2)
        return 0;
    return (uint64_t)resident * (uint64_t)sysconf(_SC_PAGESIZE);
}

static void major_mark_and_sweep(void);

/* The minor collection proper (sgc__minor_collect's documented order),
 * then a major collection if one is due or forced. */
static void collect(int force_major) {
    if (!sgc__initialized)
        sgc_init();
    if (sgc__phase != SGC_PHASE_MUTATOR) {
        /* A hook called during a collection allocated or collected: the heap
         * is half-moved, so going on would corrupt it. */
        fprintf(stderr, "freecheck: a collection was started from inside a collection "
                        "(an allocation in a collector hook?)\n");
        abort();
    }
    if (sgc__settings.verify)
        sgc__verify("before a minor collection");
    uint64_t t0 = sgc__now_ns();
    sgc__phase = SGC_PHASE_MINOR;
    char *from = sgc_nursery.start, *used_end = sgc_nursery.free;

    nwork = 0;
    /* Roots 1: the shadow stack.  NULL slot addresses and NULL values are skipped. */
    for (sgc_frame *f = sgc_top; f != NULL; f = f->parent)
        for (uint32_t i = 0; i < f->nroots; i++)
            if (f->roots[i] != NULL)
                minor_visit((sgc_obj *)f->roots[i]);
    /* Roots 2: registered globals. */
    for (size_t i = 0; i < sgc__nglobals; i++)
        minor_visit((sgc_obj *)sgc__globals[i]);
    /* Roots 3: the remembered set: old objects that got a pointer stored since
     * the last minor collection.  Afterwards they hold no young pointer, so
     * they go back to being watched by the barrier. */
    for (size_t i = 0; i < sgc__nremset; i++) {
        sgc_obj o = sgc__remset[i];
        SGC_GC_FOR_EACH_FIELD(o, s, minor_visit(s));
        SGC_HDR(o) |= SGC_F_TRACK_YOUNG;
    }
    sgc__nremset = 0;
    /* Transitive closure: copied objects and reached young large objects. */
    while (nwork > 0) {
        sgc_obj o = work[--nwork];
        SGC_GC_FOR_EACH_FIELD(o, s, minor_visit(s));
    }

    note_peak(); /* the high-water mark: copies made, dead large objects not yet freed */
    sgc__sample_minor_end();

    sgc__stats.nursery_bytes += (uint64_t)(used_end - from);
    uint64_t large_promoted_objects;
    sgc__large_minor_sweep(&large_promoted_objects);
    sgc__stats.large_promoted += large_promoted_objects;

    /* Reset the nursery.  Only the objects the slow path has not counted
     * yet are counted here (forwarding is still there); nothing is zeroed:
     * the slow path zeroes chunks ahead of the limit as allocation proceeds. */
    sgc__stats.nursery_objects += sgc__nursery_count(sgc__nursery_counted, used_end);
    if (sgc__settings.poison) {
        memset(from, SGC_POISON_BYTE, (size_t)(used_end - from));
        nursery_use(1 - nursery_half); /* the other half, poisoned one collection ago */
    } else {
        nursery_use(nursery_half);
    }
    sgc__alloc_reset_limit();
    note_peak();
    sgc__stats.minor_collections++;
    uint64_t t1 = sgc__now_ns();
    sgc__stats.minor_ns += t1 - t0;
    sgc__phase = SGC_PHASE_MUTATOR;
    sgc__profile_gc_event(SGC_PHASE_MINOR, t0, t1 - t0, heap_bytes(), rss_bytes());
    if (sgc__settings.verify)
        sgc__verify("after a minor collection");

    if (force_major || heap_bytes() >= next_major_at || over_heap_max(0))
        major_mark_and_sweep();
    sgc__timer_drain();
    if (over_heap_max(0))
        heap_max_exceeded("the live heap", 0);
    sgc__alt_minor_end(); /* last: a segment boundary sees the collection complete */
}

void sgc__minor_collect(void) { collect(0); }

void sgc_collect_minor(void) {
    collect(0);
    sgc__alloc_reset_limit();
}

void sgc_collect_major(void) {
    collect(1);
    sgc__alloc_reset_limit();
}

/* ---- Major collection ----------------------------------------------------- */

static inline void major_visit(sgc_obj *slot) {
    sgc_obj p = *slot;
    if (p == NULL)
        return;
    uint64_t h = SGC_HDR(p);
    if (h & SGC_F_MARKED)
        return;
    SGC_HDR(p) = h | SGC_F_MARKED;
    if (sgc__gc_types[(h >> 8) & 0xffffffu].has_ptrs)
        work_push(p);
}

static void major_mark_and_sweep(void) {
    if (sgc__settings.verify)
        sgc__verify("before a major collection");
    uint64_t t0 = sgc__now_ns();
    sgc__alt_major(1);
    sgc__phase = SGC_PHASE_MAJOR;
    nwork = 0;
    for (sgc_frame *f = sgc_top; f != NULL; f = f->parent)
        for (uint32_t i = 0; i < f->nroots; i++)
            if (f->roots[i] != NULL)
                major_visit((sgc_obj *)f->roots[i]);
    for (size_t i = 0; i < sgc__nglobals; i++)
        major_visit((sgc_obj *)sgc__globals[i]);
    while (nwork > 0) {
        sgc_obj o = work[--nwork];
        SGC_GC_FOR_EACH_FIELD(o, s, major_visit(s));
    }
    sgc__old_sweep();
    uint64_t live = heap_bytes();
    double next = (double)live * sgc__settings.major_growth;
    next_major_at = next > (double)SGC_MAJOR_FLOOR ? (uint64_t)next : SGC_MAJOR_FLOOR;
    note_peak();
    sgc__stats.major_collections++;
    uint64_t t1 = sgc__now_ns();
    sgc__stats.major_ns += t1 - t0;
    sgc__alt_major(0);
    sgc__phase = SGC_PHASE_MUTATOR;
    sgc__profile_gc_event(SGC_PHASE_MAJOR, t0, t1 - t0, live, rss_bytes());
    if (sgc__settings.verify)
        sgc__verify("after a major collection");
}

/* ---- Statistics ----------------------------------------------------------- */

void sgc_get_stats(sgc_stats *out) {
    if (!sgc__initialized)
        sgc_init();
    sgc__sample_sync();
    *out = sgc__stats;
    out->nursery_bytes += (uint64_t)(sgc_nursery.free - sgc_nursery.start);
    out->nursery_objects += sgc__nursery_count(sgc__nursery_counted, sgc_nursery.free);
    out->heap_bytes = heap_bytes();
    sgc__timer_stats(out);
}

/* The stats record's lines (docs/FORMATS.md), for sgc__output_replace. */
static int fill_stats(FILE *f, void *ctx) {
    (void)ctx;
    sgc_stats s;
    sgc_get_stats(&s);
    uint64_t run_ns = sgc__now_ns() - start_ns;
    const sgc_settings *st = &sgc__settings;
    double hz = s.time_sampling_ns ? (double)s.time_samples / ((double)s.time_sampling_ns / 1e9) : 0.0;
    fprintf(f, "sgc-stats 1\n");
    /* One line per row of sgc_stats_keys.h, in its order. */
#define PUT_U64(key, v) fprintf(f, "%s %llu\n", key, (unsigned long long)(v))
#define PUT_INT(key, v) fprintf(f, "%s %d\n", key, (int)(v))
#define PUT_DEC3(key, v) fprintf(f, "%s %.3f\n", key, (double)(v))
#define PUT_WORD(key, v) fprintf(f, "%s %s\n", key, (v))
#define PUT_KEY(key, type, value, what) PUT_##type(#key, value);
    SGC_STATS_KEYS(PUT_KEY)
#undef PUT_KEY
#undef PUT_U64
#undef PUT_INT
#undef PUT_DEC3
#undef PUT_WORD
    return 0;
}

void sgc_shutdown(void) {
    if (!sgc__initialized || shut_down)
        return;
    shut_down = 1;
    int alt_failed = sgc__alt_shutdown() != 0;
    sgc__timer_shutdown();
    sgc__sample_shutdown();
    sgc__profile_shutdown();
    sgc__settings_exit_warnings();
    char why[256];
    if (sgc__settings.stats_path != NULL &&
        sgc__output_replace(SGC_OUT_STATS, fill_stats, NULL, why, sizeof why) != 0) {
        fprintf(stderr, "freecheck: cannot write the stats record to %s (SGC_STATS): %s\n", sgc__settings.stats_path,
                why);
        /* A run without its record is a failed run: say so in the exit status. */
        fflush(NULL);
        _exit(1);
    }
    if (alt_failed || sgc__profile_failed()) {
        /* Likewise a run without its segment series or with an incomplete
         * profile (message printed): the program ran on, its status says so. */
        fflush(NULL);
        _exit(1);
    }
}

/* ---- Verifier entry ---------------------------------------------------------- */

void sgc_verify_heap(void) {
    if (!sgc__initialized)
        sgc_init();
    sgc__verify("on request");
}
