/* thread_reuse.c - the sampler thread (SGC_TIME_MODE=thread) against frame
 * memory that is reused the moment a frame is popped.  The program pushes and
 * pops frames of several shapes (functions whose frames sit at different
 * offsets in their stack frames) at varying depths, so that frames land on
 * addresses just freed by frames of other shapes and depths; after every
 * return, a local array is written over the stack the callee's frames had
 * used, with pointer-like junk: addresses in pages mapped PROT_NONE, below
 * 4 GiB so that the word over a frame's nroots/cct reads as cct 0 (the copy
 * goes on) and the word over its parent pointer is followed.  Then it runs
 * for a while with no pop, which is when a sampler that copied a dead frame
 * and passed its count check would follow that junk.  A copy that follows a
 * frame that is not live therefore faults (the program dies of SIGSEGV,
 * which the parent process reports), and a recorded stack the program never
 * had fails the final check.  The sampler thread runs at the highest rate.
 *
 * The program pins itself to its CPU, so the two threads run at once (the
 * kernel may otherwise move it onto the thread's CPU), and tries the next CPU
 * every SLICE_S of CPU time without the count.
 *
 * The run stops on a count, not a clock: when the sampler thread has voided
 * RETRIES copies because a pop came in the middle (each one a copy that met
 * a pop, the only moment the race can happen), or, on a machine too busy to
 * let both threads run at once, when the program has used LIMIT s of CPU
 * time without getting there (a failure that says so).
 *
 * thread_reuse [RETRIES [LIMIT]] (default 50000, 120): exit 0 if the run
 * reached its count with no fault and every stack was one the program had;
 * 1 otherwise, with the reason. */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sgc_timer.h"
#include "thread_families.h"

/* The shapes: each a family of functions c1..cD, d1..dD, ... (the naming
 * valid_stack checks: a stack is root, then one family at consecutive
 * depths). */
#define NSHAPES 4
#define MAX_DEPTH 24
#define JUNK_WORDS 96
static sgc_func shape_fn[NSHAPES][MAX_DEPTH + 1];
static char shape_names[NSHAPES][MAX_DEPTH + 1][8];
static uintptr_t junk; /* an address in the PROT_NONE pages */
static void *guard;    /* those pages */
static const size_t guard_len = 1 << 16;
static volatile uint64_t sink;
/* Shared with the parent: how far the child got (samples, voided copies). */
static volatile uint64_t *progress;

static void shape_call(int shape, int d, int depth);

/* Writes junk over the stack a callee just used (its frame and locals are
 * below the caller's, where this array now is), from the top down, so the
 * callee's frame, just below the return address, is overwritten first; then
 * runs a little with no frame pushed or popped: a copy of a dead frame would
 * follow the junk now.  (Filling from the top and a short pause make the
 * unfixed race fault sooner than filling upwards or a long pause.) */
__attribute__((noinline)) static void scribble(int spin) {
    volatile uintptr_t words[JUNK_WORDS];
    for (int i = JUNK_WORDS - 1; i >= 0; i--)
        words[i] = junk + (uintptr_t)(i % 16) * 64;
    uint64_t x = words[spin % JUNK_WORDS];
    for (int i = 0; i < spin; i++)
        x = x * 6364136223846793005ull + 1442695040888963407ull;
    sink += x;
}

/* Four functions whose frames lie at different offsets of differently sized
 * stack frames (the padding arrays), each calling its own shape one deeper. */
#define SHAPE(name, idx, pad)                                      \
    __attribute__((noinline)) static void name(int d, int depth) { \
        volatile char local[pad];                                  \
        local[0] = (char)d;                                        \
        local[pad - 1] = 1;                                        \
        SGC_FRAME_FN(&shape_fn[idx][d]);                           \
        if (d < depth) {                                           \
            shape_call(idx, d + 1, depth);                         \
            scribble(5 + (d & 3));                                 \
        }                                                          \
        sink += (uint64_t)local[pad - 1] + (uint64_t)local[0];     \
    }
SHAPE(shape0, 0, 1)
SHAPE(shape1, 1, 24)
SHAPE(shape2, 2, 72)
SHAPE(shape3, 3, 136)

