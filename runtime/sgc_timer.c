/* sgc_timer.c - the time sampler: timer signal, async-signal-safe stack
 * snapshots into a ring, drain into the profile (invariants: sgc_timer.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "sgc_internal.h"
#include "sgc_profile.h"
#include "sgc_timer.h"

#ifndef sigev_notify_thread_id
#define sigev_notify_thread_id _sigev_un._tid
#endif

#define RING_MASK (SGC_TIMER_RING_WORDS - 1)
/* Copies of the stack a sampler thread tries per period before it gives up
 * on that period (counted as torn). */
#define THREAD_ATTEMPTS 8

uint64_t sgc__frame_pops;
uint64_t sgc__timer_events;
uint64_t sgc__timer_events_seen;

static struct {
    uint64_t *ring;            /* SGC_TIMER_RING_WORDS words, mapped once */
    uint64_t head;             /* words published by the producer (monotonic; release/acquire) */
    uint64_t tail;             /* words consumed by the drain (monotonic; release/acquire) */
    volatile sig_atomic_t on;  /* the handler records only while set */
    int installed;             /* our sigaction is in place */
    int have_timer;            /* timer is a live POSIX timer */
    timer_t timer;             /* the POSIX timer */
    unsigned hz;               /* rate in force */
    int clock;                 /* sgc_clock in force */
    uint64_t started_ns;       /* when the current run started */
    uint64_t dropped_reported; /* dropped samples already in the profile */
    volatile uint64_t missed;  /* expirations merged into a later signal (si_overrun) */
    /* Pacing (wall clock only; see sgc_timer.h): the timer's expirations lie
     * on the grid grid0 + k * period_ns.  expirations counts the grid points
     * consumed since the start: samples + missed + throttled. */
    uint64_t grid0;              /* CLOCK_MONOTONIC ns of grid point 0 */
    uint64_t period_ns;          /* 1e9 / hz */
    uint64_t expirations;        /* grid points used up: taken, merged or skipped */
    volatile uint64_t throttled; /* grid points skipped to let the program run */
    int mode;                    /* sgc_time_mode in force */
    /* The sampler thread (mode SGC_TIME_THREAD).  Its counters are written by
     * it alone and read by the mutator with atomic loads. */
    pthread_t thread; /* the sampler thread, while have_thread */
    int have_thread;
    int stop;                 /* set (atomically) by sgc_time_sampling_stop; the thread waits on it (a futex) */
    int thread_cpu;           /* CPU the thread was moved to, -1 if it shares the mutator's */
    uint64_t th_taken;        /* samples published by the thread */
    uint64_t th_dropped;      /* snapshots that did not fit in the ring */
    uint64_t th_missed;       /* periods that passed while the thread was not running */
    uint64_t th_retries;      /* copies voided by a pop and tried again */
    uint64_t th_torn;         /* periods given up after THREAD_ATTEMPTS voided copies */
    uint64_t th_end;          /* CLOCK_MONOTONIC ns at which the thread stopped sampling */
    uint64_t missed_reported; /* missed expirations already in the profile */
    sgc_func **scratch;       /* drain's copy of a snapshot that wraps the ring */
    uint32_t scratch_cap;
    /* Validation spin in thread mode (SGC_SAMPLE_SPIN_NS): the thread owes the
     * program one spin per counted sample; the program pays them at its next
     * safe point (pay_spins). */
    uint64_t th_owed;    /* spins owed: added by the thread, taken by pay_spins */
    uint64_t spins_paid; /* spins the program has paid (written by pay_spins only) */
    /* The drain's interning of the live stack (intern_live). */
    int live_interned;       /* the last drain that handed snapshots over interned it */
    uint32_t intern_backoff; /* long drains to wait after an interning that did not pay */
    uint32_t intern_wait;    /* long drains still to wait */
    /* The last snapshot of SGC_TIMER_INTERN_FRAMES or more frames the drain
     * interned (snapshot_node): its base, functions and node. */
    sgc_func **last_funcs;
    uint32_t last_n, last_cap, last_base, last_node;
} tm;

/* ---- The handler ---------------------------------------------------------- */

static uint64_t mono_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Guarantees the program progress at any accepted rate (wall clock).  A
 * periodic timer whose signal costs more than its period (delivery on a busy
 * virtual machine can take tens of microseconds; 100 kHz leaves 10) is
 * pending again by the time the handler returns, and the program never runs
 * another instruction.  So, at the end of each sample: if the next grid point
 * is less than half a period away, the timer is moved forward, on its grid,
 * to at least twice this sample's whole cost (expiry to handler exit) from
 * now: the program then runs for about that cost before the next signal,
 * whatever delivery costs.  The grid points skipped are counted
 * (time_samples_throttled), so samples + missed + throttled still account
 * for every period of the sampling time.  Costs one clock read when nothing
 * needs doing; one timer_settime (async-signal-safe) when it does. */
