/* time_bench.c - benchmarks of the time sampler: the cost of one time
 * sample next to the cost of an empty signal handler (the floor on this
 * machine), and the overhead of time sampling at 100, 1000 and 2000 Hz.
 *
 * usage: time-bench cost [--profile FILE] [--rounds N] [--signals N]
 *        time-bench overhead [--profile FILE] [--rounds N] [--work N]
 *
 * cost: the process sends itself SIGPROF N times (tgkill; the signal is
 *   delivered on the way out of the system call, through the same kernel
 *   path a timer signal takes) with the signal ignored (the system call
 *   alone), with an empty handler (the floor: any signal-based sampler pays
 *   it), and with the time sampler's handler at stack depths 1, 10 and 100,
 *   the stack cached (the usual case: the drain interns the live stack) or
 *   uncached (every frame copied into the ring), handler alone and handler
 *   plus the drain that encodes each sample into the profile.  CPU time per
 *   signal, median of the rounds.
 * overhead: a fixed GC-heavy workload (trees built, checked and dropped,
 *   a few kept) runs with time sampling off, at 100, 1000, 2000 Hz (wall
 *   clock), and with a same-rate timer whose handler only counts (the
 *   floor, at 1000 and 2000 Hz), rounds interleaved, in one process.  Reports median CPU time,
 *   overhead = time on / time off, the achieved rate, the overhead the cost
 *   benchmark predicts, and the paper's normalized overhead
 *   1 + (overhead - 1) * 1000 / (samples per second).
 * The profile goes to FILE (default: encoded and discarded).
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "sgc_internal.h"
#include "sgc_profile.h"
#include "sgc_timer.h"
#include "bench_util.h"

static pid_t pid, tid;

static void empty_handler(int sig) { (void)sig; }

static void send_signals(long n) {
    for (long i = 0; i < n; i++)
        syscall(SYS_tgkill, pid, tid, SIGPROF);
}

/* ---- cost ------------------------------------------------------------------ */

/* ns per call of the handler body called directly (no kernel delivery),
 * with (drain = 1) or without the drain that encodes the snapshot into the
 * profile; uncache as for per_signal. */
static double per_call(long n, int rounds, sgc_frame *frames, int depth, int drain, int uncache) {
    double *t = calloc((size_t)rounds, sizeof *t);
    for (int r = 0; r < rounds; r++) {
        uint64_t spent = 0;
        for (long done = 0; done < n; done += 64) {
            uint64_t a = cpu_ns();
            for (int i = 0; i < 64; i++)
                sgc__timer_handler(SIGPROF, NULL, NULL);
            if (drain)
                sgc__timer_drain();
            spent += cpu_ns() - a;
            if (!drain)
                sgc__timer_drain();
            if (uncache)
                for (int i = 0; i < depth; i++)
                    frames[i].cct = 0;
        }
        t[r] = (double)spent / (double)n;
    }
    double m = median_double(t, rounds);
    free(t);
    return m;
}

static sgc_func bench_fn = {"bench_frame", 0};

/* ns per signal for the current disposition; with the sampler installed,
 * drain_every > 0 drains every that many signals (inside the timing), and
 * uncache clears the frames' cached nodes after each drain so every
 * snapshot copies all of them. */
static double per_signal(long n, int rounds, sgc_frame *frames, int depth, int drain_every, int uncache) {
    double *t = calloc((size_t)rounds, sizeof *t);
    for (int r = 0; r < rounds; r++) {
        uint64_t t0 = cpu_ns();
        if (drain_every <= 0) {
            /* The ring holds the snapshots of one batch; drain outside the
             * timing between batches. */
            long batch = 4096, done = 0;
            uint64_t spent = 0;
            while (done < n) {
                long k = n - done < batch ? n - done : batch;
                uint64_t a = cpu_ns();
                send_signals(k);
                spent += cpu_ns() - a;
                done += k;
                sgc__timer_drain();
                if (uncache)
                    for (int i = 0; i < depth; i++)
                        frames[i].cct = 0;
            }
            t[r] = (double)spent / (double)n;
            continue;
        }
        for (long done = 0; done < n; done += drain_every) {
            send_signals(drain_every);
            sgc__timer_drain();
            if (uncache)
                for (int i = 0; i < depth; i++)
                    frames[i].cct = 0;
        }
        t[r] = (double)(cpu_ns() - t0) / (double)n;
    }
    double m = median_double(t, rounds);
    free(t);
    return m;
}

