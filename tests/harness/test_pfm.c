/* test_pfm.c - the counter module against the software events, the
 * unsupported path, and sw_exec's timeout and signal reporting. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../harness/sw_exec.h"
#include "../../harness/sw_pfm.h"

static int has_cpu_pmu(void) { return access("/sys/bus/event_source/devices/cpu", F_OK) == 0; }

Test(pfm, probe_software_supported_bogus_and_hardware) {
    char *names[] = {"perf::task-clock", "perf::page-faults", "perf::context-switches", "no-such-event-xyz", "cycles"};
    sw_counters c;
    sw_pfm_probe(&c, names, 5);
    cr_assert_eq(c.n, 5);
    for (int i = 0; i < 3; i++) {
        cr_assert(c.events[i].supported, "%s: %s", names[i], c.events[i].reason);
        cr_assert_null(c.events[i].reason);
        cr_assert_eq(c.events[i].attr.type, PERF_TYPE_SOFTWARE);
    }
    cr_assert(!c.events[3].supported);
    cr_assert(strstr(c.events[3].reason, "libpfm4 cannot encode"), "%s", c.events[3].reason);
    if (!has_cpu_pmu()) {
        /* No hardware PMU (this kind of machine): cycles must be unsupported,
         * with perf_event_open's reason. */
        cr_assert(!c.events[4].supported);
        cr_assert(strstr(c.events[4].reason, "perf_event_open"), "%s", c.events[4].reason);
        cr_assert_eq(c.n_supported, 3);
    } else {
        cr_assert_eq(c.n_supported, 3 + c.events[4].supported);
    }
    sw_pfm_free(&c);
}

Test(pfm, scaling_by_enabled_over_running) {
    cr_assert_eq(sw_pfm_scale(1000, 200, 100), 2000.0);
    cr_assert_eq(sw_pfm_scale(1000, 300, 200), 1500.0);
    cr_assert_eq(sw_pfm_scale(7, 5, 5), 7.0);
    cr_assert_eq(sw_pfm_scale(0, 10, 3), 0.0);
    /* A count near 2^62 with a ratio of 3/2 must not overflow. */
    cr_assert_eq(sw_pfm_scale(1ull << 62, 3, 2), 6917529027641081856.0);
}

/* Runs /bin/sh -c script pinned to no CPU with the given counters. */
static void run_sh(const char *script, const sw_counters *c, double timeout, sw_exec_res *res) {
    char *argv[] = {"/bin/sh", "-c", (char *)script, NULL};
    char *envp[] = {"PATH=/usr/bin:/bin", NULL};
    sw_exec_req req = {.path = "/bin/sh", .argv = argv, .envp = envp, .cpu = -1, .timeout = timeout, .counters = c};
    cr_assert_eq(sw_exec_run(&req, res), 0);
}

Test(pfm, counts_the_child_from_exec) {
    char *names[] = {"perf::task-clock", "perf::page-faults", "cycles"};
    sw_counters c;
    sw_pfm_probe(&c, names, 3);
    sw_exec_res res;
    /* A loop of about 0.1 s of CPU in the shell. */
    run_sh("i=0; while [ $i -lt 100000 ]; do i=$((i+1)); done; echo checksum $i", &c, 30, &res);
    cr_assert(WIFEXITED(res.status) && WEXITSTATUS(res.status) == 0);
    cr_assert_str_eq(res.out.data, "checksum 100000\n");
    cr_assert_not_null(res.readings);
    const sw_reading *tc = &res.readings[0], *pf = &res.readings[1];
    cr_assert(tc->ok && pf->ok, "%s", res.counter_errors.data ? res.counter_errors.data : "");
    /* Software events run all the time: no scaling, raw kept. */
    cr_assert_eq(tc->time_enabled, tc->time_running);
    cr_assert_eq(tc->scaled, (double)tc->raw);
    cr_assert(pf->raw > 0);
    /* task-clock counts the child's CPU time, which wait4 reports too
     * (rusage ticks are coarse, so allow 20 ms either way). */
    double cpu_ns = (res.ru.ru_utime.tv_sec + res.ru.ru_stime.tv_sec) * 1e9 +
                    (res.ru.ru_utime.tv_usec + res.ru.ru_stime.tv_usec) * 1e3;
    cr_assert(tc->raw > 0.5 * cpu_ns - 2e7 && tc->raw < 1.5 * cpu_ns + 2e7, "task-clock %llu vs rusage %.0f",
              (unsigned long long)tc->raw, cpu_ns);
    /* Unsupported events get no reading at all (never a zero). */
    if (!c.events[2].supported)
        cr_assert(!res.readings[2].ok);
    cr_assert(res.wall_ns >= tc->raw / 2);
    sw_exec_res_free(&res);
    sw_pfm_free(&c);
}

Test(exec, timeout_signal_and_exec_failure) {
    sw_exec_res res;
    /* A 2 s timeout: the shell must have printed "started" before it is
     * killed, which takes it a millisecond of CPU, but on a busy machine a
     * new process can wait long for its first one.  The sleep outlasts any
     * plausible delay, so a run that was not killed shows in the wall time. */
    run_sh("echo started; exec sleep 300", NULL, 2, &res);
    cr_assert(res.timed_out);
    cr_assert(WIFSIGNALED(res.status) && WTERMSIG(res.status) == SIGKILL);
    cr_assert(res.wall_ns >= 2000000000ull && res.wall_ns < 120000000000ull, "wall %llu ns",
              (unsigned long long)res.wall_ns);
    sw_exec_req r1 = {.path = "/bin/sh", .timeout = 2};
    char *f = sw_exec_failure(&r1, &res);
    cr_assert_str_eq(f, "timed out after 2 s (killed)");
    free(f);
    char *tail = sw_exec_tail(&res, 5);
    cr_assert_str_eq(tail, "--- stdout (end) ---\nstarted\n");
    free(tail);
    sw_exec_res_free(&res);

    run_sh("kill -SEGV $$", NULL, 10, &res);
    f = sw_exec_failure(&r1, &res);
    cr_assert_str_eq(f, "killed by signal 11 (SIGSEGV)");
    free(f);
    sw_exec_res_free(&res);

    run_sh("echo oops >&2; exit 3", NULL, 10, &res);
    f = sw_exec_failure(&r1, &res);
    cr_assert_str_eq(f, "exit status 3");
    cr_assert_str_eq(res.err.data, "oops\n");
    free(f);
    sw_exec_res_free(&res);

    char *argv[] = {"/nonexistent/prog", NULL};
    char *envp[] = {NULL};
    sw_exec_req r2 = {.path = "/nonexistent/prog", .argv = argv, .envp = envp, .cpu = -1, .timeout = 5};
    cr_assert_eq(sw_exec_run(&r2, &res), -1);
    f = sw_exec_failure(&r2, &res);
    cr_assert_str_eq(f, "could not start /nonexistent/prog: execve: No such file or directory");
    free(f);
    sw_exec_res_free(&res);
}