static void pace(void) {
    uint64_t p = tm.period_ns;
    uint64_t x = mono_ns();
    uint64_t fired = tm.grid0 + tm.expirations * p; /* the expiry this signal reports */
    uint64_t next = fired + p;
    if (next >= x + p / 2)
        return;
    uint64_t cost = x > fired ? x - fired : 0;
    uint64_t gap = 2 * cost > p ? 2 * cost : p;
    uint64_t skip = (x + gap - next + p - 1) / p;
    tm.expirations += skip;
    tm.throttled += skip;
    uint64_t at = next + skip * p;
    struct itimerspec its;
    its.it_value.tv_sec = (time_t)(at / 1000000000u);
    its.it_value.tv_nsec = (long)(at % 1000000000u);
    its.it_interval.tv_sec = (time_t)(p / 1000000000u);
    its.it_interval.tv_nsec = (long)(p % 1000000000u);
    if (tm.have_timer)
        timer_settime(tm.timer, TIMER_ABSTIME, &its, NULL);
}

/* Stores one snapshot of the shadow stack into the ring (or counts it as
 * dropped).  The frames' functions go straight into the ring after the
 * 3-word header, through a pointer that stops where the ring wraps or its
 * room ends (whichever comes first): one load of the frame's node, one of
 * its function, one store and one load of its parent a frame, and a bound
 * check every four frames (about 8 instructions a frame); the rest of a
 * snapshot that wraps continues in record_wrapped.  The entry becomes
 * visible only when head moves. */
static void record_wrapped(uint64_t now, uint64_t head, uint64_t room, uint64_t n, sgc_frame *f);

static void record(void) {
    uint64_t now = sgc__now_ns(); /* recorded: the virtual clock's with SGC_VIRTUAL_CLOCK */
    uint64_t *ring = tm.ring;
    uint64_t head = tm.head;
    uint64_t room = SGC_TIMER_RING_WORDS - (head - __atomic_load_n(&tm.tail, __ATOMIC_ACQUIRE));
    SGC_ASSERT(room <= SGC_TIMER_RING_WORDS, "tail <= head <= tail + the ring's size: the ring never overfills");
    if (__builtin_expect(room < 3, 0)) {
        sgc__stats.time_samples_dropped++;
        return;
    }
    uint64_t first = (head + 3) & RING_MASK, lim = SGC_TIMER_RING_WORDS - first;
    if (lim > room - 3)
        lim = room - 3;
    uint64_t *const start = ring + first, *q = start, *const end = start + (lim & ~(uint64_t)3);
    sgc_frame *f = sgc_top;
    /* Four frames a step, one bound check for the four (end is a multiple
     * of four words from start; the last words are record_wrapped's).  A
     * frame: its pointer tested, its node compared with 0, its function
     * loaded and stored, its parent loaded. */
#define SGC_REC_FRAME(i)                                         \
    if (!f || __atomic_load_n(&f->cct, __ATOMIC_RELAXED) != 0) { \
        q += (i);                                                \
        goto copied;                                             \
    }                                                            \
    q[i] = (uint64_t)(uintptr_t)f->func;                         \
    f = f->parent
    for (;;) {
        if (__builtin_expect(q == end, 0)) {
            if (f && __atomic_load_n(&f->cct, __ATOMIC_RELAXED) == 0) {
                record_wrapped(now, head, room, (uint64_t)(q - start), f);
                return;
            }
            break;
        }
        SGC_REC_FRAME(0);
        SGC_REC_FRAME(1);
        SGC_REC_FRAME(2);
        SGC_REC_FRAME(3);
        q += 4;
    }
#undef SGC_REC_FRAME
copied:;
    uint64_t n = (uint64_t)(q - start);
    ring[head & RING_MASK] = now;
    ring[(head + 1) & RING_MASK] = (uint64_t)sgc__phase << 32 | n;
    ring[(head + 2) & RING_MASK] = f ? f->cct : 0;
    __atomic_store_n(&tm.head, head + 3 + n, __ATOMIC_RELEASE); /* words stored before they are published */
}

/* The rest of record's snapshot from frame f on, n functions stored: word
 * by word with the ring's mask, or dropped where the room ends. */
__attribute__((noinline)) static void record_wrapped(uint64_t now, uint64_t head, uint64_t room, uint64_t n,
                                                     sgc_frame *f) {
    uint64_t *ring = tm.ring;
    while (f && __atomic_load_n(&f->cct, __ATOMIC_RELAXED) == 0) {
        if (3 + n + 1 > room) {
            sgc__stats.time_samples_dropped++;
            return;
        }
        ring[(head + 3 + n) & RING_MASK] = (uint64_t)(uintptr_t)f->func;
        n++;
        f = f->parent;
    }
    ring[head & RING_MASK] = now;
    ring[(head + 1) & RING_MASK] = (uint64_t)sgc__phase << 32 | n;
    ring[(head + 2) & RING_MASK] = f ? f->cct : 0;
    __atomic_store_n(&tm.head, head + 3 + n, __ATOMIC_RELEASE);
}

