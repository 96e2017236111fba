/* sw_calib.c - calibration (sw_calib.h). */
#define _GNU_SOURCE
#include "sw_calib.h"
#include "sw_cmd.h"
#include "sw_util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

/* Runs one calibration probe (a plain run at size) and stores it.  Returns
 * the child's CPU time (user + system, from wait4) in seconds: CPU time, not
 * wall time, so that the sizes do not shrink when other work competes for
 * the machine during calibration.  INFINITY if it timed out; -1 if it failed
 * (*why says how; *bad_size is set when it refused the size, exit 2). */
static double probe(sw_calib_ctx *s, const sw_calib *u, uint64_t size, double timeout, int probe_no, char **why,
                    int *bad_size) {
    sw_exec_res res;
    char *sum = NULL;
    const char *w = u->workload;
    *bad_size = 0;
    if (!s->unchanged(s->sweep, w, "a calibration probe"))
        return -1;
    uint64_t t0 = sw_now_ns();
    int rc = sw_run_probe(u->runner, w, u->args, size, timeout, &res, &sum);
    uint64_t spent = sw_now_ns() - t0;
    /* The harness's time for the probe outside the child's life (what
     * --plan --estimate counts per run). */
    int64_t *oh = s->probe_overhead[u->sim] =
        ct_xrealloc(s->probe_overhead[u->sim], (size_t)(s->n_probe_overhead[u->sim] + 1) * sizeof *oh);
    oh[s->n_probe_overhead[u->sim]++] = spent > res.wall_ns ? (int64_t)(spent - res.wall_ns) : 0;
    double t = (double)(res.ru.ru_utime.tv_sec + res.ru.ru_stime.tv_sec) +
               (double)(res.ru.ru_utime.tv_usec + res.ru.ru_stime.tv_usec) / 1e6;
    const char *status = "ok";
    *bad_size = 0;
    if (rc != 0) {
        if (res.timed_out) {
            t = INFINITY;
            status = "timeout";
        } else {
            sw_exec_req req = {.path = w, .timeout = timeout};
            char *f = sw_exec_failure(&req, &res);
            char *tail = sw_exec_tail(&res, 5);
            *why = sw_xasprintf("--size %llu: %s\n%s", (unsigned long long)size, f ? f : "?", tail);
            *bad_size = !res.exec_errno && WIFEXITED(res.status) && WEXITSTATUS(res.status) == 2;
            free(f), free(tail);
            t = -1;
            status = "failed";
        }
    } else if (!sum) {
        *why = sw_xasprintf("--size %llu: no 'checksum <value>' line on stdout", (unsigned long long)size);
        t = -1;
        status = "failed";
    }
    if (res.interrupted)
        t = -1;
    sw_db_store_probe(s->db, u->key, probe_no, size, res.wall_ns, t >= 0 && !isinf(t) ? (uint64_t)(t * 1e9) : 0,
                      status);
    free(sum);
    sw_exec_res_free(&res);
    return t;
}

/* Is size s (CPU time t) a better calibration than bs (time bt) for the
 * target?  Time grows with the size, so when both are below the target the
 * larger size is the closer one in expectation, and when both are above it
 * the smaller: a noisy measurement cannot swap two sizes on the same side
 * (99 and 100 both below the target took turns under load).  Only when they
 * straddle the target do the measured distances (in log) decide. */
static int better_size(uint64_t s, double t, uint64_t bs, double bt, double target) {
    if (bt < 0)
        return 1;
    if (t <= target && bt <= target)
        return s > bs;
    if (t >= target && bt >= target)
        return s < bs;
    return fabs(log(t / target)) < fabs(log(bt / target));
}

/* A probe's timeout for a target of target seconds of CPU.  A probe under
 * valgrind starts slowly (about 0.25 s of CPU for freecheck's workloads,
 * 30-60 s for a JVM's start-up, 150-240 s of wall time for Node's at a
 * load of 6-14 on two CPUs) and shares the machine with the other
 * simulated work: it gets room, as the simulated runs get (their counts do
 * not depend on how long they take).  A native probe gets ten times the
 * target. */
