/* sw_exec.h - runs one workload process: fork, pin, count, exec, capture,
 * time out, reap.
 *
 * Invariants:
 *  - The child is in its own process group, pinned to the requested CPU, has
 *    stdin from /dev/null and stdout/stderr in anonymous memory files, and
 *    dies with the harness (PR_SET_PDEATHSIG), so a killed sweep leaves no
 *    workload running.
 *  - The child waits on a pipe until the parent has opened the counters on
 *    it; the wall clock starts when the parent releases it and stops when the
 *    kernel reports its exit (pidfd), so wall_ns covers exec, the workload and
 *    its exit, and nothing of the harness's own setup.
 *  - A run that outlives its timeout is killed (its whole process group) and
 *    reported as timed out; an exec failure is reported with its errno.
 *  - With no_aslr the child sets personality(ADDR_NO_RANDOMIZE) before its
 *    exec (inherited by whatever it execs), so addresses repeat run to run.
 *  - The child inherits nothing of the harness's own state but what the
 *    request says: every signal has its default action and none is blocked
 *    (the harness ignores SIGPIPE, a shell may ignore SIGHUP, a pool thread
 *    may block signals), no descriptor but 0-2 survives the exec (another
 *    thread's open file included), and with cwd it starts in that directory.
 *  - sw_exec_run may be called from several threads at once (the simulated
 *    backend's parallel runs): it keeps no state between calls, and every
 *    descriptor it creates is close-on-exec.
 *  - When *stop becomes non-zero (a signal handler sets it), the run in flight
 *    is killed and reported as interrupted.
 */
#ifndef SW_EXEC_H
#define SW_EXEC_H

#include <signal.h>
#include <stdint.h>
#include <sys/resource.h>
#include "sw_pfm.h"
#include "sw_util.h"

/* How much of each output stream is kept (its end, where checksums are). */
#define SW_EXEC_KEEP_BYTES (256 * 1024)

typedef struct sw_exec_req {
    const char *path;            /* program to exec */
    char *const *argv;           /* its arguments, argv[0] included */
    char *const *envp;           /* its whole environment */
    int cpu;                     /* CPU to pin it to; -1 = not pinned */
    double timeout;              /* seconds; <= 0 = none */
    const sw_counters *counters; /* events to count, or NULL */
    volatile sig_atomic_t *stop; /* non-zero = kill the run and return (may be NULL) */
    int no_aslr;                 /* start it with address space randomization off */
    const char *cwd;             /* the directory it starts in; NULL = the harness's */
} sw_exec_req;

typedef struct sw_exec_res {
    int exec_errno;          /* != 0 if fork or exec failed (nothing ran) */
    const char *failed_step; /* which step failed when exec_errno != 0 */
    int timed_out;           /* killed after the timeout */
    int interrupted;         /* killed because *stop was set */
    int status;              /* wait status (valid when exec_errno == 0) */
    uint64_t wall_ns;        /* CLOCK_MONOTONIC from release to exit */
    struct rusage ru;        /* from wait4 */
    sw_buf out;              /* the end of stdout (at most SW_EXEC_KEEP_BYTES) */
    sw_buf err;              /* the end of stderr */
    sw_reading *readings;    /* counters->n readings (NULL without counters) */
    sw_buf counter_errors;   /* problems opening or reading counters */
} sw_exec_res;

/* Runs the request to completion and fills res (which the caller frees with
 * sw_exec_res_free).  Returns 0 if the process ran (whatever its outcome),
 * -1 if it could not be started (res->exec_errno, res->failed_step). */
int sw_exec_run(const sw_exec_req *req, sw_exec_res *res);
void sw_exec_res_free(sw_exec_res *res);

/* Describes how the run ended in words ("exit status 3", "killed by signal
 * 11 (SIGSEGV)", "timed out after 2 s"...) into a fresh string, or NULL when
 * it exited with status 0. */
char *sw_exec_failure(const sw_exec_req *req, const sw_exec_res *res);
/* The last max_lines lines of stdout and stderr together (fresh string). */
char *sw_exec_tail(const sw_exec_res *res, int max_lines);

#endif /* SW_EXEC_H */