void sgc__timer_handler(int sig, siginfo_t *info, void *uctx) {
    (void)sig;
    (void)uctx;
    if (!tm.on)
        return;
    int saved_errno = errno;
    sgc__stats.time_samples++;
    /* Expirations while the thread could not take the signal (it was not
     * running: the machine is busy) are merged into this one by the kernel.
     * They are not samples, but the profile says how many there were. */
    uint64_t overrun = info && info->si_code == SI_TIMER && info->si_overrun > 0 ? (uint64_t)info->si_overrun : 0;
    tm.missed += overrun;
    tm.expirations += 1 + overrun;
    /* Validation only (docs/RUNTIME.md): a known cost on top of the real
     * one, paid by every counted sample, dropped ones included. */
    if (__builtin_expect(sgc__settings.sample_spin_ns != 0, 0))
        sgc__spin_ns(sgc__settings.sample_spin_ns);
    record();
    if (tm.clock == SGC_CLOCK_WALL && info && info->si_code == SI_TIMER)
        pace();
    /* Work for the drain (a snapshot, a drop or merged expirations): this
     * thread's own counter, so a plain increment between two signal fences. */
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    __atomic_store_n(&sgc__timer_events, __atomic_load_n(&sgc__timer_events, __ATOMIC_RELAXED) + 1, __ATOMIC_RELAXED);
    errno = saved_errno;
}

/* ---- Drain ------------------------------------------------------------------ */

uint64_t sgc__timer_missed(void) { return tm.missed + __atomic_load_n(&tm.th_missed, __ATOMIC_RELAXED); }

uint64_t sgc__timer_throttled(void) { return tm.throttled; }

uint64_t sgc__timer_buffered(void) {
    uint64_t n = 0, t = tm.tail, h = __atomic_load_n(&tm.head, __ATOMIC_ACQUIRE);
    while (t < h) {
        t += 3 + (uint32_t)tm.ring[(t + 1) & RING_MASK];
        n++;
    }
    return n;
}

/* After a drain that handed snapshots over (longest: the most uncached
 * frames one of them had).  A snapshot of many uncached frames has the live
 * stack interned now, outside the handler, so that the next snapshots stop
 * at its frames instead of copying them again (a deep stack that stays
 * would otherwise be copied whole at every sample).  Short snapshots are
 * left alone: the walk costs a new frame about 30 instructions, which a
 * stack that changes between samples (most do) never earns back, while
 * copying a frame again costs the handler about 8 and its drain about 10
 * (docs/PROFILE.md, "The time sampler").  Nor does it pay where the deep
 * part of the stack is pushed again between samples (a recursion that
 * returns and descends again, like deepstack's): then the next drain meets
 * a long snapshot again, and the interning waits for 1, 2, 4 ... up to
 * SGC_TIMER_INTERN_BACKOFF long drains before it is tried again; a drain
 * whose snapshots were all short after an interning shows that it paid,
 * and ends the wait. */
static void intern_live(uint32_t longest) {
    if (longest < SGC_TIMER_INTERN_FRAMES) {
        if (tm.live_interned)
            tm.intern_backoff = 0; /* it paid: the stack stayed */
        tm.live_interned = 0;
        return;
    }
    if (tm.live_interned) { /* interned at the last drain, long again: it did not pay */
        tm.intern_backoff = tm.intern_backoff ? tm.intern_backoff * 2 : 1;
        if (tm.intern_backoff > SGC_TIMER_INTERN_BACKOFF)
            tm.intern_backoff = SGC_TIMER_INTERN_BACKOFF;
        tm.intern_wait = tm.intern_backoff;
    }
    tm.live_interned = 0;
    if (tm.intern_wait) {
        tm.intern_wait--;
        return;
    }
    if (sgc_top) {
        sgc__profile_stack_current();
        tm.live_interned = 1;
    }
}

/* The node of a snapshot: base with the n functions funcs (leaf first) on
 * top.  A snapshot of SGC_TIMER_INTERN_FRAMES or more frames is compared
 * with the last such one first (its base and functions, kept by the drain):
 * where the deep part of the stack is pushed again between samples, the
 * interning of the live stack does not pay (intern_live) and each sample
 * copies the same frames, which one memcmp of the words finds instead of a
 * lookup a frame.  The node is a function of the base and the functions
 * alone, so it is the same either way. */
static uint32_t snapshot_node(uint32_t base, sgc_func *const *funcs, uint32_t n) {
    if (n < SGC_TIMER_INTERN_FRAMES)
        return sgc__profile_stack_extend(base, funcs, n);
    if (n == tm.last_n && base == tm.last_base && memcmp(funcs, tm.last_funcs, (size_t)n * sizeof *funcs) == 0)
        return tm.last_node;
    uint32_t node = sgc__profile_stack_extend(base, funcs, n);
    if (n > tm.last_cap) {
        sgc_func **p = realloc(tm.last_funcs, (size_t)n * 2 * sizeof *p);
        if (!p) {
            fprintf(stderr, "freecheck: out of memory draining time samples\n");
            abort();
        }
        tm.last_funcs = p;
        tm.last_cap = n * 2;
    }
    memcpy(tm.last_funcs, funcs, (size_t)n * sizeof *funcs);
    tm.last_n = n;
    tm.last_base = base;
    tm.last_node = node;
    return node;
}

