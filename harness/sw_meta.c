/* sw_meta.c - machine, build and library facts for results.db. */
#define _GNU_SOURCE
#include "sw_meta.h"
#include "sw_util.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#ifndef SW_BUILD_CC
#define SW_BUILD_CC "unknown"
#endif
#ifndef SW_BUILD_CFLAGS
#define SW_BUILD_CFLAGS "unknown"
#endif
#ifndef SW_PFM_PACKAGE
#define SW_PFM_PACKAGE "unknown"
#endif
#ifndef SW_GSL_VERSION
#define SW_GSL_VERSION "unknown"
#endif

/* First line of a file without its newline, or NULL. */
static char *read_line(const char *path) {
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    char buf[1024];
    char *r = fgets(buf, sizeof buf, f);
    fclose(f);
    if (!r)
        return NULL;
    buf[strcspn(buf, "\n")] = '\0';
    return ct_xstrdup(buf);
}

/* First line a command prints (stderr discarded; "" if it printed nothing),
 * or NULL if it could not run or failed. */
static char *command_line(const char *cmd) {
    char *full = sw_xasprintf("%s 2>/dev/null", cmd);
    FILE *p = popen(full, "r");
    free(full);
    if (!p)
        return NULL;
    char buf[1024], rest[1024];
    char *first = fgets(buf, sizeof buf, p);
    while (fgets(rest, sizeof rest, p)) /* read it all so the command never sees SIGPIPE */
        ;
    if (pclose(p) != 0)
        return NULL;
    if (!first)
        return ct_xstrdup("");
    buf[strcspn(buf, "\n")] = '\0';
    return ct_xstrdup(buf);
}

/* The value of the first "key : value" line of /proc/cpuinfo with key. */
static char *cpuinfo(const char *key) {
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return NULL;
    char line[4096];
    char *v = NULL;
    size_t klen = strlen(key);
    while (!v && fgets(line, sizeof line, f)) {
        if (strncmp(line, key, klen) == 0 && (line[klen] == ' ' || line[klen] == '\t' || line[klen] == ':')) {
            char *colon = strchr(line, ':');
            if (colon) {
                colon++;
                while (*colon == ' ')
                    colon++;
                colon[strcspn(colon, "\n")] = '\0';
                v = ct_xstrdup(colon);
            }
        }
    }
    fclose(f);
    return v;
}

static void put(sw_db *d, const char *key, char *value, const char *why_unknown) {
    if (value) {
        sw_db_meta_set(d, key, value);
        free(value);
    } else {
        char *u = sw_xasprintf("unknown (%s)", why_unknown);
        sw_db_meta_set(d, key, u);
        free(u);
    }
}

char *sw_meta_loadavg(void) {
    char *l = read_line("/proc/loadavg");
    if (!l)
        return ct_xstrdup("unknown (no /proc/loadavg)");
    double a, b, c;
    char *r = sscanf(l, "%lf %lf %lf", &a, &b, &c) == 3 ? sw_xasprintf("%.2f %.2f %.2f", a, b, c) : ct_xstrdup(l);
    free(l);
    return r;
}

int sw_meta_default_cpu(void) {
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) != 0)
        return 0;
    for (int c = CPU_SETSIZE - 1; c >= 0; c--)
        if (CPU_ISSET(c, &set))
            return c;
    return 0;
}

int sw_meta_cpu_allowed(int cpu) {
    cpu_set_t set;
    if (cpu < 0 || cpu >= CPU_SETSIZE || sched_getaffinity(0, sizeof set, &set) != 0)
        return 0;
    return CPU_ISSET(cpu, &set) != 0;
}

void sw_meta_store_host(sw_db *d, int cpu) {
    char host[256];
    put(d, "host", gethostname(host, sizeof host) == 0 ? ct_xstrdup(host) : NULL, "gethostname failed");
    put(d, "cpu_model", cpuinfo("model name"), "no model name in /proc/cpuinfo");
    put(d, "cpu_mhz", cpuinfo("cpu MHz"), "no cpu MHz in /proc/cpuinfo");
    put(d, "cores_online", sw_xasprintf("%ld", sysconf(_SC_NPROCESSORS_ONLN)), "");
    cpu_set_t set;
    int allowed = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : -1;
    put(d, "cpus_allowed", allowed > 0 ? sw_xasprintf("%d", allowed) : NULL, "sched_getaffinity failed");
    put(d, "run_cpu", sw_xasprintf("%d", cpu), "");
    struct utsname u;
    put(d, "kernel", uname(&u) == 0 ? sw_xasprintf("%s %s %s %s", u.sysname, u.release, u.version, u.machine) : NULL,
        "uname failed");
    char *gov_path = sw_xasprintf("/sys/devices/system/cpu/cpu%d/cpufreq/scaling_governor", cpu);
    char *gov = read_line(gov_path);
    put(d, "governor", gov ? gov : ct_xstrdup("none (no cpufreq governor exposed)"), "");
    free(gov_path);
    char *aslr = read_line("/proc/sys/kernel/randomize_va_space");
    put(d, "aslr",
        aslr ? sw_xasprintf("%s (%s)", aslr,
                            !strcmp(aslr, "0")   ? "off"
                            : !strcmp(aslr, "1") ? "partial"
                                                 : "full")
             : NULL,
        "no /proc/sys/kernel/randomize_va_space");
    free(aslr);
    put(d, "loadavg_start", sw_meta_loadavg(), "");
    char *flags = cpuinfo("flags");
    int hyper = flags && strstr(flags, " hypervisor") != NULL;
    free(flags);
    int container = access("/.dockerenv", F_OK) == 0 || access("/run/.containerenv", F_OK) == 0;
    char *virt = command_line("systemd-detect-virt");
    put(d, "virtualization",
        sw_xasprintf("%s%s%s%s%s", hyper ? "hypervisor (cpuinfo flag)" : "no hypervisor flag",
                     container ? ", container" : "", virt ? ", systemd-detect-virt: " : "", virt ? virt : "", ""),
        "");
    free(virt);
    put(d, "perf_event_paranoid", read_line("/proc/sys/kernel/perf_event_paranoid"), "no perf_event_paranoid");
    put(d, "compiler", sw_xasprintf("%s (%s)", SW_BUILD_CC, __VERSION__), "");
    put(d, "cflags", ct_xstrdup(SW_BUILD_CFLAGS), "");
    put(d, "git_revision", command_line("git rev-parse HEAD"), "not a git checkout or no git");
    char *dirty = command_line("git status --porcelain --untracked-files=no");
    put(d, "git_dirty", dirty ? ct_xstrdup(*dirty ? "1" : "0") : NULL, "git status failed");
    free(dirty);
    put(d, "sqlite_version", ct_xstrdup(sw_db_sqlite_version()), "");
    put(d, "gsl_version", ct_xstrdup(SW_GSL_VERSION), "");
    put(d, "libpfm4_version", ct_xstrdup(SW_PFM_PACKAGE), "");
}
