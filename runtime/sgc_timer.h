/* sgc_timer.h - the time sampler: a per-thread POSIX timer whose signal
 * snapshots the shadow stack into a preallocated ring, drained into the
 * profile outside the handler.
 *
 * Invariants:
 *  - The signal (SGC_TIMER_SIGNAL) goes to the mutator thread only
 *    (SIGEV_THREAD_ID), so the handler always interrupts the thread whose
 *    frames it reads.  It is installed with SA_RESTART and SA_SIGINFO.
 *  - The handler is async-signal-safe: it reads sgc_top, the frames and
 *    sgc__phase, reads the clocks (sgc__now_ns for the snapshot's
 *    timestamp, clock_gettime for pacing), writes only into the ring and into
 *    counters nothing else writes (the time_samples and
 *    time_samples_dropped fields of sgc__stats), and preserves errno.  It
 *    never takes a lock, allocates, or touches the profile writer, so it
 *    cannot break a collection, the allocation slow path or a profile write,
 *    and nothing needs to block the signal.
 *  - The ring is single-producer (the handler) single-consumer (the drain,
 *    on the same thread).  An entry is published by advancing the head after
 *    its words are stored; the drain frees entries by advancing the tail
 *    after it has handed them to the profile.  A snapshot that does not fit
 *    is counted as dropped, never written in part.
 *  - A snapshot is [timestamp, phase << 32 | n, base node, n function
 *    pointers leaf first]: base is the calling-context node cached in the
 *    first frame (from the top) whose cct is set, the n functions are the
 *    uncached frames above it.  Cost O(frames pushed since the stack was
 *    last interned); the drain interns the current stack after it hands
 *    over a snapshot of SGC_TIMER_INTERN_FRAMES or more uncached frames, so
 *    the next snapshots are short (unless that did not pay last time:
 *    sgc_timer.c, intern_live).
 *  - The drain turns recorded sgc_func pointers into names after the frames
 *    are gone, so an sgc_func must live as long as the runtime (sgc.h asks
 *    the same of its name).
 *  - Progress at any accepted rate (wall clock): the timer's expirations lie
 *    on a grid of its period; when a sample ends less than half a period
 *    before the next grid point, the handler moves the timer forward on the
 *    grid, to at least twice that sample's cost from now, and counts the
 *    grid points skipped as
 *    throttled.  So a signal can never be pending again as the handler
 *    returns, however slow delivery is, and samples + missed + throttled
 *    cover every period of the sampling time.  A CPU-time timer needs no
 *    pacing: it only expires at the kernel's tick.
 *  - The timer, its grid, the pacing and the sampling time
 *    (time_sampling_ns) are real time (CLOCK_MONOTONIC) even with
 *    SGC_VIRTUAL_CLOCK; the times recorded (snapshot timestamps, the
 *    profile's TIME_CONFIG, dropped and missed records) are sgc__now_ns's.
 *  - The sampler thread (SGC_TIME_MODE=thread) copies the stack from
 *    another CPU while the program runs: a seqlock read with the pop count
 *    (sgc__frame_pops) as the sequence (thread_copy).  sgc_frame_pop (sgc.h)
 *    unpublishes the frame, then counts the pop, then fences before the
 *    frame's memory can be reused, each ordered for the compiler and the
 *    processor, and the copy loads in the matching order, so it never
 *    follows a pointer read from a frame that is not live (docs/PROFILE.md;
 *    tests/sampler/frame_order_check.sh checks the pop's machine code).
 *  - Accounting: time_samples (signals handled while on) ==
 *    time_samples_written + time_samples_dropped + entries still in the
 *    ring, and the ring is empty after sgc_time_sampling_stop and
 *    sgc__timer_shutdown.
 */
#ifndef SGC_TIMER_H
#define SGC_TIMER_H

#include <signal.h>
#include <stdint.h>

#define SGC_TIMER_SIGNAL SIGPROF
/* Highest accepted rate: beyond this the handler alone would saturate a
 * core on this kind of machine. */
