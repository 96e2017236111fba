/* sgc.h - public interface of the freecheck runtime (libsgc): a generational,
 * precise, garbage-collected heap with an allocation sampler folded into the
 * nursery limit and a timer-signal time sampler.
 *
 * Invariants (every module relies on these):
 *
 *  - Objects.  An object is an 8-byte header followed by its payload.  An
 *    sgc_obj points at the payload; the header is the word just before it.
 *    Header word layout: bits 0..7 GC flags, bits 8..31 type id, bits 32..63
 *    payload size in 8-byte words.  A forwarded nursery object (during and
 *    right after a minor collection) has SGC_F_FORWARDED set and the rest of
 *    the word is its new address.  The footprint of an allocation is
 *    SGC_FOOTPRINT(payload) = 8 + payload rounded up to 8: the same for
 *    nursery and large objects, and the size the sampling rule counts.
 *
 *  - Types.  A type is registered once with a name (shown in profiles), the
 *    size of its fixed part, a bitmap of which words of the fixed part hold
 *    object pointers, and what follows the fixed part (nothing, pointers,
 *    bytes, doubles, raw words).  Every pointer field holds NULL or a live
 *    sgc_obj.  New objects are zero-filled.
 *
 *  - Nursery.  Young objects are bump-allocated in [start, end).  The fast
 *    path allocates while free + footprint <= limit, with start <= free <=
 *    limit <= end.  The memory in [free, limit) is zero (the slow path
 *    zeroes the nursery in chunks ahead of the limit).  The slow path
 *    (sgc_alloc_slow) may lower limit below end at any time; that is how the
 *    allocation sampler and the GC stress mode get control without a single
 *    extra instruction on the fast path.
 *
 *  - Roots.  A shadow stack of sgc_frame records, linked from sgc_top through
 *    parent.  Each frame names its function (an sgc_func, identified by its
 *    address) and holds the addresses of the local variables that are its GC
 *    roots.  sgc_top always points at a fully initialised frame (or is NULL):
 *    push initialises the frame before publishing it, pop unpublishes it
 *    and then counts the pop (sgc__frame_pops) before its memory can be
 *    reused, so a signal handler may walk the stack at any instruction and
 *    a sampler thread may copy it from another CPU (both orders hold for
 *    the compiler and the processor).  The same frames are the call stack that both profilers
 *    record.
 *
 *  - Write barrier.  After storing a pointer into an object, call
 *    sgc_write_barrier(obj) (or use SGC_SET).  Old objects not yet in the
 *    remembered set carry SGC_F_TRACK_YOUNG; the barrier records them.
 *
 *  - The runtime is single-threaded: one mutator thread, which is also the
 *    thread that receives the time sampler's signal.
 *
 *  - Misuse is refused, not absorbed.  A call that would corrupt the heap
 *    prints "freecheck: <what is wrong>" and aborts (or returns its error
 *    where it has one), never on the allocation fast path: a malformed or
 *    re-registered type, an unregistered type id (at the slow path, or when
 *    the collector meets the object), a reference to what is not an object
 *    (when the collector follows it), an allocation or collection after
 *    sgc_shutdown, from another thread or inside a collection, a bad global
 *    root, a frame stack that holds a returned function's frame or loops, a
 *    size that overflows, and with SGC_POISON writes to freed objects
 *    (docs/RUNTIME.md, "API misuse").
 */
#ifndef SGC_H
#define SGC_H

#include <stddef.h>
#include <stdint.h>
#include "sgc_modes.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef void *sgc_obj;

/* ---- Object header ------------------------------------------------------ */

#define SGC_HEADER_BYTES 8u
/* Footprint in bytes of an object with a payload of n bytes. */
#define SGC_FOOTPRINT(n) (SGC_HEADER_BYTES + (((size_t)(n) + 7u) & ~(size_t)7u))
/* Objects whose footprint is at least this many bytes are large objects:
 * allocated outside the nursery (so is any object that cannot fit in an
 * empty nursery).  The fast path never sees them. */