static double probe_timeout(const sw_calib *c, double target) { return c->sim ? 20 * target + 600 : 10 * target + 2; }

/* The next size to probe after size took t seconds: grow by the ratio to the
 * target (2 to 4 times) until a size passes it, then bisect or interpolate
 * in log-log space between lo_s and hi_s; returns 0 when the search cannot
 * narrow further (then the best size seen stands). */
static int next_size(uint64_t size, double t, double target, uint64_t lo_s, double lo_t, uint64_t hi_s, double hi_t,
                     uint64_t *nextp) {
    uint64_t next;
    if (!hi_s) {
        /* Below 2 ms the time is mostly process start-up: just double. */
        double f = t < 0.002 ? 2 : target / t;
        next = (uint64_t)((double)size * (f < 2 ? 2 : f > 4 ? 4 : f));
    } else if (!lo_s || lo_t <= 0) {
        if (hi_s <= (lo_s ? lo_s + 1 : 1))
            return 0; /* the smallest accepted size is already too slow */
        uint64_t low = lo_s ? lo_s : 1;
        next = low + (hi_s - low) / 2;
    } else {
        if (hi_s - lo_s <= 1)
            return 0;
        double k = isinf(hi_t) ? 0 : log(hi_t / lo_t) / log((double)hi_s / (double)lo_s);
        double guess = k > 0.05 ? (double)lo_s * pow(target / lo_t, 1 / k) : sqrt((double)lo_s * (double)hi_s);
        next = (uint64_t)llround(guess);
        if (next <= lo_s)
            next = lo_s + 1;
        if (next >= hi_s)
            next = hi_s - 1;
    }
    if (next == size)
        return 0;
    *nextp = next;
    return 1;
}

/* Finds the --size whose baseline takes about o.target seconds of CPU: doubling
 * until the target is passed, then interpolating in log-log space between
 * the two sizes around it (so both linear and steeper workloads converge in
 * a few probes).  Every probe is recorded. */
static void calibrate_size(sw_calib_ctx *s, sw_calib *c, int *probes) {
    double target = c->target, timeout = probe_timeout(c, target);
    uint64_t lo_s = 0, hi_s = 0, size = 1;
    double lo_t = 0, hi_t = 0;
    uint64_t best_s = 0;
    double best_t = -1;
    int bad_sizes = 0;
    /* calibrate=work (sw_cmd.h): the first two sizes that run, N and 2N, give
     * the fixed cost 2 t(N) - t(2N); the target is the work beyond it. */
    const sw_command *cmd = sw_cmd_find(c->workload);
    int work = cmd && cmd->system->calibrate_work;
    uint64_t first_s = 0;
    double first_t = -1;
    c->fixed_cost = -1;
    for (*probes = 0; *probes < 40;) {
        char *why = NULL;
        int bad_size;
        double t = probe(s, c, size, timeout, ++*probes, &why, &bad_size);
        if (*s->stop) {
            free(why);
            c->failure = ct_xstrdup("interrupted");
            return;
        }
        if (t < 0 && bad_size && best_t < 0 && !hi_s && ++bad_sizes <= 20) {
            /* Before any size ran, a refused size (exit 2) is too small: try larger. */
            free(why);
            lo_s = size;
            lo_t = 0;
            size *= 2;
            continue;
        }
        if (t < 0 && bad_size && best_t >= 0) {
            /* After a size ran, a refused one is above the workload's maximum:
             * treat it as too slow and search below it. */
            t = INFINITY;
        } else if (t < 0) {
            c->failure = why;
            return;
        }
        free(why);
        if (work && c->fixed_cost < 0 && !isinf(t)) {
            if (first_t < 0) {
                first_s = size, first_t = t;
                size *= 2;
                continue;
            }
            c->fixed_cost = fmax(0, 2 * first_t - t);
            target = c->target + c->fixed_cost;
            timeout = probe_timeout(c, target);
            best_s = first_s, best_t = first_t;
            if (first_t < target)
                lo_s = first_s, lo_t = first_t;
            else
                hi_s = first_s, hi_t = first_t;
        }
        if (!isinf(t) && better_size(size, t, best_s, best_t, target)) {
            best_s = size;
            best_t = t;
        }
        if (fabs(t - target) <= 0.15 * target)
            break;
        if (size >= ((uint64_t)1 << 60))
            break; /* the time does not grow with the size: keep the best seen */
        if (t < target) {
            lo_s = size, lo_t = t;
        } else {
            hi_s = size, hi_t = t;
        }
        if (!next_size(size, t, target, lo_s, lo_t, hi_s, hi_t, &size))
            break;
    }
    if (best_t < 0) {
        c->failure = ct_xstrdup("no size ran successfully");
        return;
    }
    c->size = best_s;
    c->seconds = best_t;
    c->ok = 1;
}