#define SGC_TIMER_MAX_HZ 100000u
/* Work for the drain: the signal handler and the sampler thread count
 * every snapshot, drop, merged expiration or thread count they leave
 * (events), and the drain notes how many it has seen when it starts.  So
 * the allocation slow path, which drains on every entry, finds out that
 * there is nothing to do with two loads and a compare, inline
 * (sgc__timer_drain_check), instead of a call that reads the ring and
 * every counter (17 instructions a slow-path entry). */
extern uint64_t sgc__timer_events;      /* the handler's (plain) and the thread's (atomic) increments */
extern uint64_t sgc__timer_events_seen; /* sgc__timer_events when the last drain started */
void sgc__timer_drain(void);
static inline void sgc__timer_drain_check(void) {
    if (__builtin_expect(__atomic_load_n(&sgc__timer_events, __ATOMIC_RELAXED) != sgc__timer_events_seen, 0))
        sgc__timer_drain();
}

/* A drain that met a snapshot of at least this many uncached frames
 * interns the live stack (so later snapshots stop at its frames). */
#define SGC_TIMER_INTERN_FRAMES 16u
/* The longest wait, in drains that met such a snapshot, before the drain
 * interns the live stack again after an interning that did not pay (the
 * next drain met a long snapshot again; sgc_timer.c, intern_live).  An
 * interning that does not pay costs about 30 instructions a frame, spread
 * over the wait's samples (64 frames: about 2 a sample at 1024, 30 at 64);
 * a stack that stays after such a run is interned within 1024 samples
 * (about 1 s at 1 kHz), copying it whole meanwhile. */
#define SGC_TIMER_INTERN_BACKOFF 1024u
/* Ring size in 64-bit words (8 MiB, touched only as it is used): at 10 kHz
 * with a shallow stack, more than 20 s between drains. */
#define SGC_TIMER_RING_WORDS ((uint64_t)1 << 20)

/* Timer expirations the kernel merged into a later signal because the
 * thread was not running (si_overrun), since start-up: the gap between the
 * rate asked for and the rate achieved on a busy machine. */
uint64_t sgc__timer_missed(void);
/* Wall-clock timer periods skipped since start-up so that the program makes
 * progress: a sample cost more than half a period (sgc_timer.c, pace()). */
uint64_t sgc__timer_throttled(void);
/* Adds the sampler thread's counters to out (time_samples,
 * time_samples_dropped, the retries and torn snapshots) and sets the missed
 * and throttled counts: the timer's share of sgc_get_stats. */
struct sgc_stats;
void sgc__timer_stats(struct sgc_stats *out);
/* Time samples taken since start-up, by either mode (the sampler thread's
 * included). */
uint64_t sgc__timer_taken(void);
/* The mode of the current or last time sampling run (sgc_time_mode). */
int sgc__timer_mode(void);
/* The CPU the sampler thread was moved to, -1 if it shares the mutator's
 * (or never ran). */
int sgc__timer_thread_cpu(void);
/* The signal handler itself (installed by sgc_time_sampling_start).  Exposed
 * so a benchmark can time its body without the kernel's delivery; info may
 * be NULL.  Records a sample only while time sampling is on. */
void sgc__timer_handler(int sig, siginfo_t *info, void *uctx);
/* Thread mode with SGC_SAMPLE_SPIN_NS: the spins the program has paid
 * since start-up, one per sample the sampler thread counted.  The thread
 * does not spin itself: each sample's spin is owed to the program and paid
 * on the program's thread at its next safe point (the drain: every
 * allocation slow path and minor collection), and all of them by the time
 * sgc_time_sampling_stop returns, so then this equals the thread's
 * samples. */
uint64_t sgc__timer_spins_paid(void);
/* Time samples currently buffered in the ring (not yet drained). */
uint64_t sgc__timer_buffered(void);

#endif /* SGC_TIMER_H */