#define SGC_LARGE_MIN ((size_t)8192)

#define SGC_F_FORWARDED 0x01u   /* nursery object copied; rest of word = new address */
#define SGC_F_TRACK_YOUNG 0x02u /* old object not in the remembered set: barrier must record it */
/* bits 0x04..0x80 are the collector's own (see sgc_gc.h). */

#define SGC_HDR(obj) (((uint64_t *)(obj))[-1])
#define SGC_HDR_MAKE(tid, footprint) (((uint64_t)(((footprint)-SGC_HEADER_BYTES) >> 3) << 32) | ((uint64_t)(tid) << 8))
#define SGC_TYPE_OF(obj) ((uint32_t)((SGC_HDR(obj) >> 8) & 0xffffffu))
#define SGC_PAYLOAD_BYTES(obj) ((size_t)(SGC_HDR(obj) >> 32) << 3)

/* ---- Types -------------------------------------------------------------- */

typedef enum sgc_var_kind {
    SGC_VAR_NONE = 0, /* fixed-size object */
    SGC_VAR_PTRS,     /* the fixed part is followed by an array of sgc_obj */
    SGC_VAR_BYTES,    /* ... by bytes (no pointers) */
    SGC_VAR_DOUBLES,  /* ... by doubles (no pointers) */
    SGC_VAR_WORDS     /* ... by raw 64-bit words (no pointers) */
} sgc_var_kind;

typedef struct sgc_type {
    const char *name;    /* shown in profiles; must outlive the runtime */
    uint32_t fixed_size; /* bytes of the fixed part (<= 512) */
    uint64_t ptr_map;    /* bit i set: word i of the fixed part is an sgc_obj */
    sgc_var_kind var;    /* what follows the fixed part, up to the payload end */
} sgc_type;

#define SGC_MAX_TYPES 4096
/* Registers a type and returns its id (>= 1).  Registering the same name
 * with the same layout again returns the first id; with another layout, a
 * malformed layout (pointer words past the fixed part, ...) or too many
 * types: message and abort. */
uint32_t sgc_type_register(const sgc_type *type);
const char *sgc_type_name(uint32_t tid);

/* ---- Functions and frames ----------------------------------------------- */

typedef struct sgc_func {
    const char *name; /* shown in profiles; must outlive the runtime */
    uint32_t id;      /* the profiler's string id; 0 until it interns the name */
} sgc_func;

typedef struct sgc_frame {
    struct sgc_frame *parent; /* caller's frame, NULL at the bottom */
    sgc_func *func;           /* the function this frame belongs to */
    void **roots;             /* addresses of sgc_obj locals; NULL entries skipped */
    uint32_t nroots;          /* entries in roots */
    uint32_t cct;             /* profiler's calling-context node for this frame, 0 = none yet */
} sgc_frame;

extern sgc_frame *sgc_top; /* innermost frame, NULL when none */
/* Frames popped since start-up.  A sampler thread (SGC_TIME_MODE=thread)
 * reads the stack while this thread runs; a pop in the middle of its copy
 * voids the copy (sgc_timer.h).  Only this thread writes it. */
extern uint64_t sgc__frame_pops;

/* Push and pop are the writer's half of the sampler's consistent read
 * (docs/PROFILE.md, "Why no frame that is not live is followed"; the
 * reader is thread_copy in sgc_timer.c).  Each ordering below is a C11
 * atomic or fence, so it binds the compiler (the signal handler reads the
 * stack at any instruction of this thread) and the processor (the sampler
 * thread reads it from another CPU) on any architecture.  On x86-64 every
 * one of them is a plain mov: no fence instruction, no locked operation.
 * tests/sampler/frame_order_check.sh checks the emitted order of the pop. */