static int cost(long n, int rounds) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = SIG_IGN;
    sigaction(SIGPROF, &sa, NULL);
    double ignored = per_signal(n, rounds, NULL, 0, 0, 0);
    sa.sa_handler = empty_handler;
    sa.sa_flags = SA_RESTART;
    sigaction(SIGPROF, &sa, NULL);
    double empty = per_signal(n, rounds, NULL, 0, 0, 0);

    printf("time sampler cost, CPU ns per signal (median of %d rounds of %ld signals sent with tgkill)\n", rounds, n);
    printf("  %-52s %8.0f\n", "signal ignored (the system call alone)", ignored);
    printf("  %-52s %8.0f\n", "empty handler (the floor for any signal sampler)", empty);
    /* The sampler: a 1 Hz timer installs the handler and turns it on; its
     * own ticks add about one signal per second, negligible here. */
    if (sgc_time_sampling_start(1, SGC_CLOCK_WALL) != 0) {
        fprintf(stderr, "time-bench: cannot start the time sampler\n");
        return 1;
    }
    int depths[] = {1, 10, 100};
    printf("  %-30s %10s %10s %10s %10s\n", "sgc handler, delivered", "cached", "+ drain", "uncached", "+ drain");
    double row[3][4], direct[3][4];
    for (int d = 0; d < 3; d++) {
        int depth = depths[d];
        sgc_frame *frames = calloc((size_t)depth, sizeof *frames);
        for (int i = 0; i < depth; i++) {
            frames[i].func = &bench_fn;
            sgc_frame_push(&frames[i]);
        }
        sgc__profile_stack_current();
        uint64_t w0 = sgc__stats.time_samples_written;
        row[d][0] = per_signal(n, rounds, frames, depth, 0, 0);
        row[d][1] = per_signal(n, rounds, frames, depth, 64, 0);
        row[d][2] = per_signal(n, rounds, frames, depth, 0, 1);
        row[d][3] = per_signal(n, rounds, frames, depth, 64, 1);
        long calls = n * 10;
        direct[d][0] = per_call(calls, rounds, frames, depth, 0, 0);
        direct[d][1] = per_call(calls, rounds, frames, depth, 1, 0);
        direct[d][2] = per_call(calls, rounds, frames, depth, 0, 1);
        direct[d][3] = per_call(calls, rounds, frames, depth, 1, 1);
        sgc__profile_stack_current();
        uint64_t want = (uint64_t)(4 * n + 4 * calls) * (uint64_t)rounds;
        if (sgc__stats.time_samples_written - w0 < want) {
            fprintf(stderr, "time-bench: only %llu of %llu samples reached the profile\n",
                    (unsigned long long)(sgc__stats.time_samples_written - w0), (unsigned long long)want);
            return 1;
        }
        for (int i = depth - 1; i >= 0; i--)
            sgc_frame_pop(&frames[i]);
        free(frames);
    }
    for (int d = 0; d < 3; d++)
        printf("  depth %-24d %10.0f %10.0f %10.0f %10.0f\n", depths[d], row[d][0], row[d][1], row[d][2], row[d][3]);
    printf("  %-30s %10s %10s %10s %10s\n", "sgc handler body, called", "cached", "+ drain", "uncached", "+ drain");
    for (int d = 0; d < 3; d++)
        printf("  depth %-24d %10.1f %10.1f %10.1f %10.1f\n", depths[d], direct[d][0], direct[d][1], direct[d][2],
               direct[d][3]);
    double cached10 = row[1][0], drained10 = row[1][1];
    sgc_time_sampling_stop();
    printf("per-sample cost at depth 10 (cached stack): handler body %.1f ns, handler + drain into the profile "
           "%.1f ns;\n  delivered: %.0f ns handler, %.0f ns with drain, against %.0f ns for an empty handler\n",
           direct[1][0], direct[1][1], cached10, drained10, empty);
    printf("(the floor itself, %.0f ns, is the kernel's signal delivery and return)\n", empty);
    return 0;
}

