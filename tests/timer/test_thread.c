/* test_thread.c - Criterion tests of the sampler thread (SGC_TIME_MODE=thread):
 * every recorded stack is one the program had, even while it pushes and
 * pops as fast as it can; exact stacks; start/stop; accounting; agreement
 * with the signal sampler on the same program. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sgc_internal.h"
#include "sgc_profile.h"
#include "sgc_profread.h"
#include "sgc_timer.h"

static char path[256];

static void start(const char *tag) {
    snprintf(path, sizeof path, "%s/sgc-test-thread-%d-%s.prof", P_tmpdir, (int)getpid(), tag);
    setenv("SGC_PROFILE", path, 1);
    unsetenv("SGC_ALLOC_PERIOD");
    unsetenv("SGC_TIME_HZ");
    unsetenv("SGC_TIME_MODE");
    unsetenv("SGC_STATS");
    sgc_init();
}

static void load(sgc_pr_reader *r) {
    cr_assert_eq(sgc_pr_open(r, path), 0, "open: %s", r->err);
    cr_assert_eq(sgc_pr_load(r), 0, "load: %s", r->err);
}

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int threads_in_process(void) {
    DIR *d = opendir("/proc/self/task");
    cr_assert_not_null(d);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        n += e->d_name[0] != '.';
    closedir(d);
    return n;
}

/* The threads listed once those the runtime joined are gone. pthread_join
 * returns when the kernel clears the thread's tid, which it does before it
 * removes the task from /proc/self/task: on a loaded machine a joined thread
 * stays listed for a moment. A thread the runtime did not join stays for good,
 * so waiting up to 5 s for the count to fall to `want` still fails on a leak
 * (500 restarts that leaked would leave up to 500). */
static int threads_settled(int want) {
    int n = threads_in_process();
    for (int i = 0; i < 5000 && n > want; i++) {
        struct timespec ms = {0, 1000000};
        nanosleep(&ms, NULL);
        n = threads_in_process();
    }
    return n;
}

/* ---- Consistency under push/pop stress ---------------------------------- */

#include "thread_families.h"

static volatile uint64_t sink;

Test(thread, every_stack_is_one_the_program_had, .timeout = 120) {
    start("stress");
    setup_families();
    sgc_stats a, b;
    SGC_FRAME_FN(&f_root);
    sgc_get_stats(&a);
    cr_assert_eq(sgc_time_sampling_start_mode(20000, SGC_CLOCK_WALL, SGC_TIME_THREAD), 0);
    double t0 = now_s();
    uint64_t rounds = 0;
    while (now_s() - t0 < 2.0)
        for (int i = 0; i < 64; i++, rounds++)
            walk(1, (int)(rounds & 1));
    sgc_time_sampling_stop();
    sgc_get_stats(&b);
    uint64_t taken = b.time_samples - a.time_samples;
    uint64_t torn = b.time_snapshots_torn - a.time_snapshots_torn;
    uint64_t missed = b.time_samples_missed - a.time_samples_missed;
    double periods = (double)(b.time_sampling_ns - a.time_sampling_ns) / 1e9 * 20000;
    fprintf(stderr,
            "note: thread mode under push/pop stress: %llu rounds, %llu samples, %llu retried copies, %llu torn, "
            "%llu missed, %.0f periods, sampler on CPU %d\n",
            (unsigned long long)rounds, (unsigned long long)taken, (unsigned long long)b.time_snapshot_retries,
            (unsigned long long)torn, (unsigned long long)missed, periods, sgc__timer_thread_cpu());
    /* Every period is a sample, a torn period or a missed one. */
    double accounted = (double)(taken + torn + missed);
    cr_assert(accounted >= periods - 2 && accounted <= periods + 1, "%.0f periods, %.0f accounted for", periods,
              accounted);
    cr_assert_eq(b.time_samples_written + b.time_samples_dropped, b.time_samples);
    cr_assert_eq(sgc__timer_buffered(), 0);
    sgc_shutdown();
    sgc_pr_reader r;
    load(&r);
    cr_assert_eq(r.ntimes, b.time_samples_written);
    size_t bad = 0;
    char why[160], first[200] = "";
    for (size_t i = 0; i < r.ntimes; i++)
        if (!valid_stack(&r, r.times[i].node, why, sizeof why) && bad++ == 0)
            snprintf(first, sizeof first, "sample %zu: %s", i, why);
    cr_assert_eq(bad, 0, "%zu of %zu samples have a stack the program never had; first: %s", bad, r.ntimes, first);
    sgc_pr_close(&r);
    unlink(path);
}

