/* sgc_internal.h - what the runtime's modules share with each other, and
 * nothing the workloads should use.
 *
 * Module map and who calls whom:
 *   sgc_settings.c  parses SGC_* once (sgc__settings).
 *   sgc_gc.c        heap, types, roots, minor/major collection, large objects,
 *                   barrier, verifier, stats record.  Calls the sampler hooks
 *                   below at the documented points.
 *   sgc_alloc.c     sgc_alloc_slow: the one allocation slow path.  It owns the
 *                   nursery limit: limit = min(end, next sample point) while
 *                   allocation sampling is on; = free in stress mode.
 *   sgc_sample.c    allocation sampler (the rule of docs/DESIGN.md), survival.
 *   sgc_profile.c   the profile writer (calling-context tree, records).
 *   sgc_timer.c     the time sampler (signal handler, buffer, drain).
 *   sgc_output.c    the output files: start-up checks, opening and replacing
 *                   SGC_PROFILE, SGC_STATS, SGC_ALT_OUT (sgc_output.h).
 *
 * Invariant: sgc__phase always says what the mutator thread is doing, so an
 * interrupting time sample can attribute itself.
 */
#ifndef SGC_INTERNAL_H
#define SGC_INTERNAL_H

#include <signal.h>
#include <stdint.h>
#include <stddef.h>
#include "sgc.h"
#include "../contracts/sgc_settings_table.h"

/* ---- Checked invariants ------------------------------------------------- */

/* SGC_ASSERT(cond, reason): with -DSGC_CHECKS=1 (make test and the
 * sanitizer builds; the Makefile's "Checked invariants" switch), a false
 * cond prints "freecheck: FILE:LINE: invariant failed: COND (REASON)" to
 * stderr and aborts.  Without it (the measured build) nothing is compiled
 * but a type check of cond: no code, no string.  Only at invariants the
 * headers state, never on the allocation fast path (sgc.h), and never with
 * a cond that has an effect.  docs/RUNTIME.md, "Checked invariants". */
