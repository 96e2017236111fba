/* sw_noise.h - noise covariates of one run: what else the machine did while
 * it ran (docs/HARNESS.md, "Noise covariates").
 *
 * Invariants:
 *  - A snapshot reads /proc/stat (per-CPU times in USER_HZ ticks) and
 *    /proc/loadavg; sw_noise_between() turns two snapshots into the steal
 *    time of the run's CPU and the busy time (user + nice + system + irq +
 *    softirq) of every other CPU, in nanoseconds (tick resolution: 10 ms on
 *    a kernel with USER_HZ 100).  Values that could not be read are -1, never
 *    0: a missing /proc or a CPU that is not listed gives -1.
 *  - The involuntary context switches and minor faults come from the
 *    child's rusage (wait4), not from here; sw_noise_from_rusage() copies
 *    them.
 *  - Nothing here fails: unreadable files give -1 values.
 */
#ifndef SW_NOISE_H
#define SW_NOISE_H

#include <stdint.h>
#include <sys/resource.h>

#define SW_NOISE_MAX_CPUS 256

typedef struct sw_noise_snap {
    int ncpus;                         /* CPUs read, 0 if /proc/stat was unreadable */
    int cpu[SW_NOISE_MAX_CPUS];        /* their numbers */
    uint64_t busy[SW_NOISE_MAX_CPUS];  /* user + nice + system + irq + softirq, ticks */
    uint64_t steal[SW_NOISE_MAX_CPUS]; /* steal, ticks */
    double loadavg1;                   /* 1-minute load average, -1 if unreadable */
} sw_noise_snap;

typedef struct sw_noise {
    int64_t steal_ns;      /* steal time of the run's CPU over the run, -1 if unknown */
    int64_t other_busy_ns; /* busy time of the other CPUs over the run, -1 if unknown */
    int64_t nivcsw;        /* involuntary context switches of the child */
    int64_t minflt;        /* minor page faults of the child */
    double loadavg1;       /* 1-minute load average at the start, -1 if unknown */
} sw_noise;

/* Reads /proc/stat and /proc/loadavg now. */
void sw_noise_snapshot(sw_noise_snap *s);
/* Parses /proc/stat text into s (the load average is left alone). */
void sw_noise_parse_stat(const char *text, sw_noise_snap *s);
/* The covariates between two snapshots for a run pinned to cpu. */
void sw_noise_between(const sw_noise_snap *a, const sw_noise_snap *b, int cpu, sw_noise *out);
/* Copies the child's involuntary context switches and minor faults. */
void sw_noise_from_rusage(const struct rusage *ru, sw_noise *out);

#endif /* SW_NOISE_H */