/* ---- Exact stacks -------------------------------------------------------- */

static sgc_func f_outer = {"outer", 0}, f_inner = {"inner", 0}, f_rec = {"rec", 0};

static void spin_for(double secs) {
    double end = now_s() + secs;
    uint64_t x = 1;
    while (now_s() < end)
        for (int i = 0; i < 1000; i++)
            x = x * 6364136223846793005ull + 1442695040888963407ull;
    sink = x;
}

/* Burns CPU until n time samples have been taken since start-up: a count,
 * so a busy machine only makes it take longer. */
static void spin_until_samples(uint64_t n) {
    uint64_t x = 1;
    while (sgc__timer_taken() < n)
        for (int i = 0; i < 1000; i++)
            x = x * 6364136223846793005ull + 1442695040888963407ull;
    sink = x;
}

static void deep(int n, uint64_t samples) {
    SGC_FRAME_FN(&f_rec);
    if (n > 1) {
        deep(n - 1, samples);
        return;
    }
    cr_assert_eq(sgc_time_sampling_start_mode(2000, SGC_CLOCK_WALL, SGC_TIME_THREAD), 0);
    spin_until_samples(samples / 2);
    sgc__timer_drain(); /* interns this stack: later copies are short */
    spin_until_samples(samples);
    sgc_time_sampling_stop();
}

Test(thread, samples_carry_the_exact_stack, .timeout = 120) {
    start("stack");
    SGC_FRAME_FN(&f_outer);
    {
        SGC_FRAME_FN(&f_inner);
        deep(300, 400); /* 400 samples: 0.2 s on an idle machine */
    }
    sgc_stats s;
    sgc_get_stats(&s);
    sgc_shutdown();
    sgc_pr_reader r;
    load(&r);
    cr_assert_eq(r.ntimes, s.time_samples_written);
    cr_assert_geq(r.ntimes, 400);
    cr_assert_eq(s.time_snapshots_torn, 0); /* nothing is popped while it samples */
    for (size_t i = 0; i < r.ntimes; i++) {
        uint32_t depth = 0, n = r.times[i].node, rec = 0;
        for (; n; n = r.node_parent[n], depth++)
            rec += !strcmp(sgc_pr_string(&r, r.node_func[n]), "rec");
        cr_assert_eq(depth, 302, "sample %zu has depth %u", i, depth);
        cr_assert_eq(rec, 300);
        cr_assert_eq(r.times[i].phase, SGC_PHASE_MUTATOR);
    }
    sgc_pr_close(&r);
    unlink(path);
}

/* ---- Start and stop ------------------------------------------------------ */