/* Hands every published snapshot to the profile.  Runs on the mutator
 * thread; the handler may interrupt it at any point and append entries,
 * which the loop simply picks up (head is re-read). */
static void drain(void) {
    uint64_t t = tm.tail;
    uint64_t handed = 0;
    uint32_t longest = 0; /* frames of the longest snapshot drained */
    for (;;) {
        uint64_t h = __atomic_load_n(&tm.head, __ATOMIC_ACQUIRE); /* head before the entries */
        if (t == h)
            break;
        SGC_ASSERT(t < h && h - t <= SGC_TIMER_RING_WORDS,
                   "tail <= head <= tail + the ring's size: the ring never overfills");
        while (t < h) {
            uint64_t ts = tm.ring[t & RING_MASK];
            uint64_t w = tm.ring[(t + 1) & RING_MASK];
            uint32_t base = (uint32_t)tm.ring[(t + 2) & RING_MASK];
            uint32_t n = (uint32_t)w;
            int phase = (int)(w >> 32);
            sgc_func *const *funcs;
            uint64_t first = (t + 3) & RING_MASK;
            if (first + n <= SGC_TIMER_RING_WORDS) {
                funcs = (sgc_func *const *)(void *)&tm.ring[first];
            } else {
                if (n > tm.scratch_cap) {
                    tm.scratch_cap = n * 2;
                    tm.scratch = realloc(tm.scratch, (size_t)tm.scratch_cap * sizeof *tm.scratch);
                    if (!tm.scratch) {
                        fprintf(stderr, "freecheck: out of memory draining time samples\n");
                        abort();
                    }
                }
                for (uint32_t i = 0; i < n; i++)
                    tm.scratch[i] = (sgc_func *)(uintptr_t)tm.ring[(first + i) & RING_MASK];
                funcs = tm.scratch;
            }
            uint32_t node = snapshot_node(base, funcs, n);
            sgc__profile_time_sample(ts, node, phase);
            if (n > longest)
                longest = n;
            sgc__stats.time_samples_written++;
            handed++;
            t += 3 + n;
            SGC_ASSERT(t <= h, "an entry is published whole: it never ends past the head");
        }
        __atomic_store_n(&tm.tail, t, __ATOMIC_RELEASE); /* entries used before they are freed */
    }
    uint64_t dropped = sgc__stats.time_samples_dropped + __atomic_load_n(&tm.th_dropped, __ATOMIC_RELAXED);
    if (dropped != tm.dropped_reported) {
        sgc__profile_time_dropped(sgc__now_ns(), dropped - tm.dropped_reported);
        tm.dropped_reported = dropped;
    }
    uint64_t missed = tm.missed + __atomic_load_n(&tm.th_missed, __ATOMIC_RELAXED);
    if (missed != tm.missed_reported) {
        sgc__profile_time_missed(sgc__now_ns(), missed - tm.missed_reported);
        tm.missed_reported = missed;
    }
    if (handed)
        intern_live(longest);
}

/* Thread mode with the validation spin: the program busy-waits, on its own
 * thread, the spins of the samples the sampler thread took since the last
 * payment.  Called from the program's safe points (the drain: the
 * allocation slow path and every minor collection) and at stop. */
static void pay_spins(void) {
    uint64_t n = __atomic_exchange_n(&tm.th_owed, 0, __ATOMIC_ACQUIRE);
    if (n == 0)
        return;
    tm.spins_paid += n;
    sgc__spin_ns(n * sgc__settings.sample_spin_ns);
}

uint64_t sgc__timer_spins_paid(void) { return tm.spins_paid; }

void sgc__timer_drain(void) {
    /* What arrives from now on is the next drain's (sgc__timer_drain_check). */
    __atomic_store_n(&sgc__timer_events_seen, __atomic_load_n(&sgc__timer_events, __ATOMIC_ACQUIRE), __ATOMIC_RELAXED);
    if (__builtin_expect(sgc__settings.sample_spin_ns != 0, 0))
        pay_spins();
    if (__builtin_expect(__atomic_load_n(&tm.head, __ATOMIC_RELAXED) == tm.tail &&
                             sgc__stats.time_samples_dropped + __atomic_load_n(&tm.th_dropped, __ATOMIC_RELAXED) ==
                                 tm.dropped_reported &&
                             tm.missed + __atomic_load_n(&tm.th_missed, __ATOMIC_RELAXED) == tm.missed_reported,
                         1))
        return;
    drain();
}

/* ---- The sampler thread (SGC_TIME_MODE=thread) ----------------------------- */

#if defined(__SANITIZE_THREAD__)
#define SGC_NO_TSAN __attribute__((no_sanitize("thread")))
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define SGC_NO_TSAN __attribute__((no_sanitize("thread")))
#endif
#endif
#ifndef SGC_NO_TSAN
#define SGC_NO_TSAN
#endif

