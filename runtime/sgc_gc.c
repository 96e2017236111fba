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
#define _GNU_SOURCE /* pthread_getattr_np */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "sgc_gc.h"
#include "sgc_output.h"
#include "sgc_statswrite.h"
#include "sgc_timer.h"

/* ---- Shared state --------------------------------------------------------- */

sgc_frame *sgc_top;
sgc_nursery_state sgc_nursery;
volatile sig_atomic_t sgc__phase;
sgc_stats sgc__stats;
int sgc__initialized;
int sgc__shut_down;
__thread int sgc__mutator;

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
static size_t poisoned[2];     /* SGC_POISON: bytes of each half poisoned when it was last evacuated */
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

/* The real clock's half of sgc__now_into, out of line so that the virtual
 * clock's half needs no frame. */
__attribute__((noinline)) static void *now_real_into(uint64_t *at, void *ret) {
    *at = sgc__now_ns();
    return ret;
}

void *sgc__now_into(uint64_t *at, void *ret) {
    uint64_t step = sgc__settings.virtual_clock_ns;
    if (!step)
        return now_real_into(at, ret);
    *at = __atomic_add_fetch(&virtual_now, step, __ATOMIC_RELAXED);
    return ret;
}

uint64_t sgc__record_ns(uint64_t real_ns) { return sgc__settings.virtual_clock_ns ? sgc__now_ns() : real_ns; }

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

/* ---- Misuse ---------------------------------------------------------------- */

#if SGC_CHECKS
/* With write(2) alone: the time sampler's signal handler asserts too. */
static void put_err(const char *s) {
    size_t n = strlen(s);
    while (n > 0) {
        ssize_t w = write(2, s, n);
        if (w <= 0)
            return;
        s += w;
        n -= (size_t)w;
    }
}

void sgc__assert_fail(const char *file, int line, const char *cond, const char *reason) {
    char num[16], *d = num + sizeof num;
    *--d = '\0';
    unsigned u = line > 0 ? (unsigned)line : 0u;
    do
        *--d = (char)('0' + u % 10);
    while ((u /= 10) != 0 && d > num);
    put_err("freecheck: ");
    put_err(file);
    put_err(":");
    put_err(d);
    put_err(": invariant failed: ");
    put_err(cond);
    put_err(" (");
    put_err(reason);
    put_err(")\n");
    abort();
}

void sgc__frame_pop_misordered(const char *file, int line) {
    sgc__assert_fail(file, line, "sgc_top == f",
                     "sgc_frame_pop pops the innermost frame: a frame pushed after it was not popped first");
}
#endif

