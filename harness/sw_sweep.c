/* sw_sweep.c - build/bin/sweep: plans, calibrates, runs and records a sweep. */
#define _GNU_SOURCE
#include "../contracts/ct_out.h"
#include "sw_db.h"
#include "sw_exec.h"
#include "sw_adapt.h"
#include "sw_calib.h"
#include "sw_cmd.h"
#include "sw_hash.h"
#include "sw_meta.h"
#include "sw_noise.h"
#include "sw_opts.h"
#include "sw_pfm.h"
#include "sw_plan.h"
#include "sw_pool.h"
#include "sw_run.h"
#include "sw_schedcheck.h"
#include "sw_shard.h"
#include "sw_sim.h"
#include "sw_util.h"
#include "sw_verify.h"
#include "sw_watch.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Set by SIGINT/SIGTERM/SIGHUP: the run in flight is killed, nothing of it
 * is stored, and the sweep stops cleanly (resumable). */
static volatile sig_atomic_t stop_signal;

static void on_stop(int sig) { stop_signal = sig; }

/* stop_signal's value when a file the sweep runs changed (files_unchanged):
 * the sweep stops as on a signal, and says why. */
enum { STOP_CHANGED = -1 };

/* The state of one sweep invocation. */
typedef struct sweep {
    sw_opts o;            /* settings (the stored ones on --resume) */
    char *dir;            /* results/<sweep-id> */
    sw_db db;             /* its results.db */
    sw_counters counters; /* probed events */
    char **workloads;     /* workloads of the plan */
    int n_workloads;
    sw_cell *cells; /* the plan's cells */
    int n_cells;
    sw_runner runner;     /* how runs are started */
    sw_runner sim_runner; /* how simulated runs are started (under valgrind) */
    char *tmp;            /* private temporary directory */
    int live;             /* live progress line on stderr */
    uint64_t t_start;     /* monotonic start of this invocation */
    uint64_t *overheads;  /* harness time per run incl. commit */
    int n_overheads;
    int resuming;         /* --resume: the directory and its settings exist */
    int cpus;             /* the CPUs the sweep may use (its affinity), for the time modes' default */
    char *time_modes_why; /* how the time modes were chosen (meta time_modes_reason) */
    char *levels_why;     /* --levels-from: the processes and blocks chosen, and why (meta levels) */
    int progress_opt;     /* --progress (1), --no-progress (0), neither (-1) */
    char *valgrind;       /* the valgrind program (simulated part), or NULL */
    double cpu_wait;      /* seconds waited for the CPU lock */
    sw_calib *cal;        /* calibration units of the cells */
    int n_cal;
    int *unit_of;         /* cell index -> its unit in cal */
    int total;            /* runs in the schedule (0 until the plan is stored) */
    int done;             /* of them recorded */
    int failed;           /* of them failed */
    sw_calib_ctx cx;      /* calibration's view of the sweep (calib_ctx) */
    sw_watch watch;       /* the files the runs depend on, as recorded at the start */
    char *changed_before; /* the run before which one was found changed, or NULL */
} sweep;

static sweep *current; /* for the exit hook */

static int files_unchanged(sweep *s, const char *workload, const char *what, int seq, int round);

/* Removes the private temporary directory and what runs left in it (exit
 * hook and normal end).  Only this sweep's files live there. */
static void cleanup_tmp(void) {
    if (!current || !current->tmp)
        return;
    char *dir = current->tmp;
    current->tmp = NULL;
    DIR *d = opendir(dir);
    if (d) {
        struct dirent *e;
        while ((e = readdir(d)))
            if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
                char *path = sw_xasprintf("%s/%s", dir, e->d_name);
                unlink(path);
                free(path);
            }
        closedir(d);
    }
    rmdir(dir);
    free(dir);
}

/* Exit hook of a fatal error once results.db exists (a full disk, say): the
 * temporary directory goes, the database is left consistent and marked
 * interrupted, runs.csv is written if it can be, and the --resume command is
 * printed. */
static void on_fatal(void) {
    cleanup_tmp();
    if (current && sw_db_is_open(&current->db) && current->dir)
        sw_db_salvage(&current->db, current->dir);
}

/* ---- Progress ------------------------------------------------------------ */

static void fmt_duration(char *buf, size_t size, double secs) {
    long s = (long)(secs + 0.5);
    if (s >= 3600)
        snprintf(buf, size, "%ldh%02ldm", s / 3600, s / 60 % 60);
    else if (s >= 60)
        snprintf(buf, size, "%ldm%02lds", s / 60, s % 60);
    else
        snprintf(buf, size, "%lds", s);
}

/* Prints progress: a live line on a terminal, a plain line every 10 s or on
 * demand otherwise. */
static void progress(sweep *s, int done, int total, int failed, const char *label, int force) {
    static uint64_t last_plain;
    static int last_done = -1, last_failed = -1; /* of the last plain line */
    static int started_done = -1;
    static uint64_t started_at;
    uint64_t now = sw_now_ns();
    if (started_done < 0) {
        started_done = done;
        started_at = now;
    }
    double elapsed = (double)(now - s->t_start) / 1e9;
    double rate_elapsed = (double)(now - started_at) / 1e9;
    char el[32], eta[32] = "?";
    fmt_duration(el, sizeof el, elapsed);
    if (done > started_done)
        fmt_duration(eta, sizeof eta, rate_elapsed / (done - started_done) * (total - done));
    if (s->live) {
        fprintf(stderr, "\r\033[K[%d/%d] %s%selapsed %s, eta %s, %d failed", done, total, label ? label : "",
                label ? ", " : "", el, eta, failed);
        fflush(stderr);
    } else if (force ? done != last_done || failed != last_failed : now - last_plain >= 10000000000ull) {
        /* The forced line at the end says nothing new when the last run's
         * line (10 s after the previous one) already said it. */
        last_plain = now;
        last_done = done, last_failed = failed;
        fprintf(stderr, "sweep: %d/%d runs, %d failed, elapsed %s, eta %s\n", done, total, failed, el, eta);
    }
}

static void progress_end(sweep *s) {
    if (s->live)
        fputs("\r\033[K", stderr);
}

/* ---- Setup ----------------------------------------------------------------- */

/* Reads workload names from the list file: the whole file (bounded, no NUL
 * byte), every line whole, so a long line is one line and nothing after a
 * name is dropped unsaid. */
