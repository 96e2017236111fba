/* thread_race.c - the sampler thread under ThreadSanitizer (and ASan+UBSan):
 * push/pop stress with the sampler thread at 20 kHz, every recorded stack
 * checked; 300 starts and stops; a fork while the thread runs.  A plain
 * program, not a Criterion test, because Criterion's process arena cannot
 * start under ThreadSanitizer.  Exit 0 if every check holds, 1 if one does
 * not; a report from a sanitizer ends it with its own status. */
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sgc_timer.h"
#include "thread_families.h"

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int fail(const char *what) {
    fprintf(stderr, "thread_race: FAIL: %s\n", what);
    return 1;
}

int main(int argc, char **argv) {
    double secs = argc > 1 ? atof(argv[1]) : 1.0;
    char path[256];
    snprintf(path, sizeof path, "%s/sgc-thread-race-%d.prof", P_tmpdir, (int)getpid());
    setenv("SGC_PROFILE", path, 1);
    sgc_init();
    setup_families();
    {
        SGC_FRAME_FN(&f_root);
        if (sgc_time_sampling_start_mode(20000, SGC_CLOCK_WALL, SGC_TIME_THREAD) != 0)
            return fail("start");
        double t0 = now_s();
        uint64_t rounds = 0;
        while (now_s() - t0 < secs)
            for (int i = 0; i < 16; i++, rounds++)
                walk(1, (int)(rounds & 1));
        pid_t pid = fork();
        if (pid == 0) {
            sgc_time_sampling_stop(); /* no thread in the child: must not wait */
            _exit(0);
        }
        int status;
        if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
            return fail("fork while the sampler thread runs");
        sgc_time_sampling_stop();
        for (int i = 0; i < 300; i++) {
            if (sgc_time_sampling_start_mode(10000 + (unsigned)i, SGC_CLOCK_WALL, SGC_TIME_THREAD) != 0)
                return fail("restart");
            walk(1, i & 1); /* every stack of the program starts at depth 1 */
            if (i % 2)
                sgc_time_sampling_stop();
        }
        sgc_time_sampling_stop();
        fprintf(stderr, "thread_race: %llu rounds\n", (unsigned long long)rounds);
    }
    sgc_stats s;
    sgc_get_stats(&s);
    if (s.time_samples_written + s.time_samples_dropped != s.time_samples || sgc__timer_buffered() != 0)
        return fail("accounting");
    sgc_shutdown();
    sgc_pr_reader r;
    if (sgc_pr_open(&r, path) != 0 || sgc_pr_load(&r) != 0)
        return fail(r.err);
    if (r.ntimes != s.time_samples_written)
        return fail("profile and stats disagree");
    size_t bad = 0;
    char why[160];
    for (size_t i = 0; i < r.ntimes; i++)
        if (!valid_stack(&r, r.times[i].node, why, sizeof why) && bad++ == 0)
            fprintf(stderr, "thread_race: sample %zu: %s\n", i, why);
    fprintf(stderr, "thread_race: %zu samples, %llu retried copies, %llu torn, %zu impossible\n", r.ntimes,
            (unsigned long long)s.time_snapshot_retries, (unsigned long long)s.time_snapshots_torn, bad);
    sgc_pr_close(&r);
    unlink(path);
    return bad ? fail("stacks the program never had") : 0;
}