/* --sizes-from: the size unit key had in the sweep it names, 0 if none. */
static uint64_t size_from(const sw_calib_ctx *s, const char *key) {
    for (int i = 0; i < s->n_from; i++)
        if (!strcmp(s->from_key[i], key))
            return s->from_size[i];
    return 0;
}

/* --sizes-from DIR: every calibration unit of the plan must have an ok
 * calibration in DIR, read now (before anything is created) into
 * s->from_key and s->from_size; a unit without one is refused. */
void sw_calib_load_sizes_from(sw_calib_ctx *s) {
    if (!s->o->sizes_from)
        return;
    sw_db d;
    sw_db_open_readonly(&d, s->o->sizes_from);
    sw_cell *cells;
    int n = sw_plan_cells(s->o, s->workloads, s->n_workloads, &cells);
    s->from_key = ct_xcalloc((size_t)(n ? n : 1), sizeof *s->from_key);
    s->from_size = ct_xcalloc((size_t)(n ? n : 1), sizeof *s->from_size);
    for (int i = 0; i < n; i++) {
        if ((cells[i].sim && !s->o->backend_sim) || (!cells[i].sim && !s->o->backend_native))
            continue;
        char *key = sw_plan_unit_key(&cells[i]);
        if (size_from(s, key)) {
            free(key);
            continue;
        }
        uint64_t size = 0;
        char *sum = NULL, *status = NULL, *failure = NULL;
        double secs;
        int found = sw_db_get_calibration(&d, key, &size, &sum, &status, &failure, &secs) == 1;
        if (!found || !status || strcmp(status, "ok") || !size)
            sw_usage_error("sizes-from: %s has %s for %s%s%s: give a sweep that calibrated every workload of this plan "
                           "(or --size %s=N)",
                           d.path, found ? "no usable calibration" : "no calibration", key, failure ? ": " : "",
                           failure ? failure : "", cells[i].workload);
        s->from_key[s->n_from] = key;
        s->from_size[s->n_from++] = size;
        free(sum), free(status), free(failure);
    }
    sw_plan_free_cells(cells, n);
    sw_db_close_readonly(&d);
}

/* Calibrates one workload (or times its fixed size), then runs --check
 * once at that size for the reference checksum.  Stores the outcome. */