/* One attempt to copy the mutator's stack into the ring, from another
 * thread, without stopping it.  The copy is optimistic (a seqlock read with
 * the pop count as the sequence), and only pointers read from frames that
 * were live are followed: docs/PROFILE.md, "Why no frame that is not live is
 * followed", has the argument; the writer's half is sgc_frame_push and
 * sgc_frame_pop (sgc.h).  The reader's three orderings:
 *  1. the count, then sgc_top, both acquire loads: the count's load pairs
 *     with the pop's release store of the count, so the top read is never
 *     older than the unpublish of the pop counted (a frame that pop killed
 *     cannot be read as the top);
 *  2. sgc_top's acquire load pairs with the release store that published
 *     that value (a push, or a pop exposing the parent), so the fields of
 *     the top frame and of every frame below it are seen as pushed;
 *  3. each frame's fields, then an acquire fence, then the count again: the
 *     fence pairs with the fence that ends every pop, so a field value
 *     stored when the frame's memory was reused (after its pop) comes with
 *     that pop's count, and the unchanged count proves the values are the
 *     frame's own.  Any change voids the copy before a field read from a
 *     dead frame is used.
 * Frames live in the thread's stack or static storage, which stays mapped,
 * so reading a frame that has just died returns stale bytes, never a fault.
 *
 * This races with the mutator on purpose (the stack memory it reads is
 * written by the mutator without synchronisation); the count check is what
 * makes the result consistent.  The function is excluded from
 * ThreadSanitizer for that reason and no other (docs/PROFILE.md).
 *
 * Returns 1 if a snapshot was published, 0 if the copy was voided, -1 if it
 * did not fit in the ring (dropped). */
SGC_NO_TSAN static int thread_copy(uint64_t ts) {
    uint64_t pops = __atomic_load_n(&sgc__frame_pops, __ATOMIC_ACQUIRE); /* 1 */
    sgc_frame *f = __atomic_load_n(&sgc_top, __ATOMIC_ACQUIRE);          /* 1, 2 */
    int phase = (int)__atomic_load_n(&sgc__phase, __ATOMIC_RELAXED);
    uint64_t *ring = tm.ring;
    uint64_t head = tm.head;
    uint64_t room = SGC_TIMER_RING_WORDS - (head - __atomic_load_n(&tm.tail, __ATOMIC_ACQUIRE));
    SGC_ASSERT(room <= SGC_TIMER_RING_WORDS, "tail <= head <= tail + the ring's size: the ring never overfills");
    if (room < 3)
        return -1;
    /* The functions go through a pointer that stops where the ring wraps or
     * its room ends; past it, word by word with the mask. */
    uint64_t first = (head + 3) & RING_MASK, lim = SGC_TIMER_RING_WORDS - first;
    if (lim > room - 3)
        lim = room - 3;
    uint64_t *const start = ring + first, *q = start, *const end = start + lim;
    uint64_t past = 0; /* words stored past end */
    uint32_t base = 0;
    sgc_frame *parent;
    /* Four frames a step while four words fit before end (one bound check
     * for the four), each frame read and checked exactly as in the loop
     * below: its fields, the fence, the count, and only then its parent
     * followed. */
    uint64_t *const end4 = start + (lim & ~(uint64_t)3);
#define SGC_THREAD_FRAME(i)                                                                         \
    do {                                                                                            \
        parent = __atomic_load_n(&f->parent, __ATOMIC_RELAXED);                                     \
        sgc_func *func_ = __atomic_load_n(&f->func, __ATOMIC_RELAXED);                              \
        uint32_t cct_ = __atomic_load_n(&f->cct, __ATOMIC_RELAXED);                                 \
        __atomic_thread_fence(__ATOMIC_ACQUIRE); /* 3 */                                            \
        uint64_t pops_now_ = __atomic_load_n(&sgc__frame_pops, __ATOMIC_RELAXED);                   \
        SGC_ASSERT(pops_now_ >= pops, "the pop count only grows: one increment per sgc_frame_pop"); \
        if (pops_now_ != pops)                                                                      \
            return 0;                                                                               \
        if (cct_) {                                                                                 \
            base = cct_;                                                                            \
            q += (i);                                                                               \
            goto copied;                                                                            \
        }                                                                                           \
        q[i] = (uint64_t)(uintptr_t)func_;                                                          \
        f = parent;                                                                                 \
        if (!f) {                                                                                   \
            q += (i) + 1;                                                                           \
            goto copied;                                                                            \
        }                                                                                           \
    } while (0)
    while (f && q != end4) {
        SGC_THREAD_FRAME(0);
        SGC_THREAD_FRAME(1);
        SGC_THREAD_FRAME(2);
        SGC_THREAD_FRAME(3);
        q += 4;
    }
#undef SGC_THREAD_FRAME
    for (; f; f = parent) {
        parent = __atomic_load_n(&f->parent, __ATOMIC_RELAXED);
        sgc_func *func = __atomic_load_n(&f->func, __ATOMIC_RELAXED);
        uint32_t cct = __atomic_load_n(&f->cct, __ATOMIC_RELAXED);
        __atomic_thread_fence(__ATOMIC_ACQUIRE); /* 3: the fields before the count */
        uint64_t pops_now = __atomic_load_n(&sgc__frame_pops, __ATOMIC_RELAXED);
        SGC_ASSERT(pops_now >= pops, "the pop count only grows: one increment per sgc_frame_pop, by the mutator");
        if (pops_now != pops)
            return 0;
        if (cct) {
            base = cct;
            break;
        }
        if (__builtin_expect(q != end, 1)) {
            *q++ = (uint64_t)(uintptr_t)func;
        } else {
            if (3 + lim + past + 1 > room)
                return -1;
            ring[(head + 3 + lim + past) & RING_MASK] = (uint64_t)(uintptr_t)func;
            past++;
        }
    }
copied:;
    uint64_t n = (uint64_t)(q - start) + past;
    ring[head & RING_MASK] = ts;
    ring[(head + 1) & RING_MASK] = (uint64_t)phase << 32 | n;
    ring[(head + 2) & RING_MASK] = base;
    __atomic_store_n(&tm.head, head + 3 + n, __ATOMIC_RELEASE);
    return 1;
}