static void shape_call(int shape, int d, int depth) {
    switch (shape) {
    case 0: shape0(d, depth); break;
    case 1: shape1(d, depth); break;
    case 2: shape2(d, depth); break;
    default: shape3(d, depth); break;
    }
}

static void setup_shapes(void) {
    for (int s = 0; s < NSHAPES; s++)
        for (int d = 1; d <= MAX_DEPTH; d++) {
            snprintf(shape_names[s][d], sizeof shape_names[s][d], "%c%d", 'c' + s, d);
            shape_fn[s][d].name = shape_names[s][d];
        }
}

/* Pages that fault, below 4 GiB: the junk's high half is 0. */
static int map_guard(void) {
    for (uintptr_t at = 0x10000000; at < 0xf0000000; at += 0x01000000) {
        void *p = mmap((void *)at, guard_len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
        if (p == (void *)at) {
            guard = p;
            junk = at + 8;
            return 0;
        }
        if (p != MAP_FAILED)
            munmap(p, guard_len);
    }
    return -1;
}

static double cpu_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int fail(const char *what) {
    fprintf(stderr, "thread_reuse: FAIL: %s\n", what);
    return 1;
}

/* Moves the program to the next online CPU after the one it is on that it
 * may run on (as the sampler thread does, runtime/sgc_timer.c leave_cpu,
 * whatever the affinity it inherited; the thread, started after, leaves that
 * CPU for another): on a machine where one CPU is busy the voided copies
 * come at very different rates with the program on one CPU or the other (an
 * idle virtual CPU wakes the thread late), so the run tries each in turn.
 * Returns the CPU, or -1 when there is no other. */
static int next_cpu(void) {
    int here = sched_getcpu();
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    for (long k = 1; k < n && n <= CPU_SETSIZE; k++) {
        int c = (int)((here + k) % n);
        cpu_set_t one;
        CPU_ZERO(&one);
        CPU_SET(c, &one);
        if (sched_setaffinity(0, sizeof one, &one) == 0)
            return c;
    }
    return -1;
}

/* CPU seconds of the program on one placement before it tries the next. */
#define SLICE_S 8.0

static int run(uint64_t want_retries, double limit_s, const char *path) {
    setenv("SGC_PROFILE", path, 1);
    unsetenv("SGC_TIME_HZ");
    unsetenv("SGC_TIME_MODE");
    unsetenv("SGC_ALLOC_PERIOD");
    sgc_init();
    setup_shapes();
    if (map_guard() != 0)
        return fail("cannot map PROT_NONE pages below 4 GiB for the junk");
    sgc_stats s;
    uint64_t rounds = 0, pops0 = __atomic_load_n(&sgc__frame_pops, __ATOMIC_RELAXED);
    /* The program pinned where it is: unpinned, the kernel may move it onto
     * the sampler thread's CPU (on a machine whose other CPU is busy, it did:
     * 199 voided copies in 120 s, the two threads taking turns on one CPU). */
    cpu_set_t here;
    CPU_ZERO(&here);
    CPU_SET(sched_getcpu(), &here);
    sched_setaffinity(0, sizeof here, &here);
    double cpu0 = cpu_s(), used = 0, slice0 = 0;
    int moves = 0;
    {
        SGC_FRAME_FN(&f_root);
        if (sgc_time_sampling_start_mode(SGC_TIMER_MAX_HZ, SGC_CLOCK_WALL, SGC_TIME_THREAD) != 0)
            return fail("cannot start the sampler thread");
        for (;;) {
            for (int i = 0; i < 64; i++, rounds++) {
                /* Shapes and depths vary round by round: the frames of one
                 * round land where another shape's were. */
                shape_call((int)(rounds % NSHAPES), 1, 1 + (int)((rounds * 7) % MAX_DEPTH));
                scribble(7);
            }
            sgc__timer_drain(); /* the ring never fills */
            sgc_get_stats(&s);
            progress[0] = s.time_samples;
            progress[1] = s.time_snapshot_retries;
            used = cpu_s() - cpu0;
            if (s.time_snapshot_retries >= want_retries || used > limit_s)
                break;
            if (used - slice0 > SLICE_S && sysconf(_SC_NPROCESSORS_ONLN) > 1) {
                /* Not there yet on this placement: the next one. */
                sgc_time_sampling_stop();
                if (next_cpu() >= 0)
                    moves++;
                if (sgc_time_sampling_start_mode(SGC_TIMER_MAX_HZ, SGC_CLOCK_WALL, SGC_TIME_THREAD) != 0)
                    return fail("cannot start the sampler thread again");
                slice0 = used;
            }
        }
        sgc_time_sampling_stop();
    }
    sgc_get_stats(&s);
    uint64_t pops = __atomic_load_n(&sgc__frame_pops, __ATOMIC_RELAXED) - pops0;
    fprintf(stderr,
            "thread_reuse: %llu rounds, %llu pops, %.1f s CPU; sampler thread on CPU %d: %llu samples, %llu voided "
            "copies (retries), %llu torn periods, %llu missed; %d moves to another CPU\n",
            (unsigned long long)rounds, (unsigned long long)pops, used, sgc__timer_thread_cpu(),
            (unsigned long long)s.time_samples, (unsigned long long)s.time_snapshot_retries,
            (unsigned long long)s.time_snapshots_torn, (unsigned long long)s.time_samples_missed, moves);
    if (s.time_snapshot_retries < want_retries) {
        char why[200];
        snprintf(why, sizeof why,
                 "only %llu of %llu voided copies in %.0f s of CPU time: the sampler thread did not run beside the "
                 "program enough to test it (an idle other CPU is needed)",
                 (unsigned long long)s.time_snapshot_retries, (unsigned long long)want_retries, limit_s);
        return fail(why);
    }
    if (s.time_samples_written + s.time_samples_dropped != s.time_samples || sgc__timer_buffered() != 0)
        return fail("accounting: written + dropped != taken, or samples left in the ring");
    sgc_shutdown();
    sgc_pr_reader r;
    if (sgc_pr_open(&r, path) != 0 || sgc_pr_load(&r) != 0)
        return fail(r.err);
    if (r.ntimes != s.time_samples_written)
        return fail("the profile and the stats record disagree on the samples written");
    size_t bad = 0;
    char why[160];
    for (size_t i = 0; i < r.ntimes; i++)
        if (!valid_stack(&r, r.times[i].node, why, sizeof why) && bad++ == 0)
            fprintf(stderr, "thread_reuse: sample %zu: %s\n", i, why);
    size_t n = r.ntimes;
    sgc_pr_close(&r);
    unlink(path);
    if (bad) {
        fprintf(stderr, "thread_reuse: %zu of %zu samples have a stack the program never had\n", bad, n);
        return fail("recorded stacks the program never had");
    }
    fprintf(stderr, "thread_reuse: %zu samples, every stack one the program had\n", n);
    return 0;
}

int main(int argc, char **argv) {
    uint64_t want = argc > 1 ? strtoull(argv[1], NULL, 10) : 50000;
    double limit = argc > 2 ? atof(argv[2]) : 120;
    if (want == 0 || !(limit > 0)) {
        fprintf(stderr, "usage: thread_reuse [RETRIES [CPU_SECONDS]]: both positive\n");
        return 2;
    }
    char path[256];
    snprintf(path, sizeof path, "%s/sgc-thread-reuse-%d.prof", P_tmpdir, (int)getpid());
    /* The stress runs in a child: a fault of the sampler thread kills the
     * process (the thread blocks every signal, so no handler can run there),
     * and the parent says what that means. */
    progress = mmap(NULL, 2 * sizeof *progress, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (progress == MAP_FAILED)
        return fail("mmap");
    pid_t pid = fork();
    if (pid < 0)
        return fail("fork");
    if (pid == 0)
        _exit(run(want, limit, path));
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return fail("waitpid");
    if (WIFSIGNALED(status)) {
        unlink(path);
        fprintf(stderr,
                "thread_reuse: FAIL: the program died of signal %d (%s) after about %llu samples and %llu voided "
                "copies: a copy of the stack followed a pointer read from a frame that was no longer live (the junk "
                "written over popped frames points at PROT_NONE pages)\n",
                WTERMSIG(status), strsignal(WTERMSIG(status)), (unsigned long long)progress[0],
                (unsigned long long)progress[1]);
        return 1;
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