/* ---- overhead ------------------------------------------------------------- */

typedef struct tree {
    sgc_obj left, right;
    uint64_t value;
} tree;

static uint32_t T_TREE;
static sgc_obj keep[16];

static sgc_obj build(int depth) {
    sgc_obj t = NULL, l = NULL, r = NULL;
    SGC_FRAME(&t, &l, &r);
    if (depth > 0) {
        l = build(depth - 1);
        r = build(depth - 1);
    }
    t = SGC_NEW(T_TREE, tree);
    ((tree *)t)->left = l;
    ((tree *)t)->right = r;
    ((tree *)t)->value = (uint64_t)depth;
    return t;
}

static uint64_t count(sgc_obj t) {
    SGC_FRAME(&t);
    if (!t)
        return 0;
    return ((tree *)t)->value + count(((tree *)t)->left) + count(((tree *)t)->right);
}

/* The workload: n trees of depth 12; returns a checksum. */
static uint64_t work(long n) {
    sgc_obj t = NULL;
    SGC_FRAME(&t);
    uint64_t sum = 0;
    for (long i = 0; i < n; i++) {
        t = build(12);
        sum += count(t);
        if (i % 8 == 0)
            keep[i / 8 % 16] = t;
    }
    return sum;
}

static volatile sig_atomic_t empty_count;
static void counting_handler(int sig) {
    (void)sig;
    empty_count++;
}

/* The floor for the overhead: a timer like the sampler's (wall clock, to
 * this thread) whose handler only counts.  Restores the sampler's handler
 * afterwards. */
static timer_t empty_timer;
static struct sigaction saved_action;
static int empty_timer_start(unsigned hz) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = counting_handler;
    sa.sa_flags = SA_RESTART;
    if (sigaction(SIGPROF, &sa, &saved_action) != 0)
        return -1;
    struct sigevent sev;
    memset(&sev, 0, sizeof sev);
    sev.sigev_notify = SIGEV_THREAD_ID;
    sev.sigev_signo = SIGPROF;
    sev._sigev_un._tid = tid;
    if (timer_create(CLOCK_MONOTONIC, &sev, &empty_timer) != 0)
        return -1;
    struct itimerspec its;
    its.it_interval.tv_sec = 0;
    its.it_interval.tv_nsec = 1000000000L / hz;
    its.it_value = its.it_interval;
    return timer_settime(empty_timer, 0, &its, NULL);
}
static void empty_timer_stop(void) {
    timer_delete(empty_timer);
    sigaction(SIGPROF, &saved_action, NULL);
}