static int read_list(const char *path, char ***out) {
    char *text = sw_read_file(path);
    if (!text)
        sw_usage_error("no workloads to run: cannot read the workload list %s (%s); build the workloads or "
                       "name them with --workloads",
                       path, sw_read_error(errno));
    int n = 0, lineno = 0;
    char **names = NULL;
    for (char *line = text, *next; line && *line; line = next) {
        lineno++;
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        char *hash = strchr(line, '#');
        if (hash)
            *hash = '\0';
        char *p = line + strspn(line, " \t\r");
        /* Command workload declarations (sw_cmd.h): a command is a workload. */
        char *decl_name;
        int decl = sw_cmd_list_line(p, &decl_name);
        if (decl) {
            if (decl == 2) {
                names = ct_xrealloc(names, (size_t)(n + 1) * sizeof *names);
                names[n++] = decl_name;
            }
            continue;
        }
        char *end = p + strlen(p);
        while (end > p && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
            *--end = '\0';
        if (!*p)
            continue;
        if (p[strcspn(p, " \t")])
            sw_usage_error("%s line %d: '%s' is more than a workload name (one name per line, or a system or command "
                           "declaration, docs/WORKLOADS.md)",
                           path, lineno, p);
        for (char *q = p; *q; q++)
            if (!(*q == '-' || *q == '_' || *q == '.' || (*q >= '0' && *q <= '9') || (*q >= 'a' && *q <= 'z') ||
                  (*q >= 'A' && *q <= 'Z')))
                sw_usage_error("%s line %d: '%s' is not a workload name", path, lineno, p);
        names = ct_xrealloc(names, (size_t)(n + 1) * sizeof *names);
        names[n++] = ct_xstrdup(p);
    }
    free(text);
    if (!n)
        sw_usage_error("no workloads to run: %s names none", path);
    *out = names;
    return n;
}

/* This program's own file (/proc/self/exe), fresh. */
static char *own_exe(void) {
    char buf[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
    if (n <= 0)
        return ct_xstrdup("/proc/self/exe");
    buf[n] = '\0';
    return ct_xstrdup(buf);
}

/* The directory this program lives in (the default bin dir). */
static char *own_dir(void) {
    char *exe = own_exe(), *dir = ct_xstrdup(exe[0] == '/' ? dirname(exe) : ".");
    free(exe);
    return dir;
}

static char *absolute(const char *path) {
    char buf[PATH_MAX];
    if (realpath(path, buf))
        return ct_xstrdup(buf);
    return ct_xstrdup(path);
}

/* Resolves workloads and bin dir and checks that every workload exists. */
static void resolve_workloads(sweep *s) {
    sw_opts *o = &s->o;
    if (!o->bin_dir)
        o->bin_dir = own_dir();
    else {
        char *a = absolute(o->bin_dir);
        free(o->bin_dir);
        o->bin_dir = a;
    }
    /* The list's command declarations, also when --workloads names them. */
    char *list_text = sw_read_file(o->list_file);
    if (list_text)
        sw_cmd_load_text(list_text, o->list_file);
    free(list_text);
    if (o->n_workloads == 0) {
        char **names;
        int n = read_list(o->list_file, &names);
        if (o->quick && n > 2)
            n = 2; /* the quick plan takes the first two */
        for (int i = 0; i < n; i++)
            o->workloads[o->n_workloads++] = names[i];
        free(names);
    }
    o->n_workloads = sw_cmd_resolve(o->workloads, o->n_workloads, o->bin_dir);
    for (int i = 0; i < o->n_workloads; i++) {
        if (sw_cmd_find(o->workloads[i]))
            continue;
        char *path = sw_xasprintf("%s/%s", o->bin_dir, o->workloads[i]);
        if (access(path, X_OK) != 0)
            sw_usage_error("workload '%s' is not an executable program at %s (%s); build it with make or "
                           "choose another --bin-dir",
                           o->workloads[i], path, strerror(errno));
        free(path);
    }
    s->workloads = o->workloads;
    s->n_workloads = o->n_workloads;
    sw_opts_check_sizes(o, s->workloads, s->n_workloads);
}

/* mkdir -p; 0 or -1 with errno. */
static int make_dirs(const char *path) {
    char *p = ct_xstrdup(path);
    for (char *q = p + 1; *q; q++)
        if (*q == '/') {
            *q = '\0';
            if (mkdir(p, 0777) != 0 && errno != EEXIST) {
                free(p);
                return -1;
            }
            *q = '/';
        }
    int rc = mkdir(p, 0777) != 0 && errno != EEXIST ? -1 : 0;
    free(p);
    return rc;
}

/* Creates <root>/<YYYYmmdd-HHMMSS>[-N] and returns it. */
static char *create_sweep_dir(const char *root) {
    if (make_dirs(root) != 0)
        sw_usage_error("cannot use output directory %s: %s", root, strerror(errno));
    struct stat st;
    if (stat(root, &st) != 0 || !S_ISDIR(st.st_mode) || access(root, W_OK) != 0)
        sw_usage_error("cannot use output directory %s: not a writable directory", root);
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    char id[32];
    strftime(id, sizeof id, "%Y%m%d-%H%M%S", &tm);
    for (int n = 1; n < 1000; n++) {
        char *dir = n == 1 ? sw_xasprintf("%s/%s", root, id) : sw_xasprintf("%s/%s-%d", root, id, n);
        if (mkdir(dir, 0777) == 0)
            return dir;
        if (errno != EEXIST)
            sw_usage_error("cannot create %s: %s", dir, strerror(errno));
        free(dir);
    }
    sw_usage_error("cannot create a sweep directory in %s: too many sweeps this second", root);
}

/* Points <root>/latest at the sweep (a relative symlink, replaced
 * atomically by ct_out_link, contracts/ct_out.h; anything but a link there
 * is left alone with a warning). */
static void update_latest(const char *dir) {
    char *copy1 = ct_xstrdup(dir), *copy2 = ct_xstrdup(dir);
    const char *root = dirname(copy1), *id = basename(copy2);
    char *latest = sw_xasprintf("%s/latest", root);
    char err[CT_OUT_PATH_MAX + 256];
    if (ct_out_link(id, latest, err, sizeof err) != 0)
        fprintf(stderr, "sweep: warning: %s\n", err);
    free(copy1), free(copy2), free(latest);
}

/* Holds an exclusive lock on the sweep directory, so two invocations never
 * run the same sweep's runs. */
static void lock_dir(const char *dir) {
    char *path = sw_xasprintf("%s/.lock", dir);
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
    if (fd < 0)
        sw_usage_error("cannot use %s: %s", dir, strerror(errno));
    if (flock(fd, LOCK_EX | LOCK_NB) != 0)
        sw_usage_error("%s is in use by another sweep (lock %s held)", dir, path);
    free(path); /* the descriptor stays open: the lock lives as long as we do */
}

/* ---- One sweep per CPU ------------------------------------------------------ */

/* Where the per-CPU locks live: $FREECHECK_LOCK_DIR, else /tmp (shared by
 * every user's sweeps on the machine; the tests use private ones). */
static const char *cpu_lock_dir(void) {
    const char *d = getenv("FREECHECK_LOCK_DIR");
    return d && *d ? d : "/tmp";
}

/* What a lock file says about its holder ("pid N, started T, <dir>"). */
static void lock_holder(int fd, char *buf, size_t size) {
    ssize_t n = pread(fd, buf, size - 1, 0);
    buf[n > 0 ? n : 0] = '\0';
    buf[strcspn(buf, "\n")] = '\0';
    if (!buf[0])
        snprintf(buf, size, "a process that did not say which");
}

/* Takes <lock dir>/freecheck-cpu<N>.lock for the rest of the process, so
 * two sweeps never pin their runs to the same CPU at once (three sweeps
 * started together corrupted each other's timings).  If another sweep holds
 * it, says so and waits for it (a queue, not an error: the second sweep
 * starts when the first ends), before anything is created.  Returns the
 * seconds waited. */
static double lock_cpu(int cpu) {
    char *path = sw_xasprintf("%s/freecheck-cpu%d.lock", cpu_lock_dir(), cpu);
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
    if (fd < 0)
        sw_usage_error("cannot use the CPU lock %s: %s (FREECHECK_LOCK_DIR names another directory for it)", path,
                       strerror(errno));
    (void)fchmod(fd, 0666); /* other users' sweeps must be able to take it too */
    double waited = 0;
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        if (errno != EWOULDBLOCK)
            sw_fatal("cannot lock %s: %s", path, strerror(errno));
        char holder[256];
        lock_holder(fd, holder, sizeof holder);
        fprintf(stderr,
                "sweep: CPU %d is in use by another sweep (%s); waiting until it ends (Ctrl-C and --cpu N "
                "to use another CPU)\n",
                cpu, holder);
        uint64_t t0 = sw_now_ns();
        while (flock(fd, LOCK_EX) != 0)
            if (errno != EINTR)
                sw_fatal("cannot lock %s: %s", path, strerror(errno));
        waited = (double)(sw_now_ns() - t0) / 1e9;
        fprintf(stderr, "sweep: CPU %d is free after %.1f s of waiting; starting\n", cpu, waited);
    }
    time_t now = time(NULL);
    char when[64];
    strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    char line[128];
    int len = snprintf(line, sizeof line, "pid %d, started %s\n", (int)getpid(), when);
    if (ftruncate(fd, 0) != 0 || pwrite(fd, line, (size_t)len, 0) != len)
        fprintf(stderr, "sweep: warning: cannot write to %s: %s\n", path, strerror(errno));
    free(path); /* the descriptor stays open: the lock lives as long as we do */
    return waited;
}

/* The other sweeps running now, from the per-CPU locks held by others:
 * "cpu N: <holder>; ..." or "none". */
static char *other_sweeps(int own_cpu) {
    sw_buf b = {0};
    DIR *d = opendir(cpu_lock_dir());
    struct dirent *e;
    while (d && (e = readdir(d))) {
        int cpu;
        char tail;
        if (sscanf(e->d_name, "freecheck-cpu%d.loc%c", &cpu, &tail) != 2 || tail != 'k' || cpu == own_cpu)
            continue;
        char *path = sw_xasprintf("%s/%s", cpu_lock_dir(), e->d_name);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd >= 0 && flock(fd, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK) {
            char holder[256];
            lock_holder(fd, holder, sizeof holder);
            sw_buf_printf(&b, "%scpu %d: %s", b.len ? "; " : "", cpu, holder);
        }
        if (fd >= 0)
            close(fd);
        free(path);
    }
    if (d)
        closedir(d);
    if (!b.len)
        sw_buf_puts(&b, "none");
    return b.data;
}

/* ---- Calibration: harness/sw_calib.c; the signal delivery here -------- */

static int unchanged(void *sweep, const char *workload, const char *what) {
    return files_unchanged(sweep, workload, what, -1, 0);
}

/* Calibration's view of the sweep, current (the workloads are resolved late). */
static sw_calib_ctx *calib_ctx(sweep *s) {
    s->cx.o = &s->o;
    s->cx.db = &s->db;
    s->cx.runner = &s->runner;
    s->cx.stop = &stop_signal;
    s->cx.unchanged = unchanged;
    s->cx.sweep = s;
    s->cx.workloads = s->workloads;
    s->cx.n_workloads = s->n_workloads;
    return &s->cx;
}

/* The kernel's cost of delivering one signal, measured natively by
 * time-bench (the empty-handler line: the floor any signal sampler pays,
 * which simulated runs cannot count), into meta.time_delivery_ns. */
static void measure_delivery(sweep *s) {
    char *stored = sw_db_meta_get(&s->db, "time_delivery_ns");
    if (stored) {
        free(stored);
        return;
    }
    char *path = sw_xasprintf("%s/time-bench", s->o.bin_dir);
    char *argv[] = {path, "cost", "--rounds", "5", "--signals", "10000", NULL};
    sw_exec_req req = {
        .path = path, .argv = argv, .envp = s->runner.base_env, .cpu = s->o.cpu, .timeout = 120, .stop = &stop_signal};
    sw_exec_res res;
    memset(&res, 0, sizeof res);
    const char *why = NULL;
    double ns = -1;
    if (access(path, X_OK) != 0)
        why = "time-bench is not built next to the workloads";
    else if (sw_exec_run(&req, &res) != 0 || !WIFEXITED(res.status) || WEXITSTATUS(res.status) != 0)
        why = "time-bench cost failed";
    else {
        const char *line = res.out.data ? strstr(res.out.data, "empty handler") : NULL;
        const char *num = line ? line + strcspn(line, "0123456789") : NULL;
        if (!num || sscanf(num, "%lf", &ns) != 1 || !(ns > 0))
            why = "time-bench printed no 'empty handler' figure";
    }
    sw_exec_res_free(&res);
    if (stop_signal) {
        free(path);
        return;
    }
    char *v = why ? sw_xasprintf("unknown (%s)", why) : sw_xasprintf("%.0f", ns);
    sw_db_meta_set(&s->db, "time_delivery_ns", v);
    sw_db_meta_set(&s->db, "time_delivery_source",
                   "time-bench cost --rounds 5 --signals 10000, native, pinned: CPU ns per signal sent with tgkill "
                   "to an empty handler (kernel delivery and return, the system call included)");
    if (!why)
        fprintf(stderr, "sweep: signal delivery measured natively: %.0f ns of CPU per signal (time-bench)\n", ns);
    else
        fprintf(stderr, "sweep: signal delivery not measured: %s\n", why);
    free(v);
    free(path);
}

/* ---- Running the schedule ----------------------------------------------- */

/* One slot of the schedule being run: its result until it is stored. */
typedef struct slot_job {
    sw_slot slot; /* a copy: the schedule's list may be freed meanwhile */
    const sw_cell *cell;
    const sw_calib *cal;
    sw_run_result res;
    uint64_t t0; /* monotonic start of the harness's work for it */
} slot_job;

typedef struct run_state {
    sweep *s;
    slot_job *jobs;
    int offset; /* job index 0 is jobs[offset] */
    int total, done, failed;
    int interrupted; /* a run was interrupted: stop storing */
} run_state;

/* Runs one slot (or records why it cannot run): thread-safe. */
static void run_slot(void *ctx, int i) {
    run_state *st = ctx;
    sweep *s = st->s;
    slot_job *j = &st->jobs[st->offset + i];
    sw_run_result *res = &j->res;
    j->t0 = sw_now_ns();
    if (!j->cal->ok) {
        memset(res, 0, sizeof *res);
        res->profile_bytes = -1;
        const char *why = j->cal->failure ? j->cal->failure : "?";
        int first = (int)strcspn(why, "\n");
        res->failure = sw_xasprintf("not run: the workload is unusable: %.*s", first, why);
        res->tail = why[first] ? ct_xstrdup(why + first + 1) : NULL;
        res->started_ns = sw_wallclock_ns();
    } else {
        /* A simulated run's count does not depend on how long it takes, and
         * under load a run under valgrind can take many times its CPU time:
         * its automatic timeout only catches a run that hangs. */
        double timeout = s->o.timeout > 0 ? s->o.timeout
                         : j->cell->sim   ? 100 * j->cal->seconds + 600
                                          : 20 * j->cal->seconds + 5;
        if (!files_unchanged(s, j->cell->workload, j->cell->label, j->slot.seq, j->slot.round)) {
            memset(res, 0, sizeof *res);
            res->interrupted = 1;
            return;
        }
        sw_run_cell(j->cell->sim ? &s->sim_runner : &s->runner, j->cell, j->slot.seq, j->slot.round, j->cal->checksum,
                    timeout, res);
    }
}

/* Stores a finished slot and reports it: one at a time. */
static void record_slot(void *ctx, int i) {
    run_state *st = ctx;
    sweep *s = st->s;
    slot_job *j = &st->jobs[st->offset + i];
    sw_run_result *res = &j->res;
    if (res->interrupted || st->interrupted) {
        st->interrupted = 1;
        sw_run_result_free(res);
        return;
    }
    sw_run_row row;
    sw_run_to_row(res, j->cell, j->slot.seq, j->slot.round, j->cell->sim ? -1 : s->o.cpu, &s->counters, &row);
    row.replicate = j->slot.replicate;
    uint64_t t1 = sw_now_ns();
    uint64_t child = res->exec.wall_ns;
    row.overhead_ns = t1 - j->t0 > child ? t1 - j->t0 - child : 0;
    sw_db_store_run(&s->db, &row);
    uint64_t t2 = sw_now_ns();
    if (j->cal->ok && !j->cell->sim)
        s->overheads[s->n_overheads++] = t2 - j->t0 > child ? t2 - j->t0 - child : 0;
    st->done++;
    if (res->failure) {
        st->failed++;
        if (j->cal->ok) { /* runs of unusable workloads were announced at calibration */
            if (s->live)
                progress_end(s);
            fprintf(stderr, "sweep: run %d %s round %d failed: %.*s\n", j->slot.seq, j->cell->label, j->slot.round,
                    (int)strcspn(res->failure, "\n"), res->failure);
        }
    }
    progress(s, st->done, st->total, st->failed, j->cell->label, 0);
    sw_run_result_free(res);
}

/* ---- The sweep ------------------------------------------------------------- */

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Prints the plan on stdout: the plan and sim lines, the --env settings,
 * the estimate lines (estimate, already formatted), the skipped command
 * workloads and the cells not planned (sw_cmd.h), a line per cell and a
 * line per run of the schedule. */
static void print_plan(const sw_opts *o, sw_cell *cells, int n_cells, const char *estimate, const char *why) {
    sw_slot *slots;
    int n = sw_plan_schedule_all(o, cells, n_cells, &slots);
    sw_schedcheck(o, cells, n_cells, slots, n);
    int *owned = sw_shard_owned(o, cells, n_cells); /* --shard: only its part of the schedule */
    int n_all = n;
    if (owned)
        n = sw_shard_keep(owned, slots, n);
    /* Cells and runs as meta 'plan' counts them: the simulated part's too. */
    sw_plan_count pc;
    sw_plan_counts(cells, n_cells, slots, n_all, &pc);
    int n_sim = pc.sim_cells;
    printf("plan: %d workload%s, %d cells", o->n_workloads, o->n_workloads == 1 ? "" : "s", pc.cells);
    if (n_sim)
        printf(" (%d timed, %d simulated)", pc.native_cells, pc.sim_cells);
    printf(", %d warm-up + %d measured rounds = %d runs", o->warmup, o->runs, pc.runs);
    if (n_sim)
        printf(" (%d timed, %d simulated)", pc.native_runs, pc.sim_runs);
    if (o->replicates > 1)
        printf(", %d replicates (%s)", o->replicates, sw_reporder_name(sw_opts_reporder(o)));
    printf(", seed %llu, design %s\n", (unsigned long long)o->seed, sw_design_name(o->design));
    if (owned) {
        char *groups = sw_shard_describe(cells, n_cells, owned);
        printf("shard %d/%d: %d of the plan's %d runs: %s\n", o->shard_k, o->shard_n, n, n_all, groups);
        free(groups), free(owned);
    }
    if (n_sim)
        printf("sim %d cells x %d runs under valgrind (cachegrind), %d at once\n", n_sim, o->sim_runs,
               o->sim_jobs ? o->sim_jobs : sw_pool_cpus());
    if (why) {
        char *tms = sw_opts_time_mode_list(sw_opts_time_modes(o));
        printf("time modes %s: %s\n", tms, why);
        free(tms);
    }
    if (o->n_env) {
        printf("env");
        for (int i = 0; i < o->n_env; i++)
            printf(" %s", o->env[i]);
        printf("\n");
    }
    fputs(estimate, stdout);
    const char *const *names, *const *whys;
    for (int i = 0, k = sw_cmd_skipped(&names, &whys); i < k; i++)
        printf("skipped %s: %s\n", names[i], whys[i]);
    for (int i = 0, k = sw_cmd_notes(&names, &whys); i < k; i++)
        printf("not planned %s: %s\n", names[i], whys[i]);
    for (int i = 0; i < n_cells; i++)
        printf("cell %d %s%s%s\n", cells[i].id, cells[i].label, cells[i].args[0] ? " args " : "", cells[i].args);
    for (int i = 0; i < n; i++) {
        if (slots[i].block)
            printf("run %d round %d cell %d block %d pos %d role %d", slots[i].seq, slots[i].round,
                   cells[slots[i].cell].id, slots[i].block, slots[i].pos, slots[i].role);
        else
            printf("run %d round %d cell %d", slots[i].seq, slots[i].round, cells[slots[i].cell].id);
        if (slots[i].replicate >= 0)
            printf(" replicate %d", slots[i].replicate);
        printf("\n");
    }
    free(slots);
}

/* --env: runs the first workload once at --size 1 with the settings (no
 * sampling, like a calibration probe), before anything is created, so a value
 * the runtime refuses (it exits 2 with "freecheck: SGC_X=...: why") is bad
 * input of the sweep rather than a sweep of unusable workloads. */
static void probe_env(sweep *s) {
    if (!s->o.n_env || !s->n_workloads)
        return;
    sw_runner r = {0};
    sw_runner_init(&r);
    r.bin_dir = s->o.bin_dir;
    r.cpu = s->o.cpu;
    r.env = s->o.env;
    r.n_env = s->o.n_env;
    sw_exec_res res;
    char *sum = NULL;
    sw_run_plain(&r, s->workloads[0], NULL, 1, NULL, 10 * s->o.target + 60, &res, &sum);
    free(sum);
    if (!res.exec_errno && !res.timed_out && WIFEXITED(res.status) && WEXITSTATUS(res.status) == 2) {
        /* The runtime's own message, if it is one (a workload may also refuse --size 1). */
        const char *err = res.err.data ? res.err.data : "";
        const char *m = strstr(err, "freecheck: SGC_");
        if (m) {
            int len = (int)strcspn(m, "\n");
            sw_usage_error("env: the runtime refused the --env settings (a run of %s --size 1 exited 2): %.*s",
                           s->workloads[0], len, m);
        }
    }
    sw_exec_res_free(&res);
    free(r.base_env);
}

/* The last line of the workload's stderr in a run's output tail (what it
 * said about its failure), into buf; "" if it printed nothing there. */
static void last_stderr_line(const char *tail, char *buf, size_t size) {
    buf[0] = '\0';
    const char *e = tail ? strstr(tail, "--- stderr (end) ---\n") : NULL;
    if (!e)
        return;
    e += strlen("--- stderr (end) ---\n");
    const char *end = e + strlen(e);
    while (end > e && end[-1] == '\n')
        end--;
    const char *from = end;
    while (from > e && from[-1] != '\n')
        from--;
    snprintf(buf, size, "%.*s", (int)(end - from), from);
}

/* Prints each distinct failure reason (its first line) with how many runs
 * failed so, most frequent first, and for one of them the workload's last
 * line on stderr, where the cause usually is ("exit status 1" alone does not
 * say that the disk was full). */
static void report_failures(sweep *s) {
    enum { SHOWN = 30 };
    sw_db_failure *f;
    int n = sw_db_failures(&s->db, SHOWN, &f);
    if (n)
        fprintf(stderr, "sweep: failed runs, by reason (each run is in runs.csv):\n");
    for (int i = 0; i < n && i < SHOWN; i++) {
        char said[512] = "";
        last_stderr_line(f[i].tail, said, sizeof said);
        fprintf(stderr, "  %d run%s: %s (first: run %d %s round %d)%s%s\n", f[i].count, f[i].count == 1 ? "" : "s",
                f[i].reason, f[i].first_seq, f[i].label ? f[i].label : "?", f[i].round,
                said[0] ? "; its last words: " : "", said);
    }
    if (n > SHOWN)
        fprintf(stderr, "  ... and %d more reasons\n", n - SHOWN);
    sw_db_failures_free(f, n);
}

/* sw_cmd_store_meta's store: the sweep's meta table. */
static void meta_set(void *db, const char *key, const char *value) { sw_db_meta_set(db, key, value); }

/* The files a sweep runs, by content (sw_watch.h): each workload's program
 * (and a command workload's needs= files) and the runtime library it was
 * linked with (<bin-dir>/../lib/libsgc.a, where the build puts it).  A new
 * sweep stores "sha256:<key>" in meta; --resume compares and refuses a
 * difference, which would mix two builds in one sweep's numbers (rebuilding
 * a workload with -O0 between an interruption and --resume did so
 * silently).  Either way the files are watched from here on: every run
 * checks them first (files_unchanged). */
static void program_hashes(sweep *s, int resuming) {
    sw_buf changed = {0}, unknown = {0};
    sw_watch_init(&s->watch);
    for (int i = 0; i <= s->n_workloads; i++) {
        const char *w = i < s->n_workloads ? s->workloads[i] : NULL;
        char **keys, **paths;
        int n = 1;
        if (w) {
            n = sw_watch_files_of(w, s->o.bin_dir, &keys, &paths);
        } else {
            /* Every run's: the runtime library, the harness itself (a
             * resumed sweep is measured by the program that started it, so
             * meta.compiler and meta.cflags stay true) and the valgrind the
             * simulated runs run under.  ('/' is in no workload's name.) */
            n = 2 + (s->valgrind != NULL);
            keys = ct_xcalloc(3, sizeof *keys), paths = ct_xcalloc(3, sizeof *paths);
            keys[0] = ct_xstrdup("libsgc.a");
            paths[0] = sw_xasprintf("%s/../lib/libsgc.a", s->o.bin_dir);
            keys[1] = ct_xstrdup("harness/sweep");
            paths[1] = own_exe();
            if (s->valgrind) {
                keys[2] = ct_xstrdup("harness/valgrind");
                paths[2] = ct_xstrdup(s->valgrind);
            }
        }
        for (int k = 0; k < n; k++) {
            struct stat id;
            char *value = sw_watch_hash(paths[k], &id), *key = sw_xasprintf("sha256:%s", keys[k]);
            char *stored = resuming ? sw_db_meta_get(&s->db, key) : NULL;
            if (!resuming)
                sw_db_meta_set(&s->db, key, value);
            else if (!stored)
                sw_buf_printf(&unknown, "%s%s", unknown.len ? ", " : "", paths[k]);
            if (stored && strcmp(stored, value))
                sw_buf_printf(&changed, "\n  %s (%s): sha256 %s when the sweep started, %s now", paths[k], keys[k],
                              stored, value);
            else
                sw_watch_add(&s->watch, keys[k], w, paths[k], value, &id);
            free(stored), free(key), free(value), free(keys[k]), free(paths[k]);
        }
        free(keys), free(paths);
    }
    if (changed.len)
        sw_usage_error("--resume %s: the programs changed since the sweep started:%s\nresuming would mix two builds "
                       "in one sweep; put back the build it ran (the same files: rebuild from the same sources "
                       "with the same flags), or start a new sweep",
                       s->dir, changed.data);
    if (unknown.len)
        fprintf(stderr,
                "sweep: warning: %s records no content hash of %s (an older sweep): --resume cannot check that "
                "they are the ones it ran\n",
                s->dir, unknown.data);
    sw_buf_free(&changed);
    sw_buf_free(&unknown);
}

/* Before a run of workload (what: the run, "run 7 (gcbench/baseline round
 * 2)" or "a calibration probe", for the message; seq < 0 when it is not a
 * run of the schedule): the files it depends on are those the sweep started
 * with, else the sweep stops as if interrupted (stop_signal = STOP_CHANGED)
 * and the change is reported at the end.  Returns 1 if the run may go on.
 * Thread-safe. */
static int files_unchanged(sweep *s, const char *workload, const char *what, int seq, int round) {
    if (sw_watch_check(&s->watch, workload) == 0)
        return 1;
    pthread_mutex_lock(&s->watch.lock);
    if (!s->changed_before)
        s->changed_before = seq >= 0 ? sw_xasprintf("run %d (%s round %d)", seq, what, round)
                                     : sw_xasprintf("%s of %s", what, workload);
    pthread_mutex_unlock(&s->watch.lock);
    stop_signal = STOP_CHANGED;
    return 0;
}

/* Stores the plan summary in meta (human-readable). */
static void store_plan_meta(sweep *s, int n_slots) {
    sw_buf b = {0};
    sw_buf_printf(&b, "%d workloads, %d cells, %d warm-up + %d measured rounds, %d runs, design %s", s->n_workloads,
                  s->n_cells, s->o.warmup, s->o.runs, n_slots, sw_design_name(s->o.design));
    if (s->o.replicates > 1)
        sw_buf_printf(&b, ", %d replicates (%s)", s->o.replicates, sw_reporder_name(sw_opts_reporder(&s->o)));
    sw_buf_puts(&b, "; workloads:");
    for (int i = 0; i < s->n_workloads; i++)
        sw_buf_printf(&b, " %s", s->workloads[i]);
    sw_db_meta_set(&s->db, "plan", b.data);
    sw_buf_free(&b);
}

/* The SGC_* variables of the shell that started the sweep never reach a
 * run (sw_run.h): said once, so that a setting meant for the runs is not
 * silently without effect. */
static void warn_dropped_settings(void) {
    char *names = sw_run_dropped_settings();
    if (names)
        fprintf(stderr,
                "sweep: warning: the environment's %s %s not passed to the runs (the sweep sets each run's runtime "
                "settings itself); give a runtime setting for every run with --env NAME=VALUE (docs/HARNESS.md)\n",
                names, strchr(names, ',') ? "are" : "is");
    free(names);
}

/* --resume: the database holds the plan of its stored settings (cells,
 * schedule, the runs in it, every block whole, each cell's size its
 * calibration's) and the start metadata agree with them (sw_verify.h), or
 * the sweep is refused before anything is added to it: an edited config or
 * database would otherwise be completed into a sweep of two plans. */
/* The one mode of the older form's time cells (sw_db_load_cells). */
static const char *legacy_time_mode(const sw_opts *o) {
    const char *tm = sw_opts_env(o, "SGC_TIME_MODE");
    return tm ? tm : sgc_time_mode_name(SGC_TIME_SIGNAL);
}

/* The CPUs the sweep may use: its own affinity (sched_getaffinity), which
 * its runs inherit before each is pinned to --cpu; the runtime's sampler
 * thread leaves the run's CPU for another of them (docs/RUNTIME.md). */
static int cpus_allowed(void) {
    cpu_set_t set;
    return sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 1;
}

static void verify_stored_plan(sweep *s) {
    char *where = sw_xasprintf("--resume %s", s->dir);
    char *merged = sw_db_meta_get(&s->db, "merged_from");
    if (!merged) /* a merged sweep's machine-local facts are listed per shard */
        sw_verify_meta(&s->db, where, &s->o);
    free(merged);
    if (sw_db_count(&s->db, "cells") > 0) {
        sw_cell *cells;
        int n_cells = sw_plan_cells(&s->o, s->workloads, s->n_workloads, &cells);
        int *owned = sw_shard_owned(&s->o, cells, n_cells);
        sw_slot *slots;
        int n_slots = sw_plan_schedule_all(&s->o, cells, n_cells, &slots);
        int blocked = s->o.design == SW_DESIGN_BLOCKED;
        sw_verify_cells(&s->db, where, cells, n_cells, owned, sw_opts_time_modes_legacy(&s->o));
        /* A sweep from before the time_mode column gets its cells' modes. */
        sw_db_fill_time_modes(&s->db, cells, n_cells);
        sw_verify_schedule(&s->db, where, &s->o, cells, n_cells, slots, n_slots, owned, blocked && s->o.halfwidth > 0,
                           "the plan of its settings",
                           "the schedule was edited, or is another plan's; start a new sweep");
        sw_verify_runs(&s->db, where, blocked);
        /* Each stored size is its calibration unit's, as stored. */
        sw_cell *stored;
        int n_stored = sw_db_load_cells(&s->db, &stored, legacy_time_mode(&s->o));
        for (int i = 0; i < n_stored && i < n_cells; i++) {
            uint64_t size = 0;
            char *key = sw_plan_unit_key(&stored[i]), *sum = NULL, *status = NULL, *failure = NULL;
            double secs;
            if ((!owned || owned[i]) &&
                sw_db_get_calibration(&s->db, key, &size, &sum, &status, &failure, &secs) == 1 &&
                size != stored[i].size)
                sw_usage_error("%s: cell %s has size %llu, but its calibration (%s) found %llu: the database was "
                               "edited; start a new sweep",
                               where, stored[i].label, (unsigned long long)stored[i].size, key,
                               (unsigned long long)size);
            free(key), free(sum), free(status), free(failure);
        }
        sw_plan_free_cells(stored, n_stored);
        sw_plan_free_cells(cells, n_cells);
        free(owned);
        free(slots);
    }
    free(where);
}

/* ---- The phases of main ------------------------------------------------- */

/* The range of --size a freecheck workload accepts, from its --help (every
 * one prints "  --size N  <what>; MIN..MAX, default D", workloads/wl_common.c):
 * 0 with *lo and *hi, or -1 if it does not say (a command workload, a
 * stand-in). */
static int size_range(const sweep *s, const char *workload, uint64_t *lo, uint64_t *hi) {
    if (sw_cmd_find(workload))
        return -1;
    char *path = sw_xasprintf("%s/%s", s->o.bin_dir, workload);
    char *argv[] = {path, "--help", NULL}, *env[] = {NULL};
    sw_exec_req req = {.path = path, .argv = argv, .envp = env, .cpu = -1, .timeout = 30};
    sw_exec_res res;
    int found = -1;
    if (sw_exec_run(&req, &res) == 0 && WIFEXITED(res.status) && WEXITSTATUS(res.status) == 0 && res.out.data) {
        for (const char *line = res.out.data; line && *line;
             line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
            unsigned long long a, b;
            const char *semi = strncmp(line, "  --size N ", 11) ? NULL : strchr(line, ';');
            if (semi && semi < line + strcspn(line, "\n") && sscanf(semi, "; %llu..%llu, default", &a, &b) == 2) {
                *lo = a, *hi = b;
                found = 0;
                break;
            }
        }
    }
    sw_exec_res_free(&res);
    free(path);
    return found;
}

/* Settings with which every run of a cell would fail, refused before
 * anything is created (the runtime, or the workload, would refuse each run
 * with exit 2): a fixed size beyond the workload's own range, a spin that
 * with a time cell's rate needs all of the program's time, a timeout the
 * calibrated runs cannot meet. */
static void check_feasible(sweep *s) {
    const sw_opts *o = &s->o;
    for (int i = 0; i < s->n_workloads; i++) {
        const char *w = s->workloads[i];
        uint64_t lo = 0, hi = 0, fixed = sw_opts_fixed_size(o, w), fixed_sim = sw_opts_fixed_sim_size(o, w);
        if ((!fixed || !o->backend_native) && (!fixed_sim || !o->backend_sim))
            continue;
        if (size_range(s, w, &lo, &hi) != 0)
            continue;
        for (int sim = 0; sim < 2; sim++) {
            uint64_t v = sim ? fixed_sim : fixed;
            if (v && (sim ? o->backend_sim : o->backend_native) && (v < lo || v > hi))
                sw_usage_error("%s: %s=%llu is outside %s's own range of --size, %llu..%llu (%s/%s --help); choose a "
                               "size in it",
                               sim ? "sim-size" : "size", w, (unsigned long long)v, w, (unsigned long long)lo,
                               (unsigned long long)hi, o->bin_dir, w);
        }
    }
    const char *spin = sw_opts_env(o, "SGC_SAMPLE_SPIN_NS");
    uint64_t spin_ns = 0;
    if (spin && sw_parse_uint(spin, UINT64_MAX, &spin_ns) == 0 && spin_ns) {
        sw_cell *cells;
        int n = sw_plan_cells(o, s->workloads, s->n_workloads, &cells);
        for (int i = 0; i < n; i++)
            if (cells[i].time_hz && (uint64_t)cells[i].time_hz * spin_ns >= 1000000000u)
                sw_usage_error("env: SGC_SAMPLE_SPIN_NS=%s with the %u Hz of cell %s: the time samples alone would "
                               "spin for all of the program's time (rate x spin must be under 1 s per s, the "
                               "runtime's rule, docs/RUNTIME.md), so every run of it would be refused; lower the "
                               "spin or the rate",
                               spin, cells[i].time_hz, cells[i].label);
        sw_plan_free_cells(cells, n);
    }
    /* Every calibrated native run takes about --target of CPU time (more
     * wall time): a timeout at or below it kills every one of them; a
     * simulated one takes --sim-target. */
    for (int i = 0; i < s->n_workloads && o->timeout > 0; i++) {
        const char *w = s->workloads[i];
        if (o->backend_native && !sw_opts_fixed_size(o, w) && o->timeout <= o->target)
            sw_usage_error("timeout: %g s is at most --target %g s, the CPU time every calibrated run takes: every run "
                           "of %s would time out; give a longer --timeout (or auto)",
                           o->timeout, o->target, w);
        if (o->backend_sim && !sw_opts_fixed_sim_size(o, w) && o->timeout <= o->sim_target)
            sw_usage_error("timeout: %g s is at most --sim-target %g s, the CPU time every calibrated simulated run "
                           "takes: every simulated run of %s would time out; give a longer --timeout (or auto)",
                           o->timeout, o->sim_target, w);
    }
}

/* The valgrind program of the simulated backend (when it runs), by its
 * absolute path (a simulated run starts in the private temporary
 * directory), into s->valgrind; a missing one is bad input. */
static void find_valgrind(sweep *s) {
    if (s->valgrind || !s->o.backend_sim || (s->o.plan_only && !s->o.estimate))
        return;
    s->valgrind = sw_sim_find_program(s->o.valgrind);
    if (s->valgrind && s->valgrind[0] != '/') {
        char *a = absolute(s->valgrind);
        free(s->valgrind);
        s->valgrind = a;
    }
    if (!s->valgrind)
        sw_usage_error("valgrind: '%s' is not an executable program (the simulated backend runs every sim cell "
                       "under valgrind: install it with make deps, or run --backends native)",
                       s->o.valgrind);
}

/* Options, and on --resume the sweep directory with its stored settings
 * (locked, its database open, the programs checked against their hashes);
 * then the checks that need the final settings.  Bad input exits 2 before
 * anything is created. */
static void parse_settings(sweep *s, int argc, char **argv) {
    sw_opts_defaults(&s->o);
    sw_opts_parse_args(&s->o, argc, argv);
    s->progress_opt = s->o.progress;
    s->resuming = s->o.resume_dir != NULL;
    if (s->resuming) {
        s->dir = ct_xstrdup(s->o.resume_dir);
        struct stat st;
        if (stat(s->dir, &st) != 0 || !S_ISDIR(st.st_mode))
            sw_usage_error("--resume %s: not a directory", s->dir);
        /* Before the lock file is made: a directory that is not a sweep's
         * is left as it was. */
        char *db_path = sw_xasprintf("%s/results.db", s->dir);
        int found = stat(db_path, &st) == 0;
        if (!found || !S_ISREG(st.st_mode))
            sw_usage_error("--resume %s: not a sweep directory (%s: %s); give the directory a sweep was started in, "
                           "e.g. results/latest",
                           s->dir, db_path, found ? "not a regular file" : strerror(errno));
        free(db_path);
        lock_dir(s->dir);
        sw_db_open_existing(&s->db, s->dir);
        char *config = sw_db_meta_get(&s->db, "config");
        if (!config)
            sw_usage_error("--resume %s: results.db holds no stored config", s->dir);
        char *dir = s->dir;
        sw_opts_free(&s->o);
        sw_opts_defaults(&s->o);
        sw_opts_parse_config(&s->o, config, "stored config");
        sw_opts_stored_defaults(&s->o);
        s->o.progress = s->progress_opt;
        s->dir = dir;
        free(config);
        resolve_workloads(s);
        char *commands = sw_db_meta_get(&s->db, "commands");
        sw_cmd_check_stored(commands, s->dir);
        free(commands);
        find_valgrind(s);
        program_hashes(s, 1);
        verify_stored_plan(s);
    } else {
        resolve_workloads(s);
        if (s->o.cpu < 0)
            s->o.cpu = sw_meta_default_cpu();
        /* The time sampler's modes, by the default rule unless given; stored
         * with the config, so a resume replays them whatever its machine. */
        s->cpus = cpus_allowed();
        sw_opts_default_time_modes(&s->o, s->cpus, &s->time_modes_why);
        if (s->o.levels_from) /* before anything uses --runs and --target */
            s->levels_why = sw_plan_levels_apply(&s->o, s->o.levels_from);
    }
    sw_shard_check_opts(&s->o);
    if (s->o.halfwidth > 0 && s->o.design != SW_DESIGN_BLOCKED)
        sw_usage_error("halfwidth: adaptive rounds need the blocked design (design is %s)",
                       sw_design_name(s->o.design));
    if (s->o.halfwidth > 0 && s->o.replicates > 1)
        sw_usage_error("replicates: adaptive rounds (--halfwidth) of several replicates are not supported: give one "
                       "of them");
    if (s->o.halfwidth > 0 && s->o.max_runs < s->o.runs)
        sw_usage_error("max-runs: %d is below --runs %d", s->o.max_runs, s->o.runs);
    if (!sw_meta_cpu_allowed(s->o.cpu))
        sw_usage_error("cpu %d is not one this process may run on (see taskset -p $$)", s->o.cpu);
    if ((s->o.from_dir || s->o.estimate) && !s->o.plan_only)
        sw_usage_error("%s: only with --plan (it estimates the plan's duration)", s->o.from_dir ? "from" : "estimate");
    if (s->o.from_dir && s->o.estimate)
        sw_usage_error("estimate: give --from DIR or --estimate, not both");
    find_valgrind(s);
    sw_calib_load_sizes_from(calib_ctx(s)); /* on --resume too: a unit whose calibration was interrupted takes DIR's */
    if (!s->resuming)
        check_feasible(s);
}

/* The width of the private temporary directory's path (its last component
 * stays below NAME_MAX, 255), and what pads it (at least SW_TMP_WIDTH -
 * strlen("/sweep--XXXXXX") characters). */
#define SW_TMP_WIDTH 240
#define SW_TMP_PAD                                                                                                     \
    "________________________________________________________________________________________________________________" \
    "________________________________________________________________________________________________________________" \
    "________________"

/* Takes the CPU's lock (waiting for another sweep) and makes the private
 * temporary directory; from here an exit removes it.  Bad input exits 2
 * before the sweep directory exists. */
static void take_machine(sweep *s) {
    s->cpu_wait = lock_cpu(s->o.cpu);
    /* The private temporary directory, made now: a --tmp where it cannot be
     * made (/proc, say, which passes access(W_OK) as root) is bad input
     * before the sweep directory exists and latest moves. */
    struct stat st;
    char root[PATH_MAX];
    if (stat(s->o.tmp_dir, &st) != 0 || !S_ISDIR(st.st_mode) || access(s->o.tmp_dir, W_OK) != 0 ||
        !realpath(s->o.tmp_dir, root))
        sw_usage_error("tmp: %s is not a writable directory", s->o.tmp_dir);
    /* Its path has SW_TMP_WIDTH characters whatever --tmp is (padded with
     * '_'; as the kernel names it, symbolic links resolved), so the paths
     * the runs get, and a simulated run's directory, have the same width
     * from any --tmp: their length moves the stack. */
    if (!strcmp(root, "/"))
        root[0] = '\0'; /* "/sweep-...", not "//sweep-..." */
    size_t len = strlen(root), fixed = strlen("/sweep--XXXXXX");
    if (len + fixed > SW_TMP_WIDTH && s->o.backend_sim)
        sw_usage_error("tmp: %s is %zu characters long; the simulated runs' directory is made there with a path of "
                       "%d characters (so that their counts do not depend on where it is): choose a --tmp of at most "
                       "%zu characters",
                       root, len, SW_TMP_WIDTH, SW_TMP_WIDTH - fixed);
    char *tmpl = len + fixed > SW_TMP_WIDTH
                     ? sw_xasprintf("%s/sweep-XXXXXX", root)
                     : sw_xasprintf("%s/sweep-%.*s-XXXXXX", root, (int)(SW_TMP_WIDTH - len - fixed), SW_TMP_PAD);
    if (!mkdtemp(tmpl))
        sw_usage_error("tmp: cannot create a directory in %s: %s", s->o.tmp_dir, strerror(errno));
    s->tmp = tmpl;
    /* From here a fatal error leaves results.db consistent (on_fatal); a new
     * sweep sets it once its database exists. */
    sw_set_exit_hook(s->resuming ? on_fatal : cleanup_tmp);
}

/* The metadata a new sweep stores before anything runs: its settings, how
 * its order derives from the seed, the machine, the programs' hashes, the
 * valgrind it uses. */
static void store_start_meta(sweep *s) {
    char *config = sw_opts_to_config(&s->o);
    sw_db_meta_set(&s->db, "config", config);
    free(config);
    char *id = ct_xstrdup(s->dir);
    sw_db_meta_set(&s->db, "sweep_id", basename(id));
    free(id);
    char seed[32];
    snprintf(seed, sizeof seed, "%llu", (unsigned long long)s->o.seed);
    sw_db_meta_set(&s->db, "seed", seed);
    sw_db_meta_set(&s->db, "seed_source", s->o.seed_given ? "given" : "random (/dev/urandom)");
    sw_db_meta_set(&s->db, "design", sw_design_name(s->o.design));
    if (s->o.halfwidth > 0)
        sw_db_meta_set(&s->db, "adaptive_rule", SW_ADAPT_RULE); /* analyze reads the intervals by it */
    char *tms = sw_opts_time_mode_list(sw_opts_time_modes(&s->o)), *ncpu = sw_xasprintf("%d", s->cpus);
    sw_db_meta_set(&s->db, "time_modes", tms);
    sw_db_meta_set(&s->db, "time_modes_reason", s->time_modes_why);
    sw_db_meta_set(&s->db, "time_modes_cpus", ncpu);
    if (s->levels_why)
        sw_db_meta_set(&s->db, "levels", s->levels_why);
    free(tms), free(ncpu);
    if (s->o.shard_n) {
        char *k = sw_xasprintf("%d/%d", s->o.shard_k, s->o.shard_n);
        sw_db_meta_set(&s->db, "shard", k);
        free(k);
    }
    if (s->o.replicates > 1) {
        char *order = sw_opts_reporder(&s->o) == SW_REPORDER_INTERLEAVED
                          ? sw_xasprintf("interleaved round by round, round p running the replicates p, p + 1, ... "
                                         "mod %d",
                                         s->o.replicates)
                          : ct_xstrdup("sequential, each replicate's warm-up and measured rounds before the next "
                                       "replicate's");
        char *r = sw_xasprintf("%d (replicate r's shuffles and block orders from seed r: 'seed' for r = 0, "
                               "splitmix64-mix(seed, 0x7265706c00000000 + r) for the others; %s; runs.replicate and "
                               "schedule.replicate say which)",
                               s->o.replicates, order);
        free(order);
        sw_db_meta_set(&s->db, "replicates", r);
        free(r);
    }
    if (s->o.design == SW_DESIGN_INPROCESS)
        sw_db_meta_set(&s->db, "alternation",
                       "every run: SGC_ALTERNATE = none (baseline cells, A/A), alloc, time or both (what the cell "
                       "turns on), segments of the runtime's default length (SGC_ALT_SEGMENT), series in the "
                       "segments table");
    sw_db_meta_set(&s->db, "shuffle",
                   s->o.design == SW_DESIGN_BLOCKED
                       ? "per round: Fisher-Yates over the blocks (one per cell: the cell and its baseline, an "
                         "A/A block for a baseline) with splitmix64 seeded once with 'seed'; the order inside "
                         "each block balanced over the measured rounds; SGC_SEED of run seq = "
                         "splitmix64-mix(seed, seq) >> 1"
                       : "per round: Fisher-Yates over the cells with splitmix64 seeded once with "
                         "'seed'; SGC_SEED of run seq = splitmix64-mix(seed, seq) >> 1");
    char *t = sw_xasprintf("%.3f", s->o.target);
    sw_db_meta_set(&s->db, "calibration_target_s", t);
    free(t);
    sw_db_meta_set(&s->db, "bin_dir", s->o.bin_dir);
    sw_buf envs = {0};
    for (int i = 0; i < s->o.n_env; i++)
        sw_buf_printf(&envs, "%s%s", i ? " " : "", s->o.env[i]);
    sw_db_meta_set(&s->db, "env", s->o.n_env ? envs.data : "none");
    sw_buf_free(&envs);
    sw_db_meta_set(&s->db, "counters_privilege", "user space only (libpfm4 PFM_PLM3)");
    sw_db_meta_set(&s->db, "status", "running");
    time_t now = time(NULL);
    char when[64];
    strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    sw_db_meta_set(&s->db, "started_utc", when);
    sw_meta_store_host(&s->db, s->o.cpu);
    program_hashes(s, 0);
    sw_cmd_store_meta(meta_set, &s->db, s->workloads, s->n_workloads);
    if (s->valgrind) {
        sw_db_meta_set(&s->db, "valgrind", s->valgrind);
        sw_exec_res vr;
        char *vargv[] = {s->valgrind, "--version", NULL};
        char *env0[] = {NULL};
        sw_exec_req vq = {.path = s->valgrind, .argv = vargv, .envp = env0, .cpu = -1, .timeout = 30};
        if (sw_exec_run(&vq, &vr) == 0 && vr.out.data)
            vr.out.data[strcspn(vr.out.data, "\n")] = '\0';
        sw_db_meta_set(&s->db, "valgrind_version",
                       vr.out.data ? vr.out.data : "unknown (valgrind --version printed nothing)");
        sw_exec_res_free(&vr);
        sw_db_meta_set(&s->db, "sim", sw_sim_description);
        sw_db_meta_set(&s->db, "sim_cost_model", "sim::est-cycles = L1 hits + 5 x LL hits + 35 x RAM accesses");
    }
}

/* A new sweep: checks the plan and the --env settings, then creates the
 * sweep directory (locked) and its results.db with the start metadata, and
 * points latest at it.  (A resumed sweep's directory was opened by
 * parse_settings.)  Either way, records the concurrent load at this start. */
static void open_results(sweep *s) {
    if (!s->resuming) {
        /* Fail on bad settings before creating anything. */
        sw_cell *cells;
        int n = sw_plan_cells(&s->o, s->workloads, s->n_workloads, &cells);
        free(sw_shard_owned(&s->o, cells, n)); /* --shard N beyond the plan's groups */
        sw_plan_free_cells(cells, n);
        probe_env(s);
        s->dir = create_sweep_dir(s->o.out_root);
        lock_dir(s->dir);
        sw_db_create(&s->db, s->dir);
        sw_set_exit_hook(on_fatal);
        store_start_meta(s);
        update_latest(s->dir);
    }
    fprintf(stderr, "sweep: results go to %s\n", s->dir);
    /* Concurrent load at this start (a resume records its own). */
    char *others = other_sweeps(s->o.cpu), *load = sw_meta_loadavg(), wait[32];
    snprintf(wait, sizeof wait, "%.1f", s->cpu_wait);
    sw_db_meta_set(&s->db, s->resuming ? "other_sweeps_at_resume" : "other_sweeps_at_start", others);
    sw_db_meta_set(&s->db, s->resuming ? "cpu_lock_wait_s_at_resume" : "cpu_lock_wait_s", wait);
    if (s->resuming)
        sw_db_meta_set(&s->db, "loadavg_at_resume", load);
    if (strcmp(others, "none"))
        fprintf(stderr,
                "sweep: warning: other sweeps are running on this machine (%s): their load shows in "
                "these timings (recorded in meta)\n",
                others);
    free(others), free(load);
}

/* Signals, counters and the two runners (native, and under valgrind for the
 * simulated part). */
static void prepare_runners(sweep *s) {
    signal(SIGINT, on_stop);
    signal(SIGTERM, on_stop);
    signal(SIGHUP, on_stop);
    signal(SIGPIPE, SIG_IGN);

    sw_pfm_probe(&s->counters, s->o.counters, s->o.n_counters);
    sw_db_store_events(&s->db, &s->counters);
    sw_db_meta_set(&s->db, "libpfm4_api", s->counters.pfm_version);

    char *profile_dir = NULL;
    if (s->o.keep_profiles) {
        profile_dir = sw_xasprintf("%s/profiles", s->dir);
        if (make_dirs(profile_dir) != 0)
            sw_usage_error("cannot create %s: %s", profile_dir, strerror(errno));
    }
    sw_runner_init(&s->runner);
    s->runner.bin_dir = s->o.bin_dir;
    s->runner.tmp_dir = s->tmp;
    s->runner.profile_dir = profile_dir;
    s->runner.cpu = s->o.cpu;
    s->runner.seed = s->o.seed;
    s->runner.counters = s->counters.n_supported ? &s->counters : NULL;
    s->runner.stop = &stop_signal;
    s->runner.env = s->o.env;
    s->runner.n_env = s->o.n_env;
    s->runner.alternate = s->o.design == SW_DESIGN_INPROCESS;
    s->live = s->progress_opt >= 0 ? s->progress_opt : isatty(2);
    s->sim_runner = s->runner;
    s->sim_runner.sim = 1;
    s->sim_runner.valgrind = s->valgrind;
    s->sim_runner.sim_seed = SW_SIM_SEED;
    s->sim_runner.counters = NULL;
    s->sim_runner.cpu = -1;
    s->sim_runner.alternate = 0; /* the in-process design is timed; a count needs no alternation */
    sw_run_sim_counters();       /* made once, before any thread uses it */
}

/* The calibration units of s->cells: every (workload, args, backend) in
 * plan order, into s->cal, and each cell's unit into s->unit_of. */
static void make_units(sweep *s) {
    sw_calib *cal = ct_xcalloc((size_t)(s->n_cells ? s->n_cells : 1), sizeof *cal);
    int n_cal = 0;
    int *unit_of = ct_xcalloc((size_t)(s->n_cells ? s->n_cells : 1), sizeof *unit_of);
    int *owned = sw_shard_owned(&s->o, s->cells, s->n_cells); /* --shard: NULL when not sharded */
    for (int i = 0; i < s->n_cells; i++) {
        const sw_cell *c = &s->cells[i];
        if (owned && !owned[i]) { /* another shard's cell: calibrated and run there */
            unit_of[i] = -1;
            continue;
        }
        int u = 0;
        while (u < n_cal &&
               (strcmp(cal[u].workload, c->workload) || strcmp(cal[u].args, c->args) || cal[u].sim != c->sim))
            u++;
        if (u == n_cal) {
            cal[u].workload = c->workload;
            cal[u].args = c->args;
            cal[u].sim = c->sim;
            cal[u].runner = c->sim ? &s->sim_runner : &s->runner;
            cal[u].target = c->sim ? s->o.sim_target : s->o.target;
            cal[u].key = sw_plan_unit_key(c);
            n_cal++;
        }
        unit_of[i] = u;
    }
    s->cal = cal, s->n_cal = n_cal, s->unit_of = unit_of;
    free(owned);
}

/* Calibrates every unit without a stored calibration (and with
 * native_rates, measures the simulated units' native rate); stops early on
 * a signal. */
static void calibrate_units(sweep *s, int native_rates) {
    sw_calib *cal = s->cal;
    for (int i = 0; i < s->n_cal && !stop_signal; i++) {
        char *status = NULL, *failure = NULL, *sum = NULL;
        double secs;
        if (sw_db_get_calibration(&s->db, cal[i].key, &cal[i].size, &sum, &status, &failure, &secs)) {
            cal[i].checksum = sum;
            cal[i].ok = status && !strcmp(status, "ok");
            cal[i].failure = failure;
            cal[i].seconds = secs;
            free(status);
        } else {
            sw_calib_unit(calib_ctx(s), &cal[i]);
        }
        if (native_rates && cal[i].sim && !stop_signal)
            sw_calib_native_rate(calib_ctx(s), &cal[i]);
    }
}

static void free_units(sweep *s) {
    for (int i = 0; i < s->n_cal; i++) {
        free(s->cal[i].checksum);
        free(s->cal[i].failure);
        free(s->cal[i].key);
    }
    free(s->cal);
    free(s->unit_of);
    s->cal = NULL, s->unit_of = NULL, s->n_cal = 0;
}

/* The cells (the stored ones on --resume, else the plan's), their
 * calibration units (every (workload, args, backend) in plan order, into
 * s->cal and s->unit_of), the calibration of every unit without a stored
 * one, the simulated part's native rates and signal delivery cost; then the
 * plan with every cell's calibrated size, stored once.  Stops early on a
 * signal (stop_signal), leaving the plan unstored if it was. */
static void calibrate_plan(sweep *s) {
    int plan_stored = sw_db_count(&s->db, "cells") > 0;
    if (plan_stored)
        s->n_cells = sw_db_load_cells(&s->db, &s->cells, legacy_time_mode(&s->o));
    else
        s->n_cells = sw_plan_cells(&s->o, s->workloads, s->n_workloads, &s->cells);
    make_units(s);
    calibrate_units(s, 1);
    for (int i = 0; i < s->n_cells && !stop_signal; i++)
        if (s->cells[i].sim && s->cells[i].time_hz) {
            measure_delivery(s);
            break;
        }
    if (s->sim_runner.valgrind)
        sw_db_store_events(&s->db, sw_run_sim_counters());

    /* The plan: stored once, with every cell's calibrated size. */
    if (!stop_signal && !plan_stored) {
        for (int i = 0; i < s->n_cells; i++)
            s->cells[i].size = s->unit_of[i] >= 0 ? s->cal[s->unit_of[i]].size : 0;
        sw_slot *slots;
        int n = sw_plan_schedule_all(&s->o, s->cells, s->n_cells, &slots);
        sw_schedcheck(&s->o, s->cells, s->n_cells, slots, n);
        int *owned = sw_shard_owned(&s->o, s->cells, s->n_cells); /* --shard: its part of the schedule */
        if (owned) {
            n = sw_shard_keep(owned, slots, n);
            char *groups = sw_shard_describe(s->cells, s->n_cells, owned);
            sw_db_meta_set(&s->db, "shard_groups", groups);
            free(groups);
        }
        sw_db_store_plan(&s->db, s->cells, s->n_cells, slots, n);
        store_plan_meta(s, n);
        free(slots);
        free(owned);
    }
}

/* ---- --plan and its estimated duration -------------------------------- */

/* The stored time of the cell labelled label in the sim backend or not, -1
 * if there is none. */
static int64_t stored_time(const sw_db_cell_time *t, int n, const char *label, int sim) {
    for (int i = 0; i < n; i++)
        if (t[i].sim == sim && t[i].runs > 0 && !strcmp(t[i].label, label))
            return t[i].median;
    return -1;
}

/* The baseline cell of cell i in the same backend (same workload and
 * arguments), -1 if none. */
static int own_baseline(const sw_cell *cells, int n, int i) {
    for (int j = 0; j < n; j++)
        if (!strcmp(cells[j].kind, "baseline") && cells[j].sim == cells[i].sim &&
            !strcmp(cells[j].workload, cells[i].workload) && !strcmp(cells[j].args, cells[i].args))
            return j;
    return -1;
}

/* --from DIR: each cell's per-run time is the median wall time of its ok
 * runs in DIR (same label and backend); a cell DIR did not run takes its
 * baseline's, and a unit DIR has no runs of at all its calibrated baseline
 * CPU time; the overheads are the medians of DIR's runs'. */
static void estimate_from_sweep(sweep *s, const sw_cell *cells, int n, int64_t *run_ns, int64_t *overhead,
                                sw_buf *basis) {
    sw_db d;
    sw_db_open_readonly(&d, s->o.from_dir);
    sw_db_cell_time *t;
    int nt = sw_db_cell_times(&d, &t);
    for (int i = 0; i < n; i++) {
        int64_t v = stored_time(t, nt, cells[i].label, cells[i].sim);
        int b = v < 0 ? own_baseline(cells, n, i) : -1;
        if (b >= 0)
            v = stored_time(t, nt, cells[b].label, cells[b].sim);
        if (v < 0) {
            char *key = sw_plan_unit_key(&cells[i]);
            uint64_t size;
            char *sum = NULL, *status = NULL, *failure = NULL;
            double secs;
            if (sw_db_get_calibration(&d, key, &size, &sum, &status, &failure, &secs) && status &&
                !strcmp(status, "ok") && secs > 0)
                v = llround(secs * 1e9);
            free(key), free(sum), free(status), free(failure);
        }
        run_ns[i] = v;
    }
    overhead[0] = sw_db_median_overhead(&d, 0);
    overhead[1] = sw_db_median_overhead(&d, 1);
    sw_buf_printf(basis,
                  "the runs stored in %s: per cell, the median wall time of its ok runs (a cell it did not run: its "
                  "baseline's; a workload it did not run: its calibrated baseline CPU time); harness overhead per "
                  "run: the median of its runs'",
                  d.path);
    sw_db_cell_times_free(t, nt);
    sw_db_close_readonly(&d);
}

static int cmp_i64(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

/* The median of v[0..n-1] (sorted in place; of two middle values, the mean
 * rounded down), -1 if n is 0. */
static int64_t median_i64(int64_t *v, int n) {
    if (!n)
        return -1;
    qsort(v, (size_t)n, sizeof *v, cmp_i64);
    return n % 2 ? v[n / 2] : v[n / 2 - 1] + (v[n / 2] - v[n / 2 - 1]) / 2;
}

/* --estimate: calibrates the plan's units now, as a sweep would (the CPU
 * lock, pinned, a private temporary directory, the probes stored in a
 * database in memory), and takes each cell's per-run time from its unit's
 * calibrated baseline CPU time and the overheads from the probes. */
static void estimate_by_calibrating(sweep *s, sw_cell *cells, int n, int64_t *run_ns, int64_t *overhead, sw_buf *basis,
                                    double *wall_factor) {
    s->o.keep_profiles = 0; /* nothing is kept */
    take_machine(s);
    sw_db_create_memory(&s->db);
    prepare_runners(s);
    s->cells = cells, s->n_cells = n;
    make_units(s);
    calibrate_units(s, 0);
    if (stop_signal) {
        cleanup_tmp();
        fprintf(stderr, "sweep: --plan --estimate interrupted during calibration; nothing was created\n");
        exit(1);
    }
    for (int i = 0; i < n; i++) { /* (--shard: other shards' cells are not calibrated here) */
        const sw_calib *c = s->unit_of[i] >= 0 ? &s->cal[s->unit_of[i]] : NULL;
        run_ns[i] = c && c->ok ? llround(c->seconds * 1e9) : -1;
    }
    for (int k = 0; k < 2; k++)
        overhead[k] = median_i64(s->cx.probe_overhead[k], s->cx.n_probe_overhead[k]);
    sw_buf_printf(basis,
                  "calibrating now (%d probes): per cell, its workload's calibrated baseline CPU time per run; "
                  "harness overhead per run: the median of the probes'",
                  s->cx.n_probe_overhead[0] + s->cx.n_probe_overhead[1]);
    /* The probes' wall time over their CPU time, per part: how much longer
     * than its CPU time a pinned run takes under the load of now. */
    sw_db_rows rows;
    char *why = NULL;
    wall_factor[0] = wall_factor[1] = 0;
    if (sw_db_query(&s->db,
                    "SELECT workload LIKE 'sim:%', sum(wall_ns), sum(cpu_ns) FROM calibration_probes WHERE status = "
                    "'ok' GROUP BY 1",
                    NULL, &rows, &why) == 0) {
        for (int r = 0; r < rows.n; r++)
            wall_factor[atoi(sw_db_at(&rows, r, 0)) ? 1 : 0] =
                sw_plan_wall_factor(atoll(sw_db_at(&rows, r, 1)), atoll(sw_db_at(&rows, r, 2)));
        sw_db_rows_free(&rows);
    }
    free(why);
    free_units(s);
    s->cells = NULL, s->n_cells = 0;
    sw_db_close(&s->db);
    cleanup_tmp();
}

/* "1234.567 s (20m35s)" */
static void put_seconds(sw_buf *b, int64_t ns) {
    char el[32];
    fmt_duration(el, sizeof el, (double)ns / 1e9);
    sw_buf_printf(b, "%.3f s (%s)", (double)ns / 1e9, el);
}

/* The estimate lines of --plan (see docs/HARNESS.md, "The plan and its
 * estimated duration"). */
static char *plan_estimate(sweep *s, sw_cell *cells, int n) {
    sw_buf b = {0};
    if (!s->o.from_dir && !s->o.estimate) {
        sw_buf_puts(&b, "estimate: none (--from DIR estimates the duration from a previous sweep's run times, "
                        "--estimate by calibrating now)\n");
        return b.data;
    }
    int64_t *run_ns = ct_xcalloc((size_t)(n ? n : 1), sizeof *run_ns), overhead[2];
    sw_buf basis = {0};
    double wall_factor[2] = {0, 0};
    if (s->o.from_dir)
        estimate_from_sweep(s, cells, n, run_ns, overhead, &basis);
    else
        estimate_by_calibrating(s, cells, n, run_ns, overhead, &basis, wall_factor);
    sw_slot *slots;
    int n_slots = sw_plan_schedule_all(&s->o, cells, n, &slots);
    int *owned = sw_shard_owned(&s->o, cells, n); /* --shard: the estimate of its part */
    if (owned)
        n_slots = sw_shard_keep(owned, slots, n_slots);
    free(owned);
    int jobs = s->o.sim_jobs ? s->o.sim_jobs : sw_pool_cpus();
    sw_estimate e;
    sw_plan_estimate(cells, slots, n_slots, run_ns, overhead[0] > 0 ? overhead[0] : 0,
                     overhead[1] > 0 ? overhead[1] : 0, jobs, &e);
    sw_buf_printf(&b, "estimate: from %s; per-run time x runs + harness overhead per run\n", basis.data);
    static const char *const part[2] = {"timed part", "simulated part"};
    for (int k = 0; k < 2; k++) {
        int runs = k ? e.sim_runs : e.timed_runs;
        if (!runs)
            continue;
        sw_buf_printf(&b, "estimate: %s: %d runs, %.3f s of runs + %d x ", part[k], runs,
                      (double)(k ? e.sim_run_ns : e.timed_run_ns) / 1e9, runs);
        if (overhead[k] >= 0)
            sw_buf_printf(&b, "%.3f ms", (double)overhead[k] / 1e6);
        else
            sw_buf_puts(&b, "0 ms (unknown: no runs to measure it on)");
        sw_buf_puts(&b, " of harness overhead");
        if (k)
            sw_buf_printf(&b, ", %d at once", jobs);
        sw_buf_puts(&b, " = ");
        put_seconds(&b, k ? e.sim_ns : e.timed_ns);
        sw_buf_puts(&b, "\n");
    }
    if (s->o.from_dir) {
        sw_buf_puts(&b,
                    "estimate: wall time: the lines above (the stored runs' wall times, under the load they had)\n");
    } else if (e.timed_runs || e.sim_runs) {
        double load[3];
        char *line = sw_plan_wall_line(&e, wall_factor, getloadavg(load, 3) == 3 ? load : NULL, s->o.cpu);
        sw_buf_puts(&b, line);
        free(line);
    }
    if (e.unknown_runs) {
        int n_unknown = 0;
        sw_buf labels = {0};
        for (int i = 0; i < n; i++)
            if (run_ns[i] < 0 && n_unknown++ < 5)
                sw_buf_printf(&labels, "%s%s", labels.len ? ", " : "", cells[i].label);
        sw_buf_printf(&b, "estimate: not counted: %d runs of %d cells with no time in the basis (%s%s)\n",
                      e.unknown_runs, n_unknown, labels.data, n_unknown > 5 ? ", ..." : "");
        sw_buf_free(&labels);
    }
    if (s->o.halfwidth > 0 && s->o.max_runs > s->o.runs && e.timed_runs) {
        sw_buf_printf(&b, "estimate: adaptive rounds (--halfwidth) not counted: up to %d more rounds of at most ",
                      s->o.max_runs - s->o.runs);
        put_seconds(&b, e.round_ns);
        sw_buf_puts(&b, " each\n");
    }
    sw_buf_free(&basis);
    free(slots);
    free(run_ns);
    return b.data;
}

/* --plan: prints the cells, the run order and the estimated duration;
 * creates nothing. */
static int show_plan(sweep *s) {
    sw_cell *cells;
    int n = sw_plan_cells(&s->o, s->workloads, s->n_workloads, &cells);
    char *estimate = plan_estimate(s, cells, n);
    if (s->levels_why)
        printf("levels: %s\n", s->levels_why);
    print_plan(&s->o, cells, n, estimate, s->time_modes_why);
    free(estimate);
    sw_plan_free_cells(cells, n);
    return 0;
}

/* The native runs of missing (schedule order), one at a time, pinned and
 * timed: each block is stored whole when its last run is done, so an
 * interrupted sweep never holds half a block (--resume reruns it).  Updates
 * s->done and s->failed; a block cut short by a signal is not stored and
 * not counted. */
static void run_timed(sweep *s, const sw_slot *missing, int n_missing) {
    sw_run_result pend_res[2];
    sw_run_row pend_row[2];
    int n_pend = 0;
    for (int i = 0; i < n_missing && !stop_signal; i++) {
        uint64_t t0 = sw_now_ns();
        const sw_slot *slot = &missing[i];
        if (slot->cell < 0 || slot->cell >= s->n_cells || s->unit_of[slot->cell] < 0)
            sw_fatal("%s: the schedule names cell %d, which does not exist%s", s->db.path, slot->cell + 1,
                     slot->cell >= 0 && slot->cell < s->n_cells ? " in this shard" : "");
        const sw_cell *cell = &s->cells[slot->cell];
        if (cell->sim)
            continue;
        const sw_calib *c = &s->cal[s->unit_of[slot->cell]];
        progress(s, s->done, s->total, s->failed, cell->label, 0);
        sw_run_result res;
        sw_noise noise = {.steal_ns = -1, .other_busy_ns = -1, .loadavg1 = -1};
        if (!c->ok) {
            memset(&res, 0, sizeof res);
            res.profile_bytes = -1;
            const char *why = c->failure ? c->failure : "?";
            int first = (int)strcspn(why, "\n");
            res.failure = sw_xasprintf("not run: the workload is unusable: %.*s", first, why);
            res.tail = why[first] ? ct_xstrdup(why + first + 1) : NULL;
            res.started_ns = sw_wallclock_ns();
        } else {
            double timeout = s->o.timeout > 0 ? s->o.timeout : 20 * c->seconds + 5;
            if (!files_unchanged(s, cell->workload, cell->label, slot->seq, slot->round))
                break;
            sw_noise_snap before, after;
            sw_noise_snapshot(&before);
            sw_run_cell(&s->runner, cell, slot->seq, slot->round, c->checksum, timeout, &res);
            sw_noise_snapshot(&after);
            if (res.interrupted) {
                sw_run_result_free(&res);
                break;
            }
            sw_noise_between(&before, &after, s->o.cpu, &noise);
            sw_noise_from_rusage(&res.exec.ru, &noise);
        }
        /* A row points into its result: both are kept until the block is stored. */
        pend_res[n_pend] = res;
        sw_run_row *row = &pend_row[n_pend];
        sw_run_to_row(&pend_res[n_pend], cell, slot->seq, slot->round, s->o.cpu, &s->counters, row);
        n_pend++;
        row->block = slot->block;
        row->block_pos = slot->pos;
        row->block_role = slot->role;
        row->replicate = slot->replicate;
        row->has_noise = c->ok;
        row->noise = noise;
        uint64_t t1 = sw_now_ns();
        uint64_t child = res.exec.wall_ns;
        row->overhead_ns = t1 - t0 > child ? t1 - t0 - child : 0;
        int block_open = slot->block && i + 1 < n_missing && missing[i + 1].block == slot->block && n_pend < 2;
        if (!block_open) {
            sw_db_store_runs(&s->db, pend_row, n_pend);
            uint64_t t2 = sw_now_ns();
            if (c->ok)
                s->overheads[s->n_overheads++] = t2 - t0 > child ? t2 - t0 - child : 0;
        }
        s->done++;
        if (res.failure) {
            s->failed++;
            if (c->ok) { /* runs of unusable workloads were announced at calibration */
                if (s->live)
                    progress_end(s);
                fprintf(stderr, "sweep: run %d %s round %d failed: %.*s\n", slot->seq, cell->label, slot->round,
                        (int)strcspn(res.failure, "\n"), res.failure);
            }
        }
        if (!block_open) {
            for (int k = 0; k < n_pend; k++)
                sw_run_result_free(&pend_res[k]);
            n_pend = 0;
        }
    }
    /* A block cut short by a signal is not stored: --resume reruns it whole. */
    s->done -= n_pend;
    for (int k = 0; k < n_pend; k++) {
        if (pend_res[k].failure)
            s->failed--;
        sw_run_result_free(&pend_res[k]);
    }
}

/* --halfwidth: decides the next adaptive round of the timed cells and
 * appends it to the schedule (sw_adapt).  Returns its runs (*missing, the
 * old list freed) or 0 when the rounds are over (stop signal, no
 * --halfwidth, --max-time or --max-runs reached, every interval narrow
 * enough), saying why on stderr.  *t_adapt is when this invocation's first
 * round was decided (0 before). */
static int next_adaptive_round(sweep *s, uint64_t *t_adapt, sw_slot **missing) {
    if (stop_signal || !(s->o.halfwidth > 0) || s->o.design != SW_DESIGN_BLOCKED)
        return 0;
    if (!*t_adapt)
        *t_adapt = sw_now_ns();
    else if (s->o.max_time > 0 && (double)(sw_now_ns() - *t_adapt) / 1e9 >= s->o.max_time) {
        if (s->live)
            progress_end(s);
        fprintf(stderr, "sweep: adaptive rounds: --max-time %.0f s reached\n", s->o.max_time);
        return 0;
    }
    free(*missing);
    *missing = NULL;
    int active = 0;
    int n_native_cells = 0; /* adaptive rounds are for the timed cells, which come first */
    while (n_native_cells < s->n_cells && !s->cells[n_native_cells].sim)
        n_native_cells++;
    int n = sw_adapt_next_round(&s->db, s->cells, n_native_cells, s->o.halfwidth, s->o.runs, s->o.max_runs, s->o.seed,
                                missing, &active);
    if (s->live)
        progress_end(s);
    if (!n) {
        if (active)
            fprintf(stderr,
                    "sweep: adaptive rounds: --max-runs %d reached, %d cells still short of the blocks for +-%g%%\n",
                    s->o.max_runs, active, s->o.halfwidth * 100);
        else
            fprintf(stderr, "sweep: adaptive rounds: every cell has the blocks for +-%g%%\n", s->o.halfwidth * 100);
        return 0;
    }
    fprintf(stderr, "sweep: adaptive round %d: %d cells short of the blocks for +-%g%%\n", (*missing)[0].round, active,
            s->o.halfwidth * 100);
    s->total += n;
    s->overheads = ct_xrealloc(s->overheads, (size_t)(s->n_overheads + n) * sizeof *s->overheads);
    return n;
}

/* The simulated runs of jobs, in parallel: their counts do not depend on
 * the load, and nothing is being timed any more.  Updates s->done and
 * s->failed. */
static void run_simulated(sweep *s, slot_job *jobs, int n_jobs) {
    run_state rs = {.s = s, .jobs = jobs, .total = s->total, .done = s->done, .failed = s->failed};
    if (n_jobs && !stop_signal) {
        int n_at_once = s->o.sim_jobs ? s->o.sim_jobs : sw_pool_cpus();
        if (s->live)
            progress_end(s);
        fprintf(stderr, "sweep: %d simulated runs, %d at once under valgrind\n", n_jobs, n_at_once);
        uint64_t t_sim = sw_now_ns();
        sw_pool_run(n_jobs, n_at_once, run_slot, record_slot, &rs, &stop_signal);
        char el[32];
        fmt_duration(el, sizeof el, (double)(sw_now_ns() - t_sim) / 1e9);
        if (s->live)
            progress_end(s);
        fprintf(stderr, "sweep: the simulated runs took %s\n", el);
    }
    s->done = rs.done;
    s->failed = rs.failed;
}

/* The runs still missing from the schedule: the timed part (the native
 * runs in schedule order, then with --halfwidth its adaptive rounds), then
 * the simulated part. */
static void run_schedule(sweep *s) {
    s->total = sw_db_count(&s->db, "schedule");
    sw_slot *missing = NULL;
    int n_missing = stop_signal ? 0 : sw_db_missing_slots(&s->db, &missing);
    s->done = s->total - n_missing;
    s->failed = sw_db_count_failed(&s->db);
    if (!stop_signal)
        fprintf(stderr, "sweep: %d runs planned, %d to run%s\n", s->total, n_missing, s->resuming ? " (resuming)" : "");
    s->overheads = ct_xcalloc((size_t)(n_missing ? n_missing : 1), sizeof *s->overheads);

    /* The simulated runs are taken out of the schedule first and run after
     * the native ones (and their adaptive rounds). */
    slot_job *jobs = ct_xcalloc((size_t)(n_missing ? n_missing : 1), sizeof *jobs);
    int n_jobs = 0;
    for (int i = 0; i < n_missing; i++) {
        const sw_slot *slot = &missing[i];
        if (slot->cell < 0 || slot->cell >= s->n_cells || !s->cells[slot->cell].sim || s->unit_of[slot->cell] < 0)
            continue;
        slot_job *j = &jobs[n_jobs++];
        j->slot = *slot;
        j->cell = &s->cells[slot->cell];
        j->cal = &s->cal[s->unit_of[slot->cell]];
    }
    /* The missing runs of the schedule, then (--halfwidth) adaptive rounds,
     * each appended to the schedule before it runs. */
    uint64_t t_adapt = 0;
    do
        run_timed(s, missing, n_missing);
    while ((n_missing = next_adaptive_round(s, &t_adapt, &missing)) > 0);
    run_simulated(s, jobs, n_jobs);
    free(jobs);
    progress(s, s->done, s->total, s->failed, NULL, 1);
    progress_end(s);
    free(missing);
    free_units(s);
}

/* The end: the closing metadata (load, harness overhead, status), runs.csv,
 * the summary on stderr and the results line on stdout.  Returns the exit
 * status: 0 complete and every run ok, SW_EXIT_RUNS_FAILED complete with
 * failed runs, 1 interrupted (with the --resume command). */
static int finish(sweep *s) {
    char *load = sw_meta_loadavg();
    sw_db_meta_set(&s->db, "loadavg_end", load);
    free(load);
    if (s->n_overheads) {
        qsort(s->overheads, (size_t)s->n_overheads, sizeof *s->overheads, cmp_u64);
        char v[64];
        snprintf(v, sizeof v, "%llu", (unsigned long long)s->overheads[s->n_overheads / 2]);
        sw_db_meta_set(&s->db, "harness_overhead_median_ns", v);
        snprintf(v, sizeof v, "%llu", (unsigned long long)s->overheads[s->n_overheads * 9 / 10]);
        sw_db_meta_set(&s->db, "harness_overhead_p90_ns", v);
    }
    int complete = s->total > 0 && s->done == s->total; /* total is 0 until the plan is stored */
    time_t now = time(NULL);
    char when[64];
    strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    sw_db_meta_set(&s->db, complete ? "finished_utc" : "interrupted_utc", when);
    sw_db_meta_set(&s->db, "status", complete ? "complete" : "interrupted");
    /* A file the runs depend on changed: what, and before which run. */
    char *change = sw_watch_changed(&s->watch)
                       ? sw_xasprintf("before %s: %s", s->changed_before, sw_watch_changed(&s->watch))
                       : NULL;
    if (change)
        sw_db_meta_set(&s->db, "stopped_by_change", change);
    char *csv = sw_xasprintf("%s/runs.csv", s->dir);
    sw_db_export_csv(&s->db, csv);

    report_failures(s);
    for (int i = 0; i < s->counters.n; i++)
        if (!s->counters.events[i].supported)
            fprintf(stderr, "sweep: counter %s not recorded: %s\n", s->counters.events[i].name,
                    s->counters.events[i].reason);
    if (s->n_overheads)
        fprintf(stderr, "sweep: harness overhead per run: median %.2f ms, p90 %.2f ms (%d runs)\n",
                (double)s->overheads[s->n_overheads / 2] / 1e6, (double)s->overheads[s->n_overheads * 9 / 10] / 1e6,
                s->n_overheads);
    sw_db_close(&s->db);
    cleanup_tmp();
    sw_watch_free(&s->watch);
    char el[32];
    fmt_duration(el, sizeof el, (double)(sw_now_ns() - s->t_start) / 1e9);
    if (!complete && change) {
        if (s->live)
            progress_end(s);
        fprintf(stderr, "sweep: stopped: a file the runs depend on changed since the sweep started, found %s\n",
                change);
        fprintf(stderr,
                "sweep: stopped after %s; %d of %d runs recorded, every one with the files the sweep started "
                "with. Going on would mix two builds in one sweep: put back the build it started with (the same "
                "files), then finish it with: sweep --resume %s; or start a new sweep\n",
                el, s->done, s->total, s->dir);
        free(csv), free(change);
        return 1;
    }
    free(change);
    if (!complete) {
        if (s->total == 0)
            fprintf(stderr, "sweep: interrupted after %s, during calibration. Finish it with: sweep --resume %s\n", el,
                    s->dir);
        else
            fprintf(stderr, "sweep: interrupted after %s; %d of %d runs recorded. Finish it with: sweep --resume %s\n",
                    el, s->done, s->total, s->dir);
        free(csv);
        return 1;
    }
    fprintf(stderr, "sweep: %d runs, %d failed, in %s\n", s->total, s->failed, el);
    printf("results: %s/results.db and %s\n", s->dir, csv);
    free(csv);
    /* Complete, but not every run measured: say so in the status too. */
    return s->failed ? SW_EXIT_RUNS_FAILED : 0;
}

int main(int argc, char **argv) {
    static sweep sw;
    sweep *s = &sw;
    current = s;
    s->t_start = sw_now_ns();
    if (argc > 1 && !strcmp(argv[1], "--merge")) /* sweep --merge OUT DIR...: sw_shard.h */
        return sw_shard_merge(argc - 2, argv + 2);
    parse_settings(s, argc, argv);
    warn_dropped_settings();
    if (s->o.plan_only)
        return show_plan(s);
    take_machine(s);
    open_results(s);
    prepare_runners(s);
    calibrate_plan(s);
    run_schedule(s);
    return finish(s);
}
