/* sw_exec.c - fork/exec of one workload run with counters and a timeout. */
#define _GNU_SOURCE
#include "sw_exec.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/close_range.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

/* Reads the last SW_EXEC_KEEP_BYTES of a memory file into b. */
static void slurp_tail(int fd, sw_buf *b) {
    off_t size = lseek(fd, 0, SEEK_END);
    if (size <= 0)
        return;
    off_t from = size > SW_EXEC_KEEP_BYTES ? size - SW_EXEC_KEEP_BYTES : 0;
    char chunk[16384];
    ssize_t n;
    while ((n = pread(fd, chunk, sizeof chunk, from)) > 0) {
        sw_buf_append(b, chunk, (size_t)n);
        from += n;
    }
}

/* In the child after fork: only async-signal-safe calls until execve. */
static void child(const sw_exec_req *req, pid_t parent, int go_rd, int err_wr, int out_fd, int err_fd) {
    int step = 0;
    char byte;
    setpgid(0, 0);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent)
        _exit(127); /* the harness died before we set the death signal */
    if (req->cpu >= 0) {
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(req->cpu, &set);
        if (sched_setaffinity(0, sizeof set, &set) != 0) {
            step = 1;
            goto fail;
        }
    }
    int null = open("/dev/null", O_RDONLY);
    if (null < 0 || dup2(null, 0) < 0 || dup2(out_fd, 1) < 0 || dup2(err_fd, 2) < 0) {
        step = 2;
        goto fail;
    }
    if (null > 2)
        close(null);
    if (req->no_aslr && personality((unsigned long)personality(0xffffffff) | ADDR_NO_RANDOMIZE) == -1) {
        step = 4;
        goto fail;
    }
    if (req->cwd && chdir(req->cwd) != 0) {
        step = 5;
        goto fail;
    }
    /* Nothing of the harness's signal state: default actions, an empty mask
     * (sigaction and sigprocmask are async-signal-safe). */
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    for (int sig = 1; sig < NSIG; sig++)
        if (sig != SIGKILL && sig != SIGSTOP)
            sigaction(sig, &dfl, NULL);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    /* Every descriptor above 2 closes at the exec: a file another thread
     * opened without O_CLOEXEC is not the workload's. */
    syscall(SYS_close_range, 3u, ~0u, CLOSE_RANGE_CLOEXEC);
    /* Wait until the parent has armed the counters (or gave up: EOF). */
    if (read(go_rd, &byte, 1) != 1)
        _exit(127);
    execve(req->path, req->argv, req->envp);
    step = 3;
fail:;
    int msg[2] = {step, errno};
    ssize_t ignored = write(err_wr, msg, sizeof msg);
    (void)ignored;
    _exit(127);
}

static const char *step_names[] = {
    "fork", "sched_setaffinity", "redirecting stdio", "execve", "personality(ADDR_NO_RANDOMIZE)", "chdir"};

/* Waits for the child's exit, polling its pidfd (-1: a blocking wait4
 * alone) until it exits, the timeout passes or a stop is requested (then
 * its group is killed); then reaps it into res (status, usage, wall time
 * from start) and kills anything it left in its group. */
static void wait_for_exit(const sw_exec_req *req, pid_t pid, int pidfd, uint64_t start, sw_exec_res *res) {
    uint64_t deadline = req->timeout > 0 ? start + (uint64_t)(req->timeout * 1e9) : 0;
    for (;;) {
        int wait_ms = -1;
        if (deadline) {
            uint64_t now = sw_now_ns();
            if (now >= deadline) {
                res->timed_out = 1;
                break;
            }
            wait_ms = (int)((deadline - now + 999999) / 1000000);
        }
        if (req->stop && *req->stop) {
            res->interrupted = 1;
            break;
        }
        /* A stop request interrupts poll only in the thread that takes the
         * signal; with runs in several threads, look again every 250 ms. */
        if (req->stop && (wait_ms < 0 || wait_ms > 250))
            wait_ms = 250;
        struct pollfd p = {.fd = pidfd, .events = POLLIN};
        int rc = pidfd >= 0 ? poll(&p, 1, wait_ms) : 1;
        if (rc > 0)
            break;
        if (rc < 0 && errno != EINTR)
            break; /* cannot wait in poll: fall back to a blocking wait4 */
    }
    if (res->timed_out || res->interrupted) {
        kill(-pid, SIGKILL);
        kill(pid, SIGKILL);
    }
    pid_t got;
    do
        got = wait4(pid, &res->status, 0, &res->ru);
    while (got < 0 && errno == EINTR);
    res->wall_ns = sw_now_ns() - start;
    kill(-pid, SIGKILL); /* anything the workload left behind in its group */
    if (pidfd >= 0)
        close(pidfd);
}

