/* sw_pfm.c - libpfm4 encoding, probing and per-run counting. */
#include "sw_pfm.h"

#include <errno.h>
#include <perfmon/pfmlib_perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static int perf_open(struct perf_event_attr *attr, pid_t pid) {
    return (int)syscall(SYS_perf_event_open, attr, pid, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

static int paranoid_level(void) {
    FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
    int level = -100;
    if (f) {
        if (fscanf(f, "%d", &level) != 1)
            level = -100;
        fclose(f);
    }
    return level;
}

/* Words for why perf_event_open refused an event. */
static char *open_failure(int err) {
    switch (err) {
    case ENOENT:
        return sw_xasprintf("perf_event_open: %s (the kernel offers no such counter here, e.g. no "
                            "hardware PMU in this virtual machine)",
                            strerror(err));
    case EACCES:
    case EPERM:
        return sw_xasprintf("perf_event_open: %s (not permitted at kernel.perf_event_paranoid=%d)", strerror(err),
                            paranoid_level());
    case EOPNOTSUPP:
        return sw_xasprintf("perf_event_open: %s (the PMU cannot count this event this way)", strerror(err));
    default: return sw_xasprintf("perf_event_open: %s", strerror(err));
    }
}

void sw_pfm_probe(sw_counters *c, char *const *names, int n) {
    memset(c, 0, sizeof *c);
    c->n = n;
    c->events = ct_xcalloc((size_t)(n ? n : 1), sizeof *c->events);
    int rc = pfm_initialize();
    if (rc == PFM_SUCCESS) {
        int v = pfm_get_version();
        c->pfm_version = sw_xasprintf("%d.%d", PFM_MAJ_VERSION(v), PFM_MIN_VERSION(v));
    } else {
        c->pfm_version = sw_xasprintf("unavailable (pfm_initialize: %s)", pfm_strerror(rc));
    }
    for (int i = 0; i < n; i++) {
        sw_event *e = &c->events[i];
        e->name = ct_xstrdup(names[i]);
        if (rc != PFM_SUCCESS) {
            e->reason = sw_xasprintf("libpfm4 did not start: %s", pfm_strerror(rc));
            continue;
        }
        pfm_perf_encode_arg_t arg;
        char *fstr = NULL;
        memset(&arg, 0, sizeof arg);
        arg.attr = &e->attr;
        arg.fstr = &fstr;
        arg.size = sizeof arg;
        int erc = pfm_get_os_event_encoding(e->name, PFM_PLM3, PFM_OS_PERF_EVENT_EXT, &arg);
        if (erc != PFM_SUCCESS) {
            e->reason = sw_xasprintf("libpfm4 cannot encode it: %s", pfm_strerror(erc));
            free(fstr);
            continue;
        }
        e->encoding = fstr ? fstr : ct_xstrdup(e->name);
        e->attr.size = sizeof e->attr;
        struct perf_event_attr probe = e->attr;
        probe.disabled = 1;
        int fd = perf_open(&probe, 0);
        if (fd < 0) {
            e->reason = open_failure(errno);
            continue;
        }
        close(fd);
        e->supported = 1;
        c->n_supported++;
    }
}

void sw_pfm_free(sw_counters *c) {
    for (int i = 0; i < c->n; i++) {
        free(c->events[i].name);
        free(c->events[i].reason);
        free(c->events[i].encoding);
    }
    free(c->events);
    free(c->pfm_version);
    memset(c, 0, sizeof *c);
}

double sw_pfm_scale(uint64_t raw, uint64_t enabled, uint64_t running) {
    if (enabled == running)
        return (double)raw;
    /* long double keeps the 64-bit product exact enough before the division. */
    return (double)((long double)raw * (long double)enabled / (long double)running);
}

void sw_pfm_open(const sw_counters *c, pid_t pid, int *fds, sw_buf *errors) {
    for (int i = 0; i < c->n; i++) {
        fds[i] = -1;
        if (!c->events[i].supported)
            continue;
        struct perf_event_attr attr = c->events[i].attr;
        attr.size = sizeof attr;
        attr.disabled = 1;
        attr.enable_on_exec = 1;
        attr.inherit = 1;
        attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
        fds[i] = perf_open(&attr, pid);
        if (fds[i] < 0) {
            char *why = open_failure(errno);
            sw_buf_printf(errors, "%s: %s; ", c->events[i].name, why);
            free(why);
        }
    }
}

void sw_pfm_read(const sw_counters *c, int *fds, sw_reading *out, sw_buf *errors) {
    for (int i = 0; i < c->n; i++) {
        memset(&out[i], 0, sizeof out[i]);
        if (fds[i] < 0)
            continue;
        uint64_t v[3];
        ssize_t got = read(fds[i], v, sizeof v);
        if (got != (ssize_t)sizeof v) {
            sw_buf_printf(errors, "%s: read gave %zd bytes (%s); ", c->events[i].name, got,
                          got < 0 ? strerror(errno) : "short");
        } else if (v[2] == 0) {
            sw_buf_printf(errors, "%s: never scheduled (time_running 0); ", c->events[i].name);
        } else {
            out[i].raw = v[0];
            out[i].time_enabled = v[1];
            out[i].time_running = v[2];
            out[i].scaled = sw_pfm_scale(v[0], v[1], v[2]);
            out[i].ok = 1;
        }
        close(fds[i]);
        fds[i] = -1;
    }
}

void sw_pfm_close(const sw_counters *c, int *fds) {
    for (int i = 0; i < c->n; i++)
        if (fds[i] >= 0) {
            close(fds[i]);
            fds[i] = -1;
        }
}
