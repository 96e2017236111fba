/* sw_pfm.h - hardware and software counters through libpfm4 and
 * perf_event_open, counted on a child from its exec to its exit.
 *
 * Invariants:
 *  - Each event is encoded by libpfm4 (pfm_get_os_event_encoding, user level
 *    only, which perf_event_paranoid <= 2 allows) and probed once per sweep
 *    by opening it on the harness itself.  An event that cannot be encoded
 *    or opened is unsupported, with the reason in words; it is never opened
 *    for a run, so no zero is ever stored for it.
 *  - For a run, every supported event is opened on the child while the child
 *    waits before its exec: disabled, enable_on_exec, inherit (threads and
 *    children count too), reading time_enabled and time_running.  So the
 *    counts cover exactly the workload program, not the harness's fork.
 *  - Readings keep the raw value and both times; scaled = raw * enabled /
 *    running (equal to raw when the event ran the whole time).  An event that
 *    never ran (running == 0) has no reading and is reported as an error.
 */
#ifndef SW_PFM_H
#define SW_PFM_H

#include <stdint.h>
#include <sys/types.h>
#include <linux/perf_event.h>
#include "sw_util.h"

typedef struct sw_event {
    char *name;                  /* the name asked for (e.g. "cycles", "perf::task-clock") */
    int supported;               /* 1 if it can be counted here */
    char *reason;                /* why not, in words (NULL when supported) */
    char *encoding;              /* libpfm4's fully qualified name (NULL if not encoded) */
    struct perf_event_attr attr; /* the encoding (type, config, privilege bits) */
} sw_event;

typedef struct sw_counters {
    sw_event *events;  /* in the order asked for */
    int n;             /* number of events */
    int n_supported;   /* how many are supported */
    char *pfm_version; /* libpfm4 version, "4.x" (or why it failed to start) */
} sw_counters;

typedef struct sw_reading {
    uint64_t raw;          /* the count as read */
    uint64_t time_enabled; /* ns the event was enabled */
    uint64_t time_running; /* ns it was actually counting */
    double scaled;         /* raw * enabled / running */
    int ok;                /* 1 if this reading exists */
} sw_reading;

/* raw * enabled / running, the estimate of the full count of an event that
 * was multiplexed (counting only part of the time it was enabled); raw when
 * it ran the whole time.  running must be > 0. */
double sw_pfm_scale(uint64_t raw, uint64_t enabled, uint64_t running);

/* Initializes libpfm4 and probes each named event.  Never fails: problems
 * become "unsupported" with their reason. */
void sw_pfm_probe(sw_counters *c, char *const *names, int n);
void sw_pfm_free(sw_counters *c);

/* Opens every supported event on pid (which must not have exec'd yet),
 * storing the descriptors in fds[0..c->n) (-1 for unsupported or failed
 * events).  Failures are appended to errors as "event: reason; ". */
void sw_pfm_open(const sw_counters *c, pid_t pid, int *fds, sw_buf *errors);
/* Reads and closes the descriptors opened by sw_pfm_open into out[0..c->n). */
void sw_pfm_read(const sw_counters *c, int *fds, sw_reading *out, sw_buf *errors);
/* Closes the descriptors without reading (a run that never started). */
void sw_pfm_close(const sw_counters *c, int *fds);

#endif /* SW_PFM_H */