int sw_exec_run(const sw_exec_req *req, sw_exec_res *res) {
    memset(res, 0, sizeof *res);
    int go[2] = {-1, -1}, errp[2] = {-1, -1};
    int out_fd = memfd_create("sweep-stdout", MFD_CLOEXEC);
    int err_fd = memfd_create("sweep-stderr", MFD_CLOEXEC);
    if (out_fd < 0 || err_fd < 0 || pipe2(go, O_CLOEXEC) || pipe2(errp, O_CLOEXEC)) {
        res->exec_errno = errno;
        res->failed_step = "creating pipes and output files";
        goto cleanup_fds;
    }
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0) {
        res->exec_errno = errno;
        res->failed_step = "fork";
        goto cleanup_fds;
    }
    if (pid == 0)
        child(req, parent, go[0], errp[1], out_fd, err_fd);
    close(go[0]);
    close(errp[1]);
    go[0] = errp[1] = -1;
    setpgid(pid, pid); /* also here, so a kill of the group cannot race the child's own call */
    int pidfd = (int)syscall(SYS_pidfd_open, pid, 0);

    int *fds = NULL;
    if (req->counters && req->counters->n) {
        fds = ct_xmalloc((size_t)req->counters->n * sizeof *fds);
        sw_pfm_open(req->counters, pid, fds, &res->counter_errors);
    }

    uint64_t start = sw_now_ns();
    char byte = 'g';
    ssize_t wr = write(go[1], &byte, 1);
    (void)wr; /* if the child is already gone, wait4 below tells how */
    close(go[1]);
    go[1] = -1;

    wait_for_exit(req, pid, pidfd, start, res);
    int msg[2];
    if (read(errp[0], msg, sizeof msg) == (ssize_t)sizeof msg) {
        res->exec_errno = msg[1] ? msg[1] : EINVAL;
        res->failed_step = step_names[msg[0] >= 0 && msg[0] <= 5 ? msg[0] : 0];
    }
    if (fds) {
        res->readings = ct_xcalloc((size_t)req->counters->n, sizeof *res->readings);
        sw_pfm_read(req->counters, fds, res->readings, &res->counter_errors);
        free(fds);
    }
    slurp_tail(out_fd, &res->out);
    slurp_tail(err_fd, &res->err);

cleanup_fds:
    for (int i = 0; i < 2; i++) {
        if (go[i] >= 0)
            close(go[i]);
        if (errp[i] >= 0)
            close(errp[i]);
    }
    if (out_fd >= 0)
        close(out_fd);
    if (err_fd >= 0)
        close(err_fd);
    return res->exec_errno ? -1 : 0;
}

void sw_exec_res_free(sw_exec_res *res) {
    sw_buf_free(&res->out);
    sw_buf_free(&res->err);
    sw_buf_free(&res->counter_errors);
    free(res->readings);
    res->readings = NULL;
}

char *sw_exec_failure(const sw_exec_req *req, const sw_exec_res *res) {
    if (res->exec_errno)
        return sw_xasprintf("could not start %s: %s: %s", req->path, res->failed_step, strerror(res->exec_errno));
    if (res->interrupted)
        return ct_xstrdup("interrupted (the sweep was stopped)");
    if (res->timed_out)
        return sw_xasprintf("timed out after %.3g s (killed)", req->timeout);
    if (WIFSIGNALED(res->status)) {
        int sig = WTERMSIG(res->status);
        const char *name = sigabbrev_np(sig);
        return sw_xasprintf("killed by signal %d (SIG%s)%s", sig, name ? name : "?",
                            WCOREDUMP(res->status) ? ", core dumped" : "");
    }
    if (WIFEXITED(res->status) && WEXITSTATUS(res->status) != 0)
        return sw_xasprintf("exit status %d", WEXITSTATUS(res->status));
    return NULL;
}

/* Appends the last max_lines lines of s to b. */
static void tail_lines(sw_buf *b, const sw_buf *s, int max_lines) {
    if (!s->len)
        return;
    size_t end = s->len;
    while (end > 0 && s->data[end - 1] == '\n')
        end--;
    size_t from = end;
    int lines = 0;
    while (from > 0) {
        if (s->data[from - 1] == '\n' && ++lines == max_lines)
            break;
        from--;
    }
    /* Long lines would make the tail huge: keep its last 2000 bytes. */
    if (end - from > 2000)
        from = end - 2000;
    sw_buf_append(b, s->data + from, end - from);
    sw_buf_puts(b, "\n");
}

char *sw_exec_tail(const sw_exec_res *res, int max_lines) {
    sw_buf b = {0};
    if (res->out.len) {
        sw_buf_puts(&b, "--- stdout (end) ---\n");
        tail_lines(&b, &res->out, max_lines);
    }
    if (res->err.len) {
        sw_buf_puts(&b, "--- stderr (end) ---\n");
        tail_lines(&b, &res->err, max_lines);
    }
    if (!b.data)
        sw_buf_puts(&b, "(no output)");
    return b.data;
}