/* Counters the sampler thread alone writes: single writer, atomic so the
 * mutator's reads are well defined. */
static void th_count(uint64_t *counter, uint64_t by) {
    __atomic_store_n(counter, __atomic_load_n(counter, __ATOMIC_RELAXED) + by, __ATOMIC_RELAXED);
    /* Work for the drain, after what it will find (sgc__timer_drain_check). */
    __atomic_fetch_add(&sgc__timer_events, 1, __ATOMIC_RELEASE);
}

/* Validation only (docs/RUNTIME.md): the spin of a counted sample, dropped
 * ones included, is owed to the program, which pays it at its next safe
 * point: a spin here would cost this thread, not the program.  Owed before
 * the sample is counted, so a reader that sees the sample sees the debt. */
static void thread_owe_spin(void) {
    if (__builtin_expect(sgc__settings.sample_spin_ns != 0, 0))
        __atomic_fetch_add(&tm.th_owed, 1, __ATOMIC_RELEASE);
}

/* Takes one sample of the mutator's stack: up to THREAD_ATTEMPTS copies. */
static void thread_sample(void) {
    uint64_t ts = sgc__now_ns(); /* recorded, like the handler's */
    for (int attempt = 0; attempt < THREAD_ATTEMPTS; attempt++) {
        int r = thread_copy(ts);
        if (r == 1) {
            thread_owe_spin();
            th_count(&tm.th_taken, 1);
            return;
        }
        if (r < 0) {
            thread_owe_spin();
            th_count(&tm.th_taken, 1);
            th_count(&tm.th_dropped, 1);
            return;
        }
        th_count(&tm.th_retries, 1);
    }
    th_count(&tm.th_torn, 1);
}

/* Moves the calling thread off the mutator's CPU if another one is usable.
 * Returns the CPU it is now restricted to, or -1 if it shares. */
static int leave_cpu(int mutator_cpu) {
    cpu_set_t all;
    if (mutator_cpu < 0 || sched_getaffinity(0, sizeof all, &all) != 0)
        return -1;
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    /* The process may be pinned to one CPU (the harness pins runs); the
     * thread may still run elsewhere, so every online CPU is a candidate. */
    for (long c = 0; c < ncpu && c < CPU_SETSIZE; c++) {
        if (c == mutator_cpu)
            continue;
        cpu_set_t one;
        CPU_ZERO(&one);
        CPU_SET((int)c, &one);
        if (sched_setaffinity(0, sizeof one, &one) == 0)
            return (int)c;
    }
    return -1;
}

typedef struct thread_args {
    int mutator_cpu;
} thread_args;

/* Sleeps until CLOCK_MONOTONIC reaches dl or stop is set: a futex wait on
 * the stop word with an absolute deadline (FUTEX_WAIT_BITSET measures it on
 * CLOCK_MONOTONIC), a system call and nothing else in user space, where a
 * condition variable's timed wait with its mutex cost about 400
 * instructions a period.  Returns 1 if stop is set. */
static int wait_until(const struct timespec *dl) {
    while (!__atomic_load_n(&tm.stop, __ATOMIC_ACQUIRE)) {
        long rc =
            syscall(SYS_futex, &tm.stop, FUTEX_WAIT_BITSET | FUTEX_PRIVATE_FLAG, 0, dl, NULL, FUTEX_BITSET_MATCH_ANY);
        if (rc != 0 && errno == ETIMEDOUT)
            return 0;
        /* Woken (by stop), the word no longer 0 (EAGAIN), or a signal
         * (EINTR; the thread blocks them all): look at stop again. */
    }
    return 1;
}