static inline void sgc_frame_push(sgc_frame *f) {
    f->parent = sgc_top; /* a plain read: only this thread writes sgc_top */
    f->cct = 0;
    /* Published with a release store: the frame's fields (these two and
     * those SGC_FRAME_FN set) are stored before a reader can see it. */
    __atomic_store_n(&sgc_top, f, __ATOMIC_RELEASE);
    __atomic_signal_fence(__ATOMIC_SEQ_CST); /* the body runs in the published frame */
}

/* Checked builds (-DSGC_CHECKS=1, the Makefile's switch; sgc_internal.h's
 * SGC_ASSERT): a pop must pop the innermost frame.  Nothing otherwise. */
#if defined(SGC_CHECKS) && SGC_CHECKS
__attribute__((noreturn, cold)) void sgc__frame_pop_misordered(const char *file, int line);
#define SGC__POP_CHECK(f) \
    (__builtin_expect(sgc_top == (f), 1) ? (void)0 : sgc__frame_pop_misordered(__FILE__, __LINE__))
#else
#define SGC__POP_CHECK(f) ((void)0)
#endif

static inline void sgc_frame_pop(sgc_frame *f) {
    SGC__POP_CHECK(f);
    /* 1. Unpublish.  A release store: the body's accesses stay before it,
     * and a reader that loads this value of sgc_top also sees the fields
     * the parent's push stored. */
    __atomic_store_n(&sgc_top, f->parent, __ATOMIC_RELEASE);
    /* 2. Count, after the unpublish: a release store, so neither the
     * compiler nor the processor lets a reader see the new count with the
     * old sgc_top.  Only this thread writes the count, so a plain read and
     * an atomic store do (no locked read-modify-write; GCC emits a load, an
     * add and a store, Clang one add to memory). */
    __atomic_store_n(&sgc__frame_pops, sgc__frame_pops + 1, __ATOMIC_RELEASE);
    /* 3. Counted before the frame's memory can be reused: every later store
     * of this thread (a new frame at this address or over part of it, a
     * local, a free) comes after the count for any reader that sees it.
     * ThreadSanitizer does not model fences (and the sampler's copy is
     * outside its view), so there only the compiler is held. */
#if defined(__SANITIZE_THREAD__)
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
#else
    __atomic_thread_fence(__ATOMIC_RELEASE);
#endif
}

static inline void sgc__frame_cleanup(sgc_frame *f) { sgc_frame_pop(f); }

/* SGC_FRAME(&a, &b, ...): open a frame for the enclosing function (named by
 * __func__) whose roots are the sgc_obj-typed locals a, b, ...  The frame
 * is popped automatically when the enclosing block is left (return, break,
 * end of block).  At most one per block.  SGC_FRAME() opens a frame with no
 * roots (still recorded in profiles). */
#define SGC_FRAME(...)                        \
    static sgc_func sgc__fn_ = {__func__, 0}; \
    SGC_FRAME_FN(&sgc__fn_, __VA_ARGS__)

/* SGC_FRAME_FN(fn, &a, ...): the same with an explicit sgc_func (for
 * interpreters whose guest functions have names known only at run time). */
#define SGC_FRAME_FN(fn, ...)                                           \
    void *sgc__slots_[] = {NULL, __VA_ARGS__};                          \
    sgc_frame sgc__fr_ __attribute__((cleanup(sgc__frame_cleanup)));    \
    sgc__fr_.func = (fn);                                               \
    sgc__fr_.roots = sgc__slots_;                                       \
    sgc__fr_.nroots = (uint32_t)(sizeof(sgc__slots_) / sizeof(void *)); \
    sgc_frame_push(&sgc__fr_)

/* At most this many global roots (a program that registers more registers
 * in a loop by mistake). */
#define SGC_MAX_GLOBAL_ROOTS (1 << 20)
/* Registers the address of a global sgc_obj variable as a root, once.
 * NULL, an unaligned slot, one registered already, one on the stack (a
 * local: use SGC_FRAME), one inside the heap (a field), or more than
 * SGC_MAX_GLOBAL_ROOTS: message and abort. */
void sgc_global_root(void *slot);

/* ---- Allocation ------------------------------------------------------------ */