#ifndef SGC_CHECKS
#define SGC_CHECKS 0
#endif
#if SGC_CHECKS
__attribute__((noreturn, cold)) void sgc__assert_fail(const char *file, int line, const char *cond, const char *reason);
#define SGC_ASSERT(cond, reason) \
    (__builtin_expect(!!(cond), 1) ? (void)0 : sgc__assert_fail(__FILE__, __LINE__, #cond, reason))
#else
#define SGC_ASSERT(cond, reason) ((void)sizeof(!(cond)))
#endif

/* ---- Settings (sgc_settings.c) ------------------------------------------ */

/* One field per row of SGC_SETTINGS (contracts/sgc_settings_table.h: the
 * setting, its kind, limits and default), then what the runtime derives. */
#define SGC__SETTING_FIELD(id, name, kind, ctype, field, ...) ctype field;
typedef struct sgc_settings {
    SGC_SETTINGS(SGC__SETTING_FIELD)
    uint64_t alt_fills;       /* SGC_ALT_SEGMENT as minor collections per segment; 0 if in ms (alt_cpu_ns) */
    double spin_iters_per_ns; /* cpu spin: loop iterations per ns of CPU time, calibrated at load */
    int time_mode_given;      /* SGC_TIME_MODE was set (for the warning at exit if nothing used it) */
} sgc_settings;

extern sgc_settings sgc__settings;

/* Every SGC_* name the runtime reads (SGC_SETTINGS's, in its order),
 * NULL-terminated (sgc_settings.c). */
extern const char *const sgc__setting_names[];
/* The name in sgc__setting_names closest (edit distance) to the len
 * characters at name (case ignored). */
const char *sgc__setting_closest(const char *name, size_t len);
/* Parses the environment into sgc__settings.  A variable whose name begins
 * with SGC_ in any case and is not in sgc__setting_names, a setting given
 * twice, a bad value, or a setting without effect in its combination
 * prints "freecheck: SGC_X=...: <why>" to stderr and exits with status 2
 * (docs/RUNTIME.md lists which combinations only warn). */
void sgc__settings_load(void);
/* At exit, after the samplers stopped: warns (stderr, "freecheck: SGC_X=v:
 * warning: ...") of settings that only sampling the program starts itself
 * could have used and that nothing used (docs/RUNTIME.md, "Settings
 * without effect"). */
void sgc__settings_exit_warnings(void);
/* Parses a byte size with an optional K/M/G suffix (powers of 1024).
 * Returns 0 and sets *out, or -1 if the text is not a size. */
int sgc__parse_size(const char *text, uint64_t *out);

/* ---- State shared across modules ---------------------------------------- */

enum sgc_phase { SGC_PHASE_MUTATOR = 0, SGC_PHASE_MINOR = 1, SGC_PHASE_MAJOR = 2 };
extern volatile sig_atomic_t sgc__phase;

/* The nursery is zeroed lazily, in chunks ahead of the allocation limit
 * (sgc_alloc.c): [free, sgc__nursery_zeroed) is zero and the limit never
 * passes sgc__nursery_zeroed, so the fast path only hands out zeroed memory
 * while a collection zeroes nothing.  The objects in [start,
 * sgc__nursery_counted) are already counted in sgc__stats.nursery_objects:
 * the slow path counts a chunk's objects when it zeroes the next chunk,
 * while they are still in the cache. */
extern char *sgc__nursery_zeroed;
extern char *sgc__nursery_counted;
#define SGC_ZERO_CHUNK ((size_t)16 << 10)
/* Counts the nursery objects in [from, to) (forwarded ones too). */
uint64_t sgc__nursery_count(const char *from, const char *to);
extern sgc_stats sgc__stats;
extern int sgc__initialized;
/* sgc_shutdown has run: allocating or collecting is a misuse from then on
 * (the limit stays at free, so every allocation reaches the slow path). */
extern int sgc__shut_down;
/* 1 on the thread that started the runtime (the mutator), 0 on any other. */
extern __thread int sgc__mutator;

/* While the program is inside the runtime (the allocation slow path,
 * sgc_collect_minor/major): the frame address of that entry, below which no
 * live frame of the program lies; NULL outside.  Set by the entry points
 * (which keep a frame pointer for it). */
extern char *sgc__mutator_sp;
/* Aborts with a message if f lies on the stack below sgc__mutator_sp: the
 * frame of a function that has returned (pushed and never popped, or left
 * behind by a longjmp).  Nothing outside an entry (sgc__mutator_sp NULL). */
void sgc__frame_check_live(const sgc_frame *f);

/* A misuse of the API (sgc.h) that would corrupt the heap: prints
 * "freecheck: <message>" and aborts. */
__attribute__((noreturn, cold, format(printf, 1, 2))) void sgc__misuse(const char *fmt, ...);

/* The clock of every time the runtime records (the stats record's times,
 * the profile's timestamps, the GC pauses, the segment series' wall_ns):
 * CLOCK_MONOTONIC in ns, or with SGC_VIRTUAL_CLOCK=N a virtual clock whose
 * k-th reading in the process (k = 1, 2, ...) is k * N, so that a program
 * that makes the same readings records the same times (docs/RUNTIME.md,
 * "The virtual clock").  Before the settings are loaded it is the real
 * clock.  Async-signal-safe and thread-safe (clock_gettime, or one atomic
 * add).  What the runtime times rather than records (the time sampler's
 * timers and its sampling time, the validation spin, alternation's CPU
 * time) reads the real clocks directly. */
uint64_t sgc__now_ns(void);
/* Stores sgc__now_ns() at *at and returns ret: the allocation slow path's
 * last step, a tail call. */
void *sgc__now_into(uint64_t *at, void *ret);
/* The time to record for a moment read on CLOCK_MONOTONIC as real_ns:
 * real_ns itself, or with the virtual clock the next virtual reading. */
uint64_t sgc__record_ns(uint64_t real_ns);

/* Validation (SGC_SAMPLE_SPIN_NS, docs/RUNTIME.md): a known extra cost that
 * every allocation sample and every time sample pays, so that the analysis
 * can be checked against it.  With SGC_SAMPLE_SPIN_CLOCK=wall, busy-waits
 * until ns nanoseconds of CLOCK_MONOTONIC have passed (never returns
 * early); with cpu, busy-works until ns of the thread's CPU time have
 * passed by its own clock, within half a clock reading (a calibrated loop
 * between readings; preemption does not shorten or lengthen it, and a
 * machine whose speed per instruction moves does not change it).
 * Async-signal-safe (clock_gettime, which POSIX lists as such, and local
 * variables): the time sampler's handler calls it.  Nothing for 0. */
void sgc__spin_ns(uint64_t ns);
/* Runs the cpu spin's loop n times (the unit whose rate sgc__spin_ns times
 * at start-up and then follows). */
uint64_t sgc__spin_loop(uint64_t n);

/* ---- The collector's services (sgc_gc.c) --------------------------------- */

/* Runs a minor collection, in this order: copy the live young objects;
 * call sgc__sample_minor_end() (forwarding information valid, and
 * sgc_nursery.free still where the mutator left it); free the dead young
 * large objects; reset the nursery (zeroed, free == start); call
 * sgc__alloc_reset_limit(); maybe run a major collection; call
 * sgc__timer_drain(). */
void sgc__minor_collect(void);
/* Allocates a zeroed large object outside the nursery (young until the next
 * minor collection).  Accounts it in the stats. */
sgc_obj sgc__large_alloc(uint32_t tid, size_t payload, size_t footprint);
/* While sgc__sample_minor_end runs (forwarding information still valid):
 * did this object, young at the start of the collection, survive?  If so,
 * *moved_to (if not NULL) is its address now. */
int sgc__young_survived(sgc_obj young, sgc_obj *moved_to);
/* Is obj a young large object (allocated since the last minor collection)? */
int sgc__is_young_large(sgc_obj obj);

/* ---- Hooks the collector calls (sgc_sample.c, sgc_profile.c, sgc_timer.c) */

void sgc__sample_init(void);      /* at sgc_init, after settings: start from SGC_ALLOC_* */
void sgc__sample_minor_end(void); /* inside a minor collection, after copying */
void sgc__sample_shutdown(void);  /* at exit: pending survivals become unknown */
/* Brings the sampler's counters in sgc__stats (sampled_bytes) up to date with
 * what the fast path allocated since the slow path last ran.  sgc_get_stats
 * and the stats record call it first. */
void sgc__sample_sync(void);
/* A collection finished: kind is SGC_PHASE_MINOR or SGC_PHASE_MAJOR. */
void sgc__profile_gc_event(int kind, uint64_t start_ns, uint64_t duration_ns, uint64_t heap_bytes, uint64_t rss_bytes);
void sgc__profile_init(void);     /* at sgc_init: open SGC_PROFILE */
void sgc__profile_shutdown(void); /* at exit: flush and close */
int sgc__profile_failed(void);    /* did a write or the close of SGC_PROFILE fail (message printed)? */
void sgc__timer_init(void);       /* at sgc_init: start from SGC_TIME_* */
void sgc__timer_shutdown(void);   /* at exit: stop, drain */
/* Called from the slow path and at collection boundaries: moves records the
 * signal handler buffered into the profile.  Cheap when there is nothing. */
void sgc__timer_drain(void);

/* ---- In-process alternation (sgc_alt.c) ---------------------------------- */

void sgc__alt_init(void);       /* at sgc_init, after the samplers: the lead-in segment starts */
void sgc__alt_minor_end(void);  /* at the very end of every minor collection: maybe a boundary */
void sgc__alt_major(int begin); /* at the start (1) and end (0) of a major collection: its thread CPU time */
/* At exit, before the samplers stop: records the last segment and writes
 * SGC_ALT_OUT.  Returns 0, or -1 after printing why the file was not written. */
int sgc__alt_shutdown(void);

/* ---- The slow path's helpers (sgc_alloc.c) ------------------------------ */

/* Recomputes sgc_nursery.limit from the nursery end, the sampler's next
 * sample point and the stress mode.  Called after anything that moves them. */
void sgc__alloc_reset_limit(void);

#endif /* SGC_INTERNAL_H */