static void *thread_main(void *arg) {
    thread_args *a = arg;
    __atomic_store_n(&tm.thread_cpu, leave_cpu(a->mutator_cpu), __ATOMIC_RELAXED);
    free(a);
    uint64_t p = tm.period_ns;
    uint64_t k = 1; /* the next grid point */
    for (;;) {
        uint64_t at = tm.grid0 + k * p;
        struct timespec dl = {(time_t)(at / 1000000000u), (long)(at % 1000000000u)};
        if (wait_until(&dl)) {
            /* Grid points that fell due while this thread waited for a CPU
             * and the stop came first: missed, like any other. */
            uint64_t end = mono_ns();
            uint64_t due = (end - tm.grid0) / p;
            if (due >= k)
                th_count(&tm.th_missed, due - k + 1);
            tm.th_end = end; /* read by the stopper after the join */
            break;
        }
        /* Grid points that passed while this thread was not running are
         * missed, as the kernel's merged expirations are in signal mode. */
        uint64_t now = mono_ns();
        uint64_t due = (now - tm.grid0) / p;
        if (due > k) {
            th_count(&tm.th_missed, due - k);
            k = due;
        }
        thread_sample();
        k++;
    }
    return NULL;
}

static int start_thread(void) {
    thread_args *a = malloc(sizeof *a);
    if (!a)
        return -1;
    a->mutator_cpu = sched_getcpu();
    __atomic_store_n(&tm.stop, 0, __ATOMIC_RELAXED); /* before the thread exists */
    __atomic_store_n(&tm.thread_cpu, -1, __ATOMIC_RELAXED);
    tm.grid0 = mono_ns();
    /* The thread takes no signals: they stay the program's. */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int rc = pthread_create(&tm.thread, NULL, thread_main, a);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0) {
        free(a);
        errno = rc;
        return -1;
    }
    tm.have_thread = 1;
    return 0;
}

static void stop_thread(void) {
    __atomic_store_n(&tm.stop, 1, __ATOMIC_RELEASE);
    syscall(SYS_futex, &tm.stop, FUTEX_WAKE | FUTEX_PRIVATE_FLAG, INT_MAX, NULL, NULL, 0);
    pthread_join(tm.thread, NULL);
    tm.have_thread = 0;
}

void sgc__timer_stats(sgc_stats *out) {
    out->time_samples += __atomic_load_n(&tm.th_taken, __ATOMIC_RELAXED);
    out->time_samples_dropped += __atomic_load_n(&tm.th_dropped, __ATOMIC_RELAXED);
    out->time_samples_missed = sgc__timer_missed();
    out->time_samples_throttled = tm.throttled;
    out->time_snapshot_retries = __atomic_load_n(&tm.th_retries, __ATOMIC_RELAXED);
    out->time_snapshots_torn = __atomic_load_n(&tm.th_torn, __ATOMIC_RELAXED);
}

int sgc__timer_mode(void) { return tm.mode; }

uint64_t sgc__timer_taken(void) { return sgc__stats.time_samples + __atomic_load_n(&tm.th_taken, __ATOMIC_RELAXED); }

int sgc__timer_thread_cpu(void) {
    return tm.mode == SGC_TIME_THREAD ? __atomic_load_n(&tm.thread_cpu, __ATOMIC_RELAXED) : -1;
}

/* ---- Start and stop --------------------------------------------------------- */