Test(thread, start_stop_a_thousand_times) {
    start("restart");
    int threads0 = threads_in_process();
    sgc_stats s;
    for (int i = 0; i < 1000; i++) {
        cr_assert_eq(sgc_time_sampling_start_mode(20000 + (unsigned)i, SGC_CLOCK_WALL, SGC_TIME_THREAD), 0);
        if (i % 10 == 0)
            spin_for(0.001);
        if (i % 2) {
            sgc_time_sampling_stop(); /* otherwise the next start stops it */
            cr_assert_eq(sgc__timer_buffered(), 0);
        }
    }
    sgc_time_sampling_stop();
    cr_assert_eq(threads_settled(threads0), threads0, "a sampler thread outlived its stop");
    sgc_get_stats(&s);
    cr_assert_eq(s.time_samples_written + s.time_samples_dropped, s.time_samples);
    /* Thread mode refuses the CPU clock; signal mode still works after. */
    errno = 0;
    cr_assert_eq(sgc_time_sampling_start_mode(1000, SGC_CLOCK_CPU, SGC_TIME_THREAD), -1);
    cr_assert_eq(errno, EINVAL);
    cr_assert_eq(sgc_time_sampling_start_mode(1000, SGC_CLOCK_WALL, (sgc_time_mode)9), -1);
    cr_assert_eq(sgc_time_sampling_start_mode(1000, SGC_CLOCK_WALL, SGC_TIME_SIGNAL), 0);
    spin_for(0.05);
    sgc_time_sampling_stop();
    sgc_shutdown();
    sgc_pr_reader r;
    load(&r);
    sgc_get_stats(&s);
    cr_assert_eq(r.ntimes, s.time_samples_written);
    sgc_pr_close(&r);
    unlink(path);
}

/* A forked child has no sampler thread; stopping in the child must not wait
 * for the parent's. */
Test(thread, fork_leaves_the_child_without_a_thread, .timeout = 30) {
    start("fork");
    cr_assert_eq(sgc_time_sampling_start_mode(1000, SGC_CLOCK_WALL, SGC_TIME_THREAD), 0);
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) {
        sgc_time_sampling_stop();
        _exit(threads_in_process() == 1 ? 0 : 3);
    }
    int status;
    cr_assert_eq(waitpid(pid, &status, 0), pid);
    cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child status %d", status);
    sgc_time_sampling_stop();
    sgc_shutdown();
    unlink(path);
}

/* ---- Agreement with the signal sampler ------------------------------------ */

/* Three functions that run for 5, 3 and 2 ms of this thread's CPU time in
 * turn: half, 30% and 20% of its CPU time, and, since the machine
 * interrupts it at random moments, of its wall time in expectation too,
 * whatever else runs. */
/* The functions of each mode have names of their own, so one profile holds
 * both runs. */
static sgc_func f_share[2][3] = {{{"five_s", 0}, {"three_s", 0}, {"two_s", 0}},
                                 {{"five_t", 0}, {"three_t", 0}, {"two_t", 0}}};

static double thread_cpu_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void hold(sgc_func *fn, double secs) {
    SGC_FRAME_FN(fn);
    double end = thread_cpu_s() + secs;
    uint64_t x = 1;
    while (thread_cpu_s() < end)
        for (int i = 0; i < 1000; i++)
            x = x * 6364136223846793005ull + 1442695040888963407ull;
    sink = x;
}

static void share_run(sgc_time_mode mode, double secs) {
    SGC_FRAME_FN(&f_root);
    cr_assert_eq(sgc_time_sampling_start_mode(1000, SGC_CLOCK_WALL, mode), 0);
    double t0 = thread_cpu_s();
    while (thread_cpu_s() - t0 < secs) {
        hold(&f_share[mode][0], 0.005);
        hold(&f_share[mode][1], 0.003);
        hold(&f_share[mode][2], 0.002);
    }
    sgc_time_sampling_stop();
}

/* One attempt: both modes on the same program, the chi-square statistic
 * of homogeneity of their 2 x 3 table (df 2), and whether each mode is
 * within 5 standard errors of the true shares.  Returns 1 if all holds. */