void sgc__misuse(const char *fmt, ...) {
    va_list ap;
    fputs("freecheck: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    abort();
}

static const char *func_name(const sgc_frame *f) { return f->func && f->func->name ? f->func->name : "?"; }

void sgc__new_var_overflow(size_t fixed, size_t n, size_t elem) {
    sgc__misuse("SGC_NEW_VAR: %zu bytes and %zu elements of %zu bytes overflow a size; the count is wrong (negative?)",
                fixed, n, elem);
}

/* A reference the collector is about to follow leads to a header that
 * names no registered type: a root or field holds something the runtime
 * did not allocate, or a pointer into an object.  Following it would mark
 * or copy foreign memory.  These checks of every object the collector
 * copies or marks (GC_OBJECT_CHECK) are API misuse checks that a correct
 * program never fails: they are compiled in with SGC_CHECKS=1 (make test,
 * the sanitizer builds) and left out of the measured build, where they cost
 * 35,500 instructions a minor collection on gcbench (docs/RUNTIME.md). */
#define GC_OBJECT_CHECK(bad) (SGC_CHECKS && __builtin_expect((bad), 0))
__attribute__((noinline, noreturn, cold, unused)) static void not_an_object(const void *p, uint64_t h) {
    char why[64];
    if ((h & SGC_F_FORWARDED) && (h & 7) != SGC_F_FORWARDED)
        snprintf(why, sizeof why, "neither a header nor a forwarding address");
    else
        snprintf(why, sizeof why, "type id %u is not registered", (unsigned)((h >> 8) & 0xffffffu));
    sgc__misuse("the collector found a reference to %p, which is not an object (header %#llx: %s); a root or "
                "pointer field holds an address the runtime did not allocate, or one inside an object "
                "(SGC_VERIFY=1 names the field)",
                p, (unsigned long long)h, why);
}

char *sgc__mutator_sp;

static int on_stack(const void *p);

void sgc__frame_check_live(const sgc_frame *f) {
    /* The program's live frames are above the stack pointer it had when it
     * entered the runtime; one below is in the stack of a function that has
     * returned, and its contents are whatever was put there since (its
     * name is not read: the memory is no frame any more). */
    if (sgc__mutator_sp && (const char *)f < sgc__mutator_sp && on_stack(f))
        sgc__misuse("the frame stack holds a frame at %p whose function has returned (the program's stack is above "
                    "%p): a frame pushed and not popped, or a longjmp out of a function with SGC_FRAME",
                    (const void *)f, (void *)sgc__mutator_sp);
}

/* The frame stack before a collection walks it: no frame of a function that
 * has returned (frames popped out of order leave one behind), no loop (a frame pushed twice; Brent's
 * cycle detection, one pass), every frame names its function (the profiler
 * reads it) and every frame with roots has its root array. */
static void check_frame(const sgc_frame *f) {
    sgc__frame_check_live(f);
    if (f->func == NULL)
        sgc__misuse("the frame at %p has no function (func is NULL); set it before the push", (const void *)f);
    if (f->nroots && f->roots == NULL)
        sgc__misuse("%s's frame has %u roots but no root array (roots is NULL)", func_name(f), f->nroots);
}

static void check_frames(void) {
    sgc_frame *t = sgc_top;
    if (t == NULL)
        return;
    check_frame(t);
    size_t power = 1, lam = 1;
    for (sgc_frame *h = t->parent; h != NULL; h = h->parent, lam++) {
        if (h == t)
            sgc__misuse("the frame stack loops back to %s's frame (a frame pushed twice without a pop in between)",
                        func_name(h));
        check_frame(h);
        if (power == lam) {
            t = h;
            power *= 2;
            lam = 0;
        }
    }
}

/* ---- Types ---------------------------------------------------------------- */

uint32_t sgc_type_register(const sgc_type *type) {
    if (type == NULL || type->name == NULL) {
        fprintf(stderr, "freecheck: sgc_type_register: a type needs a name\n");
        abort();
    }
    /* A pointer word must lie wholly inside the fixed part: one that
     * straddles its end would be read half from what follows. */
    if (type->fixed_size > 512 || (type->fixed_size < 512 && (type->ptr_map >> (type->fixed_size / 8)) != 0) ||
        (type->var == SGC_VAR_PTRS && type->fixed_size % 8 != 0) || (unsigned)type->var > SGC_VAR_WORDS) {
        fprintf(stderr,
                "freecheck: sgc_type_register: type %s is malformed (fixed part at most 512 bytes, "
                "pointer words wholly within the fixed part, pointer arrays 8-byte aligned, a known var kind)\n",
                type->name);
        abort();
    }
    for (uint32_t i = 1; i <= sgc__gc_ntypes; i++) {
        const sgc_type *t = &sgc__gc_types[i].t;
        if (strcmp(t->name, type->name) != 0)
            continue;
        /* The same name is the same type only with the same layout: the
         * collector would trace the new one by the old map. */
        if (t->fixed_size != type->fixed_size || t->ptr_map != type->ptr_map || t->var != type->var)
            sgc__misuse("sgc_type_register: type %s is registered already with another layout (fixed part %u "
                        "bytes, pointer map %#llx, var kind %d; now %u bytes, %#llx, %d); give the new layout its "
                        "own name",
                        type->name, t->fixed_size, (unsigned long long)t->ptr_map, (int)t->var, type->fixed_size,
                        (unsigned long long)type->ptr_map, (int)type->var);
        return i;
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

/* The registered slots, for finding one registered twice: open addressing
 * on the address, power-of-two capacity, at most half full. */
static void ***root_set;
static size_t root_set_cap;

static size_t slot_hash(const void *p) { return (size_t)(((uintptr_t)p >> 3) * 0x9e3779b97f4a7c15ull); }

/* Adds slot; 0 if it was there already. */
static int root_set_add(void **slot) {
    if ((sgc__nglobals + 1) * 2 > root_set_cap) {
        size_t cap = root_set_cap ? root_set_cap * 2 : 1024;
        void ***t = calloc(cap, sizeof *t);
        if (t == NULL)
            sgc__oom("global roots", cap * sizeof *t);
        for (size_t i = 0; i < sgc__nglobals; i++) {
            size_t j = slot_hash(sgc__globals[i]) & (cap - 1);
            while (t[j])
                j = (j + 1) & (cap - 1);
            t[j] = sgc__globals[i];
        }
        free(root_set);
        root_set = t;
        root_set_cap = cap;
    }
    size_t j = slot_hash(slot) & (root_set_cap - 1);
    for (; root_set[j]; j = (j + 1) & (root_set_cap - 1))
        if (root_set[j] == slot)
            return 0;
    root_set[j] = slot;
    return 1;
}

/* The main thread's stack ends (at its top) at glibc's __libc_stack_end. */
extern void *__libc_stack_end;

/* Is p on this thread's stack?  The bounds are found once: for the main
 * thread from the top of its stack and RLIMIT_STACK (at most 1 GiB is
 * taken, as for an unlimited stack), without reading /proc; for another
 * thread from its attributes. */
static int on_stack(const void *p) {
    static uintptr_t lo, hi;
    static int known;
    if (!known) {
        if (getpid() == (pid_t)syscall(SYS_gettid)) {
            struct rlimit rl;
            uintptr_t size = (uintptr_t)1 << 30;
            if (getrlimit(RLIMIT_STACK, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < size)
                size = (uintptr_t)rl.rlim_cur;
            hi = (uintptr_t)__libc_stack_end;
            lo = hi > size ? hi - size : 0;
        } else {
            pthread_attr_t a;
            if (pthread_getattr_np(pthread_self(), &a) == 0) {
                void *addr;
                size_t size;
                if (pthread_attr_getstack(&a, &addr, &size) == 0) {
                    lo = (uintptr_t)addr;
                    hi = lo + size;
                }
                pthread_attr_destroy(&a);
            }
        }
        known = 1;
    }
    return (uintptr_t)p >= lo && (uintptr_t)p < hi;
}

static sgc_block *slot_block;
static int slot_block_found;
static void find_block(sgc_block *b, void *arg) {
    (void)arg;
    slot_block_found |= b == slot_block;
}

/* Is p inside the heap: the nursery, an old-generation block, a large object? */
static int in_heap(const void *p) {
    const char *c = p;
    for (int i = 0; i < 2; i++)
        if (nursery_base[i] && c >= nursery_base[i] && c < nursery_base[i] + nursery_bytes)
            return 1;
    slot_block = SGC_BLOCK_OF(p);
    slot_block_found = 0;
    sgc__old_each_block(find_block, NULL);
    if (slot_block_found)
        return 1;
    for (int old = 0; old < 2; old++)
        for (sgc_large *l = old ? sgc__old_large : sgc__young_large; l; l = l->next)
            if (c >= (const char *)l && c < (const char *)l + sizeof(sgc_large) + l->footprint - SGC_HEADER_BYTES)
                return 1;
    return 0;
}

void sgc_global_root(void *slot) {
    if (slot == NULL)
        sgc__misuse("sgc_global_root: the slot is NULL");
    if ((uintptr_t)slot & 7)
        sgc__misuse("sgc_global_root: slot %p is not 8-byte aligned", slot);
    if (on_stack(slot))
        sgc__misuse("sgc_global_root: slot %p is on the stack: a local variable dies with its function; make it a "
                    "root with SGC_FRAME",
                    slot);
    if (in_heap(slot))
        sgc__misuse("sgc_global_root: slot %p is inside the heap (a field of an object, which moves or dies); make "
                    "the field's object reachable instead",
                    slot);
    if (sgc__nglobals == SGC_MAX_GLOBAL_ROOTS)
        sgc__misuse("sgc_global_root: more than %d global roots; register each global once", SGC_MAX_GLOBAL_ROOTS);
    if (!root_set_add((void **)slot))
        sgc__misuse("sgc_global_root: slot %p is registered already", slot);
    if (sgc__nglobals == globals_cap)
        grow(&sgc__globals, &globals_cap, sgc__nglobals + 1, "global roots");
    sgc__globals[sgc__nglobals++] = (void **)slot;
}

void sgc_write_barrier_slow(sgc_obj obj) {
    uint64_t h = SGC_HDR(obj);
    /* Only an old object comes here, whose header never has bit 0 (only a
     * forwarded nursery object's has).  Freed memory with SGC_POISON (its
     * 0xdb bytes carry both flags) would otherwise be added to the
     * remembered set and traced as an object.  One test and branch. */
    if (h & SGC_F_FORWARDED)
        sgc__misuse("sgc_write_barrier on %p, which is not a live object (header %#llx%s); a pointer kept across "
                    "the collection that freed it",
                    obj, (unsigned long long)h,
                    h == 0x0101010101010101ull * SGC_POISON_BYTE ? ": freed memory, SGC_POISON" : "");
    SGC_HDR(obj) = h & ~(uint64_t)SGC_F_TRACK_YOUNG;
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
    if (sgc__initialized) {
        if (sgc__shut_down)
            sgc__misuse("sgc_init after sgc_shutdown: the runtime cannot start again in the same process");
        return;
    }
    sgc__initialized = 1;
    sgc__mutator = 1;
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
    /* The header holds the payload in 32 bits of words: 32 GiB at most.
     * Refused before anything (a collection) is done for it. */
    if (payload > ((size_t)UINT32_MAX << 3) - 8 || footprint < payload) {
        fprintf(stderr, "freecheck: cannot allocate an object of %zu bytes: the largest object is 32 GiB\n", payload);
        abort();
    }
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
    /* A forwarded header is an 8-byte aligned address with bit 0 set; any
     * other header names a registered type.  Anything else is not an
     * object. */
    if (h & SGC_F_FORWARDED) {
        if (GC_OBJECT_CHECK((h & 7) != SGC_F_FORWARDED))
            not_an_object(p, h);
        return (sgc_obj)(uintptr_t)(h & ~(uint64_t)SGC_F_FORWARDED);
    }
    if (GC_OBJECT_CHECK(!SGC_TID_OK(h)))
        not_an_object(p, h);
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
    if (GC_OBJECT_CHECK(!SGC_TID_OK(h)))
        not_an_object(p, h);
    if ((h & (SGC_F_YOUNG_LARGE | SGC_F_MARKED)) == SGC_F_YOUNG_LARGE) {
        SGC_HDR(p) = h | SGC_F_MARKED;
        if (sgc__gc_types[(h >> 8) & 0xffffffu].has_ptrs)
            work_push(p);
    }
}

/* Counts a run of identical headers 16 objects at a time: p is an object
 * with header h and footprint s, and while p + 16s < to and the headers at
 * p + s, ..., p + 16s all equal h, those are 16 more objects of that type
 * and size, and p moves to the last of them.  Returns the new p and adds the
 * objects to *n.  The loads do not depend on each other, so the CPU issues
 * them together (stepping from header to header would be a chain of
 * dependent loads, about 7 cycles an object, more than allocating them).
 *
 * On x86-64 one compare with the header in memory and one branch an
 * object, the 16 addresses formed from p, s, 3s, 5s, 7s and the scales 1,
 * 2, 4, 8 around a midpoint q = p + 8s: 37 instructions for 16 objects,
 * where the compiler's code for the same loop (an xor and an or of each
 * loaded header, the 15 offsets kept in registers and on the stack) took
 * 60.  Elsewhere the same loop in C. */
static inline const char *count_run16(const char *p, size_t s, uint64_t h, const char *to, uint64_t *n) {
    if ((size_t)(to - p) <= 16 * s)
        return p;
    const char *lim = to - 16 * s; /* p < lim: the header at p + 16s lies before to */
#if defined(__x86_64__) && !defined(SGC_COUNT_PORTABLE)
    const char *q;
    uint64_t k = *n;
    __asm__("1:\n\t"
            "cmpq %[h], (%[p],%[s],1)\n\t"
            "jne 2f\n\t"
            "cmpq %[h], (%[p],%[s],2)\n\t"
            "jne 2f\n\t"
            "cmpq %[h], (%[p],%[s3],1)\n\t"
            "jne 2f\n\t"
            "cmpq %[h], (%[p],%[s],4)\n\t"
            "jne 2f\n\t"
            "cmpq %[h], (%[p],%[s5],1)\n\t"
            "jne 2f\n\t"
            "cmpq %[h], (%[p],%[s3],2)\n\t"
            "jne 2f\n\t"
            "cmpq %[h], (%[p],%[s7],1)\n\t"
            "jne 2f\n\t"
            "leaq (%[p],%[s],8), %[q]\n\t"
            "cmpq %[h], (%[q])\n\t"
            "jne 2f\n\t"
            "cmpq %[h], (%[q],%[s],1)\n\t"
            "jne 2f\n\t"
            "cmpq %[h], (%[q],%[s],2)\n\t"
            "jne 2f\n\t"
            "cmpq %[h], (%[q],%[s3],1)\n\t"
            "jne 2f\n\t"
            "cmpq %[h], (%[q],%[s],4)\n\t"
            "jne 2f\n\t"
            "cmpq %[h], (%[q],%[s5],1)\n\t"
            "jne 2f\n\t"
            "cmpq %[h], (%[q],%[s3],2)\n\t"
            "jne 2f\n\t"
            "cmpq %[h], (%[q],%[s7],1)\n\t"
            "jne 2f\n\t"
            "cmpq %[h], (%[q],%[s],8)\n\t"
            "jne 2f\n\t"
            "leaq (%[q],%[s],8), %[p]\n\t"
            "addq $16, %[k]\n\t"
            "cmpq %[lim], %[p]\n\t"
            "jb 1b\n"
            "2:"
            : [p] "+r"(p), [k] "+r"(k), [q] "=&r"(q)
            : [h] "r"(h), [s] "r"(s), [s3] "r"(3 * s), [s5] "r"(5 * s), [s7] "r"(7 * s), [lim] "r"(lim)
            : "cc", "memory");
    *n = k;
#else
#define SGC_RUN_DIFF(k) (*(const uint64_t *)(p + (k)*s) ^ h)
    while (p < lim) {
        uint64_t diff = SGC_RUN_DIFF(1) | SGC_RUN_DIFF(2) | SGC_RUN_DIFF(3) | SGC_RUN_DIFF(4) | SGC_RUN_DIFF(5) |
                        SGC_RUN_DIFF(6) | SGC_RUN_DIFF(7) | SGC_RUN_DIFF(8) | SGC_RUN_DIFF(9) | SGC_RUN_DIFF(10) |
                        SGC_RUN_DIFF(11) | SGC_RUN_DIFF(12) | SGC_RUN_DIFF(13) | SGC_RUN_DIFF(14) | SGC_RUN_DIFF(15) |
                        SGC_RUN_DIFF(16);
#undef SGC_RUN_DIFF
        if (diff != 0)
            break;
        *n += 16;
        p += 16 * s;
    }
#endif
    return p;
}

/* Counts the nursery objects whose headers lie in [from, to), the allocated
 * part up to to.  Runs of identical headers are counted 16 at a time
 * (count_run16), then 8 at a time: if the object at p has header h and
 * size s, the next object starts at p + s.  Forwarded headers are all
 * different and end a run. */
uint64_t sgc__nursery_count(const char *from, const char *to) {
    uint64_t n = 0;
    const char *p = from;
    while (p < to) {
        uint64_t h = *(const uint64_t *)p;
        if (!(h & SGC_F_FORWARDED) && h != 0) {
            size_t s = SGC_HEADER_BYTES + ((size_t)(h >> 32) << 3);
            p = count_run16(p, s, h, to, &n);
            /* Then 8 at a time while the run lasts (the headers at p + s
             * .. p + 8s, the last one before to). */
#define SGC_RUN_DIFF(k) (*(const uint64_t *)(p + (k)*s) ^ h)
            while ((size_t)(to - p) > 8 * s) {
                uint64_t diff = SGC_RUN_DIFF(1) | SGC_RUN_DIFF(2) | SGC_RUN_DIFF(3) | SGC_RUN_DIFF(4) |
                                SGC_RUN_DIFF(5) | SGC_RUN_DIFF(6) | SGC_RUN_DIFF(7) | SGC_RUN_DIFF(8);
                if (diff != 0)
                    break;
                n += 8;
                p += 8 * s;
            }
#undef SGC_RUN_DIFF
        }
        /* p is an object whose successors are not known to share its
         * header: step over it alone. */
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
    return n;
}

/* The resident set size for the profile's GC events; 0 under the virtual
 * clock, whose runs must repeat every count: the kernel's count (under
 * valgrind, valgrind's) moves with the page cache (docs/RUNTIME.md). */
static uint64_t rss_bytes(void) {
    char buf[128];
    if (statm_fd < 0 || sgc__settings.virtual_clock_ns)
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

/* SGC_POISON: before a half of the nursery is used again, the space its
 * last collection evacuated must still be poison: a byte that is not was
 * written through a pointer kept across that collection. */
static void check_poison_intact(int half) {
    const unsigned char *p = (const unsigned char *)nursery_base[half];
    for (size_t i = 0; i < poisoned[half]; i++)
        if (p[i] != SGC_POISON_BYTE)
            sgc__misuse("a freed object was written after it died: byte %zu of the nursery space the previous minor "
                        "collection evacuated is %#04x, not the poison %#04x (SGC_POISON); a pointer kept across a "
                        "collection",
                        i, p[i], SGC_POISON_BYTE);
}

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
    if (sgc__shut_down)
        sgc__misuse("a collection after sgc_shutdown: the runtime has ended (its profile and stats record are "
                    "written); collect before it ends");
    if (!sgc__mutator)
        sgc__misuse("a collection from a thread that is not the one that started the runtime (the runtime is "
                    "single-threaded)");
    check_frames();
    /* Until the collection ends every allocation takes the slow path, which
     * refuses one made inside it (by a hook). */
    sgc_nursery.limit = sgc_nursery.free;
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
    SGC_ASSERT(sgc__nursery_counted >= from && sgc__nursery_counted <= used_end,
               "the objects counted already lie in [start, free) (sgc_internal.h)");
    sgc__stats.nursery_objects += sgc__nursery_count(sgc__nursery_counted, used_end);
    if (sgc__settings.poison) {
        memset(from, SGC_POISON_BYTE, (size_t)(used_end - from));
        poisoned[nursery_half] = (size_t)(used_end - from);
        check_poison_intact(1 - nursery_half);
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
    sgc__mutator_sp = __builtin_frame_address(0);
    collect(0);
    sgc__alloc_reset_limit();
    sgc__mutator_sp = NULL;
}

void sgc_collect_major(void) {
    sgc__mutator_sp = __builtin_frame_address(0);
    collect(1);
    sgc__alloc_reset_limit();
    sgc__mutator_sp = NULL;
}

/* ---- Major collection ----------------------------------------------------- */

static inline void major_visit(sgc_obj *slot) {
    sgc_obj p = *slot;
    if (p == NULL)
        return;
    uint64_t h = SGC_HDR(p);
    if (h & SGC_F_MARKED)
        return;
    if (GC_OBJECT_CHECK(!SGC_TID_OK(h)))
        not_an_object(p, h); /* marking it would write into foreign memory */
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
    if (out == NULL)
        sgc__misuse("sgc_get_stats: out is NULL");
    if (!sgc__initialized)
        sgc_init();
    sgc__sample_sync();
    *out = sgc__stats;
    out->nursery_bytes += (uint64_t)(sgc_nursery.free - sgc_nursery.start);
    out->nursery_objects += sgc__nursery_count(sgc__nursery_counted, sgc_nursery.free);
    out->heap_bytes = heap_bytes();
    sgc__timer_stats(out);
}

/* The stats record (SGC_STATS): the values its keys are computed from,
 * handed to its writer (sgc_statswrite.h) through the atomic replace; 0, or
 * -1 with why filled. */
static int write_stats(char *why, size_t whylen) {
    sgc_statsw_in in;
    sgc_get_stats(&in.s);
    in.run_ns = sgc__now_ns() - start_ns;
    in.st = &sgc__settings;
    in.time_sampler_cpu = sgc__timer_thread_cpu();
    in.hugepages_in_effect = sgc__hugepages_in_effect;
    return sgc__output_replace(SGC_OUT_STATS, sgc__statsw_fill, &in, why, whylen);
}

void sgc_shutdown(void) {
    if (!sgc__initialized || sgc__shut_down)
        return;
    sgc__shut_down = 1;
    int alt_failed = sgc__alt_shutdown() != 0;
    sgc__timer_shutdown();
    sgc__sample_shutdown();
    sgc__profile_shutdown();
    sgc__settings_exit_warnings();
    char why[256];
    if (sgc__settings.stats_path != NULL && write_stats(why, sizeof why) != 0) {
        fprintf(stderr, "freecheck: cannot write the stats record to %s (SGC_STATS): %s\n", sgc__settings.stats_path,
                why);
        /* A run without its record is a failed run: say so in the exit status. */
        fflush(NULL);
        _exit(1);
    }
    /* From now on every allocation reaches the slow path, which refuses it. */
    sgc_nursery.limit = sgc_nursery.free;
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