static int install_handler(void) {
    if (tm.installed)
        return 0;
    if (!tm.ring) {
        void *p = mmap(NULL, SGC_TIMER_RING_WORDS * sizeof(uint64_t), PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED)
            return -1;
        tm.ring = p;
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = sgc__timer_handler;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    if (sigaction(SGC_TIMER_SIGNAL, &sa, NULL) != 0)
        return -1;
    tm.installed = 1;
    return 0;
}

int sgc_time_sampling_start(unsigned hz, sgc_clock clock) {
    return sgc_time_sampling_start_mode(hz, clock, sgc__settings.time_mode);
}

int sgc_time_sampling_start_mode(unsigned hz, sgc_clock clock, sgc_time_mode mode) {
    if (hz == 0) {
        sgc_time_sampling_stop();
        return 0;
    }
    if (hz > SGC_TIMER_MAX_HZ || (unsigned)clock >= SGC_NCLOCKS || (unsigned)mode >= SGC_NTIME_MODES ||
        (mode == SGC_TIME_THREAD && clock != SGC_CLOCK_WALL)) {
        errno = EINVAL;
        return -1;
    }
    if (!sgc__initialized)
        sgc_init();
    sgc_time_sampling_stop(); /* a restart is a stop and a start */
    tm.mode = mode;
    if (mode == SGC_TIME_THREAD) {
        if (!tm.ring) {
            void *p = mmap(NULL, SGC_TIMER_RING_WORDS * sizeof(uint64_t), PROT_READ | PROT_WRITE,
                           MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
            if (p == MAP_FAILED)
                return -1;
            tm.ring = p;
        }
        tm.hz = hz;
        tm.clock = clock;
        tm.period_ns = 1000000000ull / hz;
        tm.started_ns = mono_ns();
        sgc__profile_time_config(sgc__record_ns(tm.started_ns), hz, clock);
        if (start_thread() != 0) {
            int e = errno;
            sgc__profile_time_config(sgc__now_ns(), 0, clock);
            errno = e;
            return -1;
        }
        return 0;
    }
    if (install_handler() != 0)
        return -1;
    struct sigevent sev;
    memset(&sev, 0, sizeof sev);
    sev.sigev_notify = SIGEV_THREAD_ID;
    sev.sigev_signo = SGC_TIMER_SIGNAL;
    sev.sigev_notify_thread_id = (pid_t)syscall(SYS_gettid);
#define CLOCK_ID(id, name, what, clockid) clockid,
    static const clockid_t clock_ids[] = {SGC_TIME_CLOCKS(CLOCK_ID)};
#undef CLOCK_ID
    clockid_t cid = clock_ids[clock];
    if (timer_create(cid, &sev, &tm.timer) != 0)
        return -1;
    tm.have_timer = 1;
    tm.hz = hz;
    tm.clock = clock;
    uint64_t period = 1000000000ull / hz;
    struct itimerspec its;
    its.it_interval.tv_sec = (time_t)(period / 1000000000ull);
    its.it_interval.tv_nsec = (long)(period % 1000000000ull);
    its.it_value = its.it_interval;
    /* The wall clock's expirations lie on a grid the handler can compute
     * (pace()), so the first one is set at an absolute time, and the
     * sampling time starts at grid point 0 (both CLOCK_MONOTONIC), so that
     * its periods are exactly the grid's.  These are real time whatever
     * the clock the runtime records (SGC_VIRTUAL_CLOCK): the timer fires on
     * the real clock, and the sampling time is the time it had to fire. */
    tm.started_ns = mono_ns();
    tm.grid0 = tm.started_ns;
    sgc__profile_time_config(sgc__record_ns(tm.started_ns), hz, clock);
    int flags = 0;
    tm.period_ns = period;
    tm.expirations = 0;
    if (clock == SGC_CLOCK_WALL) {
        uint64_t first = tm.grid0 + period;
        its.it_value.tv_sec = (time_t)(first / 1000000000ull);
        its.it_value.tv_nsec = (long)(first % 1000000000ull);
        flags = TIMER_ABSTIME;
    }
    tm.on = 1;
    if (timer_settime(tm.timer, flags, &its, NULL) != 0) {
        int e = errno;
        tm.on = 0;
        timer_delete(tm.timer);
        tm.have_timer = 0;
        sgc__profile_time_config(sgc__now_ns(), 0, clock);
        errno = e;
        return -1;
    }
    return 0;
}

void sgc_time_sampling_stop(void) {
    if (tm.have_thread) {
        stop_thread(); /* joined: every sample it counted is in the ring */
        pay_spins();   /* and every spin it owes is paid by the program */
        /* The sampling time is the thread's own, from grid point 0 to the
         * moment it stopped: what its periods account for exactly. */
        sgc__stats.time_sampling_ns += tm.th_end - tm.grid0;
        drain();
        sgc__profile_time_config(sgc__now_ns(), 0, tm.clock);
        return;
    }
    if (!tm.have_timer)
        return;
    /* Delete first: once timer_delete returns no new expiry is generated;
     * a signal already queued is then ignored by the handler (on == 0) and
     * not counted, so every counted sample is in the ring. */
    timer_delete(tm.timer);
    tm.have_timer = 0;
    tm.on = 0;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    uint64_t now = mono_ns();
    if (tm.clock == SGC_CLOCK_WALL) {
        /* A throttle skips grid points ahead of time; those after now were
         * never part of the sampling time. */
        uint64_t elapsed = (now - tm.grid0) / tm.period_ns;
        if (tm.expirations > elapsed) {
            uint64_t ahead = tm.expirations - elapsed;
            tm.throttled -= ahead < tm.throttled ? ahead : tm.throttled;
        }
    }
    sgc__stats.time_sampling_ns += now - tm.started_ns;
    drain();
    sgc__profile_time_config(sgc__record_ns(now), 0, tm.clock);
}

/* A forked child has no timer; it must not try to delete the parent's. */
static void timer_atfork_child(void) {
    tm.on = 0;
    tm.have_timer = 0;
    tm.have_thread = 0; /* threads do not survive fork */
}

void sgc__timer_init(void) {
    static int once;
    if (once)
        return;
    once = 1;
    pthread_atfork(NULL, NULL, timer_atfork_child);
    if (!sgc__settings.time_hz)
        return;
    if (sgc_time_sampling_start(sgc__settings.time_hz, sgc__settings.time_clock) != 0) {
        /* Settings were checked (sgc_settings.c), so EINVAL means the rate. */
        int e = errno;
        if (e == EINVAL) {
            fprintf(stderr, "freecheck: SGC_TIME_HZ=%u: must be at most %u\n", sgc__settings.time_hz, SGC_TIMER_MAX_HZ);
            exit(2);
        }
        fprintf(stderr, "freecheck: SGC_TIME_HZ=%u: cannot start the time sampler: %s\n", sgc__settings.time_hz,
                strerror(e));
        exit(1);
    }
}

void sgc__timer_shutdown(void) {
    sgc_time_sampling_stop();
    drain();
}