void sw_calib_unit(sw_calib_ctx *s, sw_calib *c) {
    const char *w = c->workload;
    uint64_t fixed = c->sim ? sw_opts_fixed_sim_size(s->o, w) : sw_opts_fixed_size(s->o, w);
    int from = !fixed && s->o->sizes_from && (fixed = size_from(s, c->key)) != 0;
    const sw_command *cmd = sw_cmd_find(w);
    if (!fixed && c->sim && cmd && cmd->sim_size)
        fixed = cmd->sim_size; /* the list's sim-size= (sw_cmd.h) */
    if (cmd && !cmd->sized)
        fixed = 1; /* a command without {size}: its work is fixed */
    int probes = 0;
    const char *method = from ? "sizes-from" : fixed ? "fixed" : c->sim ? "calibrated under valgrind" : "calibrated";
    char *method_work = NULL;
    if (fixed) {
        char *why = NULL;
        int bad_size;
        /* A fixed size's one probe: the same room as a calibration's
         * (under valgrind, node's start-up alone passed 10 x target + 60 s). */
        double t = probe(s, c, fixed, probe_timeout(c, c->target) + 58, 1, &why, &bad_size);
        probes = 1;
        if (t < 0 || isinf(t)) {
            c->failure = why ? why : sw_xasprintf("--size %llu timed out", (unsigned long long)fixed);
        } else {
            c->size = fixed, c->seconds = t, c->ok = 1;
            free(why);
        }
    } else {
        calibrate_size(s, c, &probes);
        if (c->fixed_cost >= 0)
            method = method_work =
                sw_xasprintf("%s, the target beyond a fixed cost of %.3f s (calibrate=work)", method, c->fixed_cost);
    }
    if (*s->stop) {
        free(method_work);
        return;
    }
    if (c->ok && !(cmd && cmd->check == SW_CHECK_NONE)) {
        sw_exec_res res;
        char *sum = NULL;
        /* The reference checksum: a command's from its check= (sw_cmd.h). */
        const char *ref = cmd && cmd->check == SW_CHECK_LIKE ? cmd->like : w;
        const char *flag = cmd && cmd->check == SW_CHECK_SELF ? NULL : "--check";
        if (!s->unchanged(s->sweep, ref, "the reference (--check) run")) {
            free(method_work);
            return;
        }
        int rc = sw_run_plain(s->runner, ref, c->args, c->size, flag, 60 * c->seconds + 30, &res, &sum);
        if (rc != 0 || !sum) {
            sw_exec_req req = {.path = w, .timeout = 60 * c->seconds + 30};
            char *f = sw_exec_failure(&req, &res);
            char *tail = sw_exec_tail(&res, 5);
            c->failure = sw_xasprintf("--check at --size %llu failed: %s\n%s", (unsigned long long)c->size,
                                      f ? f : "no 'checksum <value>' line", tail);
            c->ok = 0;
            free(f), free(tail), free(sum);
        } else {
            c->checksum = sum;
        }
        sw_exec_res_free(&res);
    }
    if (*s->stop) {
        free(method_work);
        return;
    }
    sw_db_store_calibration(s->db, c->key, c->size, c->seconds, c->checksum, method, probes, c->ok ? "ok" : "failed",
                            c->failure);
    if (c->ok)
        fprintf(stderr, "sweep: %s: --size %llu takes %.3f s of CPU%s (%s, %d probe%s); checksum %s\n", c->key,
                (unsigned long long)c->size, c->seconds, c->sim ? " under valgrind" : "", method, probes,
                probes == 1 ? "" : "s", c->checksum);
    else
        fprintf(stderr, "sweep: %s: unusable, its runs will be recorded as failed: %s\n", c->key, c->failure);
    free(method_work);
}

/* The simulated part's native rate: the median native CPU time of three
 * baseline runs at the simulated size (what converts counted instructions
 * into time at native speed; docs/HARNESS.md).  Stored once. */
void sw_calib_native_rate(sw_calib_ctx *s, const sw_calib *c) {
    if (!c->ok || sw_db_has_sim_native(s->db, c->key))
        return;
    enum { RUNS = 3 };
    uint64_t cpu[RUNS], wall[RUNS];
    int n = 0;
    for (int i = 0; i < RUNS && s->unchanged(s->sweep, c->workload, "a native rate run") && !*s->stop; i++) {
        sw_exec_res res;
        char *sum = NULL;
        if (sw_run_plain(s->runner, c->workload, c->args, c->size, NULL, 10 * c->seconds + 30, &res, &sum) == 0) {
            cpu[n] = (uint64_t)(res.ru.ru_utime.tv_sec + res.ru.ru_stime.tv_sec) * 1000000000u +
                     (uint64_t)(res.ru.ru_utime.tv_usec + res.ru.ru_stime.tv_usec) * 1000u;
            wall[n++] = res.wall_ns;
        }
        free(sum);
        sw_exec_res_free(&res);
    }
    if (n == 0 || *s->stop)
        return;
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && cpu[j - 1] > cpu[j]; j--) {
            uint64_t t = cpu[j], u = wall[j];
            cpu[j] = cpu[j - 1], wall[j] = wall[j - 1];
            cpu[j - 1] = t, wall[j - 1] = u;
        }
    sw_db_store_sim_native(s->db, c->key, c->size, n, cpu[n / 2], wall[n / 2]);
}