typedef struct sgc_nursery_state {
    char *free;  /* next free byte */
    char *limit; /* fast path allocates while free + size <= limit */
    char *start; /* first byte of the nursery */
    char *end;   /* one past the last byte */
} sgc_nursery_state;

extern sgc_nursery_state sgc_nursery;

/* Everything the fast path does not do: large objects, a full nursery, a due
 * sample, stress mode, initialisation.  Never returns NULL (out of memory is
 * a message and abort). */
__attribute__((noinline)) sgc_obj sgc_alloc_slow(uint32_t tid, size_t payload);

/* Allocates a zero-filled object of type tid with a payload of payload bytes.
 * The fast path: one compare, a bump, a header store.  May collect. */
static inline sgc_obj sgc_alloc(uint32_t tid, size_t payload) {
    size_t size = SGC_FOOTPRINT(payload);
    char *p = sgc_nursery.free;
    /* The size test is on the payload, not the footprint: a payload near
     * SIZE_MAX wraps SGC_FOOTPRINT to a small number, and must still go to
     * the slow path (which refuses it).  payload <= SGC_LARGE_MIN - 16 is
     * exactly footprint < SGC_LARGE_MIN. */
    if (__builtin_expect(payload <= SGC_LARGE_MIN - 16 && size <= (size_t)(sgc_nursery.limit - p), 1)) {
        sgc_nursery.free = p + size;
        *(uint64_t *)p = SGC_HDR_MAKE(tid, size);
        return p + SGC_HEADER_BYTES;
    }
    return sgc_alloc_slow(tid, payload);
}

#define SGC_NEW(tid, ctype) ((ctype *)sgc_alloc((tid), sizeof(ctype)))

/* A size that overflows (a wrong or negative count): message and abort. */
__attribute__((noinline, noreturn, cold)) void sgc__new_var_overflow(size_t fixed, size_t n, size_t elem);

static inline sgc_obj sgc__new_var(uint32_t tid, size_t fixed, size_t n, size_t elem) {
    size_t bytes, payload;
    if (__builtin_expect(__builtin_mul_overflow(n, elem, &bytes) || __builtin_add_overflow(bytes, fixed, &payload), 0))
        sgc__new_var_overflow(fixed, n, elem);
    return sgc_alloc(tid, payload);
}

/* An object with a fixed part of fixed bytes followed by n elements of elem
 * bytes.  A size that overflows (a negative n, say) is refused, not
 * wrapped to a small object. */
#define SGC_NEW_VAR(tid, fixed, n, elem) sgc__new_var((tid), (size_t)(fixed), (size_t)(n), (size_t)(elem))

/* ---- Write barrier ------------------------------------------------------- */

__attribute__((noinline)) void sgc_write_barrier_slow(sgc_obj obj);

static inline void sgc_write_barrier(sgc_obj obj) {
    if (__builtin_expect((SGC_HDR(obj) & SGC_F_TRACK_YOUNG) != 0, 0))
        sgc_write_barrier_slow(obj);
}

/* obj->field = val, then the barrier. */
#define SGC_SET(obj, field, val) \
    do {                         \
        (obj)->field = (val);    \
        sgc_write_barrier(obj);  \
    } while (0)

/* ---- Life cycle and collections ---------------------------------------- */

/* Reads the SGC_* settings (exit status 2 with a message naming the variable
 * on a bad value), sets up the heap and the samplers they ask for, and
 * arranges for sgc_shutdown at exit.  Idempotent; the first allocation calls
 * it too.  After sgc_shutdown: message and abort (no restart). */
void sgc_init(void);
/* Stops the samplers, completes the profile, writes the stats record.  Runs
 * at exit; idempotent.  Allocating or collecting afterwards is refused
 * (message and abort); sgc_sampling_start returns -1. */
void sgc_shutdown(void);

void sgc_collect_minor(void);
void sgc_collect_major(void); /* a minor collection, then a full mark-sweep */

/* Checks every reference in the heap and the roots; aborts with a message
 * naming the broken reference. */