static int overhead(long n, int rounds) {
    T_TREE = sgc_type_register(&(sgc_type){"tree", sizeof(tree), 3, SGC_VAR_NONE});
    for (int i = 0; i < 16; i++)
        sgc_global_root(&keep[i]);
    /* Configurations: off, the sampler at 100/1000/2000 Hz, and an empty
     * (counting) handler at 1000 and 2000 Hz: the floor any signal-based
     * sampler pays on this machine, including what being interrupted more
     * often costs a process on a busy machine. */
    unsigned hz[] = {0, 100, 1000, 2000, 1000, 2000};
    int empty[] = {0, 0, 0, 0, 1, 1};
    enum { NC = 6 };
    double *t[NC], *rate[NC];
    for (int c = 0; c < NC; c++) {
        t[c] = calloc((size_t)rounds, sizeof(double));
        rate[c] = calloc((size_t)rounds, sizeof(double));
    }
    uint64_t expect = 0;
    work(n / 4 + 1); /* warm up the heap */
    for (int r = 0; r < rounds; r++)
        for (int c = 0; c < NC; c++) {
            sgc_collect_major();
            sgc_stats a, b;
            sgc_get_stats(&a);
            empty_count = 0;
            uint64_t c0 = cpu_ns(), w0 = wall_ns();
            if (empty[c] ? empty_timer_start(hz[c]) != 0
                         : hz[c] && sgc_time_sampling_start(hz[c], SGC_CLOCK_WALL) != 0) {
                fprintf(stderr, "time-bench: cannot start the timer\n");
                return 1;
            }
            uint64_t sum = work(n);
            if (empty[c])
                empty_timer_stop();
            else if (hz[c])
                sgc_time_sampling_stop();
            uint64_t c1 = cpu_ns(), w1 = wall_ns();
            sgc_get_stats(&b);
            if (!expect)
                expect = sum;
            if (sum != expect) {
                fprintf(stderr, "time-bench: wrong checksum %llu (expected %llu)\n", (unsigned long long)sum,
                        (unsigned long long)expect);
                return 1;
            }
            t[c][r] = (double)(c1 - c0) / 1e9;
            uint64_t signals = empty[c] ? (uint64_t)empty_count : b.time_samples - a.time_samples;
            rate[c][r] = (double)signals / ((double)(w1 - w0) / 1e9);
        }
    double base = median_double(t[0], rounds);
    printf("time sampling overhead, %ld trees of depth 12 per run, median CPU time of %d interleaved rounds\n", n,
           rounds);
    printf("  %-14s %6s %10s %10s %12s %12s\n", "handler", "hz", "cpu s", "overhead", "achieved Hz", "normalized");
    for (int c = 0; c < NC; c++) {
        double m = median_double(t[c], rounds), rt = median_double(rate[c], rounds);
        double ov = m / base;
        if (hz[c])
            printf("  %-14s %6u %10.3f %9.2f%% %12.1f %12.4f\n", empty[c] ? "empty (floor)" : "sgc sampler", hz[c], m,
                   (ov - 1) * 100, rt, rt > 0 ? 1 + (ov - 1) * 1000 / rt : 0);
        else
            printf("  %-14s %6s %10.3f %10s %12s %12s\n", "none", "off", m, "-", "-", "-");
    }
    for (int c = 0; c < NC; c++) {
        free(t[c]);
        free(rate[c]);
    }
    return 0;
}

int main(int argc, char **argv) {
    if (argc < 2 || (strcmp(argv[1], "cost") && strcmp(argv[1], "overhead"))) {
        fprintf(stderr, "usage: time-bench cost|overhead [--profile FILE] [--rounds N] [--signals N] [--work N]\n");
        return 2;
    }
    int rounds = 7;
    long signals = 20000, trees = 2000;
    for (int i = 2; i < argc; i++) {
        if (!strcmp(argv[i], "--profile") && i + 1 < argc)
            setenv("SGC_PROFILE", argv[++i], 1);
        else if (!strcmp(argv[i], "--rounds") && i + 1 < argc && atoi(argv[i + 1]) > 0)
            rounds = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--signals") && i + 1 < argc && atol(argv[i + 1]) >= 64)
            signals = atol(argv[++i]) / 64 * 64;
        else if (!strcmp(argv[i], "--work") && i + 1 < argc && atol(argv[i + 1]) > 0)
            trees = atol(argv[++i]);
        else {
            fprintf(stderr, "time-bench: bad argument '%s'\n", argv[i]);
            return 2;
        }
    }
    unsetenv("SGC_TIME_HZ");
    unsetenv("SGC_ALLOC_PERIOD");
    sgc_init();
    pid = getpid();
    tid = (pid_t)syscall(SYS_gettid);
    SGC_FRAME();
    return !strcmp(argv[1], "cost") ? cost(signals, rounds) : overhead(trees, rounds);
}