static int agreement_attempt(int attempt) {
    double sig[3] = {0}, thr[3] = {0};
    /* Each attempt is a fresh process: a runtime starts once per process. */
    snprintf(path, sizeof path, "%s/sgc-test-thread-%d-share%d.prof", P_tmpdir, (int)getpid(), attempt);
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) {
        setenv("SGC_PROFILE", path, 1);
        unsetenv("SGC_ALLOC_PERIOD");
        unsetenv("SGC_TIME_HZ");
        unsetenv("SGC_TIME_MODE");
        unsetenv("SGC_STATS");
        sgc_init();
        share_run(SGC_TIME_SIGNAL, 1.5);
        share_run(SGC_TIME_THREAD, 1.5);
        sgc_shutdown();
        _exit(0);
    }
    int status;
    cr_assert_eq(waitpid(pid, &status, 0), pid);
    cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "attempt %d: child status %d", attempt, status);
    sgc_pr_reader r;
    load(&r);
    for (size_t i = 0; i < r.ntimes; i++) {
        const char *leaf = sgc_pr_string(&r, r.node_func[r.times[i].node]);
        for (int m = 0; m < 2; m++)
            for (int j = 0; j < 3; j++)
                if (!strcmp(leaf, f_share[m][j].name))
                    (m ? thr : sig)[j]++;
    }
    sgc_pr_close(&r);
    unlink(path);
    double rs = sig[0] + sig[1] + sig[2], rt = thr[0] + thr[1] + thr[2], chi2 = 0;
    if (rs < 100 || rt < 100) {
        fprintf(stderr, "note: attempt %d: too few samples (signal %.0f, thread %.0f)\n", attempt, rs, rt);
        return 0;
    }
    for (int j = 0; j < 3; j++) {
        double col = sig[j] + thr[j];
        double es = col * rs / (rs + rt), et = col * rt / (rs + rt);
        chi2 += (sig[j] - es) * (sig[j] - es) / es + (thr[j] - et) * (thr[j] - et) / et;
    }
    fprintf(stderr,
            "note: attempt %d: shares five/three/two: signal %.3f %.3f %.3f (%.0f), thread %.3f %.3f %.3f (%.0f), "
            "chi2 %.2f\n",
            attempt, sig[0] / rs, sig[1] / rs, sig[2] / rs, rs, thr[0] / rt, thr[1] / rt, thr[2] / rt, rt, chi2);
    int ok = chi2 < 18.42;
    const double truth[3] = {0.5, 0.3, 0.2};
    for (int j = 0; j < 3; j++) {
        double se_s = sqrt(truth[j] * (1 - truth[j]) / rs), se_t = sqrt(truth[j] * (1 - truth[j]) / rt);
        ok &= fabs(sig[j] / rs - truth[j]) < 5 * se_s + 0.01;
        ok &= fabs(thr[j] / rt - truth[j]) < 5 * se_t + 0.01;
    }
    return ok;
}

/* The two samplers agree: the chi-square test of homogeneity (df 2) below
 * 18.42, its 1 - 1e-4 quantile, and both modes near the true shares.  The
 * test assumes independent samples; on a heavily loaded machine the
 * program is descheduled in bursts of milliseconds, which clusters the
 * samples, so up to three attempts are made: a sampler that is really
 * biased fails all three. */
Test(thread, agrees_with_the_signal_sampler, .timeout = 180) {
    int ok = 0;
    for (int attempt = 1; attempt <= 3 && !ok; attempt++)
        ok = agreement_attempt(attempt);
    cr_assert(ok, "the signal and thread samplers disagree on three attempts (see the notes above)");
}

/* ---- Settings ------------------------------------------------------------- */

static int settings_exit(const char *mode, const char *clock) {
    pid_t pid = fork();
    if (pid == 0) {
        setenv("SGC_TIME_MODE", mode, 1);
        if (clock) {
            setenv("SGC_TIME_CLOCK", clock, 1);
            setenv("SGC_TIME_HZ", "100", 1); /* a clock without a rate is refused */
        } else {
            unsetenv("SGC_TIME_CLOCK");
        }
        freopen("/dev/null", "w", stderr);
        sgc__settings_load();
        _exit(sgc__settings.time_mode == SGC_TIME_THREAD ? 10 : 11);
    }
    int status;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

Test(thread, settings) {
    cr_assert_eq(settings_exit("thread", NULL), 10);
    cr_assert_eq(settings_exit("signal", NULL), 11);
    cr_assert_eq(settings_exit("thread", "wall"), 10);
    cr_assert_eq(settings_exit("thread", "cpu"), 2);
    cr_assert_eq(settings_exit("threads", NULL), 2);
    cr_assert_eq(settings_exit("", NULL), 2);
}