void sgc_verify_heap(void);

/* ---- Allocation sampling ----------------------------------------------- */

/* sgc_sample_mode (SGC_SAMPLE_FIXED, SGC_SAMPLE_POISSON, ...) and sgc_clock
 * (SGC_CLOCK_WALL, SGC_CLOCK_CPU, ...) are the tables of sgc_modes.h. */

/* (Re)starts allocation sampling: fixed mode samples every period-th byte,
 * poisson mode draws exponential gaps of mean period from seed.  Resets the
 * byte count.  period 0 stops.  Returns 0, or -1 for a bad argument (an
 * unknown mode, a period above 2^48) or after sgc_shutdown. */
int sgc_sampling_start(uint64_t period, sgc_sample_mode mode, uint64_t seed);
void sgc_sampling_stop(void);

/* ---- Time sampling ------------------------------------------------------- */

/* How a time sample is taken: a timer signal interrupts this thread and its
 * handler records the stack (signal), or a sampler thread woken on its own
 * timer reads the shadow stack without interrupting this one (thread; wall
 * clock only).  docs/PROFILE.md compares the two. */
/* (sgc_time_mode: SGC_TIME_SIGNAL, SGC_TIME_THREAD, ... in sgc_modes.h.) */

/* (Re)starts time sampling at hz in the mode SGC_TIME_MODE selects.  0, or
 * -1 with errno set (EINVAL for a rate above 100000, an unknown clock, or
 * the thread mode with the CPU clock). */
int sgc_time_sampling_start(unsigned hz, sgc_clock clock);
int sgc_time_sampling_start_mode(unsigned hz, sgc_clock clock, sgc_time_mode mode);
void sgc_time_sampling_stop(void);

/* ---- Statistics ---------------------------------------------------------- */

/* Counters since start-up.  This struct only ever grows. */
typedef struct sgc_stats {
    uint64_t nursery_bytes;          /* footprint bytes allocated in the nursery */
    uint64_t nursery_objects;        /* objects allocated in the nursery */
    uint64_t large_bytes;            /* footprint bytes of large objects */
    uint64_t large_objects;          /* large objects allocated */
    uint64_t minor_collections;      /* minor collections run */
    uint64_t minor_ns;               /* time in minor collections */
    uint64_t major_collections;      /* major collections run */
    uint64_t major_ns;               /* time in major collections */
    uint64_t bytes_promoted;         /* nursery bytes copied to the old generation */
    uint64_t large_promoted;         /* young large objects that survived a minor collection */
    uint64_t heap_bytes;             /* old generation + large objects in use now (excl. nursery) */
    uint64_t peak_heap_bytes;        /* high-water mark of heap_bytes + nursery size */
    uint64_t alloc_samples;          /* allocation samples recorded (sampled objects) */
    uint64_t alloc_sample_points;    /* sample points hit (>= alloc_samples) */
    uint64_t sampled_bytes;          /* bytes allocated while allocation sampling was on */
    uint64_t time_samples;           /* time samples taken by the signal handler */
    uint64_t time_samples_dropped;   /* time samples lost to a full buffer */
    uint64_t time_samples_written;   /* time samples handed to the profile */
    uint64_t time_sampling_ns;       /* time during which time sampling was on */
    uint64_t time_samples_missed;    /* timer expirations the kernel merged while the thread was not running */
    uint64_t time_samples_throttled; /* wall-clock periods skipped so the program makes progress (sgc_timer.h) */
    uint64_t time_snapshot_retries;  /* thread mode: stack copies voided by a concurrent pop and retried */
    uint64_t time_snapshots_torn;    /* thread mode: periods with no consistent copy after every retry (not samples) */
    uint64_t stack_frames_interned;  /* frames the incremental stack walk interned: pushed since the previous walk */
} sgc_stats;

/* Fills *out (NULL: message and abort). */
void sgc_get_stats(sgc_stats *out);

#ifdef __cplusplus
}
#endif
#endif /* SGC_H */
