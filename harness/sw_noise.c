/* sw_noise.c - steal, other CPUs' busy time, load average around a run. */
#include "sw_noise.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Reads a small /proc file into buf; returns its length or -1. */
static long read_small(const char *path, char *buf, size_t size) {
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    size_t n = fread(buf, 1, size - 1, f);
    fclose(f);
    buf[n] = '\0';
    return (long)n;
}

void sw_noise_parse_stat(const char *text, sw_noise_snap *s) {
    s->ncpus = 0;
    for (const char *line = text; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
        int cpu, used = 0;
        unsigned long long v[8] = {0};
        /* "cpuN user nice system idle iowait irq softirq steal ..." */
        if (strncmp(line, "cpu", 3) || line[3] < '0' || line[3] > '9')
            continue;
        if (sscanf(line, "cpu%d %llu %llu %llu %llu %llu %llu %llu %llu%n", &cpu, &v[0], &v[1], &v[2], &v[3], &v[4],
                   &v[5], &v[6], &v[7], &used) < 9)
            continue;
        if (s->ncpus == SW_NOISE_MAX_CPUS)
            break;
        s->cpu[s->ncpus] = cpu;
        s->busy[s->ncpus] = v[0] + v[1] + v[2] + v[5] + v[6];
        s->steal[s->ncpus] = v[7];
        s->ncpus++;
    }
}

void sw_noise_snapshot(sw_noise_snap *s) {
    static char buf[1 << 16];
    s->ncpus = 0;
    s->loadavg1 = -1;
    if (read_small("/proc/stat", buf, sizeof buf) > 0)
        sw_noise_parse_stat(buf, s);
    char la[256];
    if (read_small("/proc/loadavg", la, sizeof la) > 0) {
        double l;
        if (sscanf(la, "%lf", &l) == 1)
            s->loadavg1 = l;
    }
}

void sw_noise_between(const sw_noise_snap *a, const sw_noise_snap *b, int cpu, sw_noise *out) {
    long tick = sysconf(_SC_CLK_TCK);
    double ns = 1e9 / (double)(tick > 0 ? tick : 100);
    out->steal_ns = -1;
    out->other_busy_ns = -1;
    out->loadavg1 = a->loadavg1;
    if (!a->ncpus || a->ncpus != b->ncpus)
        return;
    uint64_t other = 0;
    int others = 0;
    for (int i = 0; i < a->ncpus; i++) {
        if (a->cpu[i] != b->cpu[i])
            return; /* CPUs came or went: no figure */
        if (a->cpu[i] == cpu)
            out->steal_ns = (int64_t)((double)(b->steal[i] - a->steal[i]) * ns);
        else {
            other += b->busy[i] - a->busy[i];
            others++;
        }
    }
    if (others)
        out->other_busy_ns = (int64_t)((double)other * ns);
}

void sw_noise_from_rusage(const struct rusage *ru, sw_noise *out) {
    out->nivcsw = ru->ru_nivcsw;
    out->minflt = ru->ru_minflt;
}
