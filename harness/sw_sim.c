/* sw_sim.c - valgrind command lines and cachegrind output. */
#define _GNU_SOURCE
#include "sw_sim.h"
#include "sw_util.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SW_SIM_NAME(id, name, cg, meaning) name,
#define SW_SIM_EVENT(id, name, cg, meaning) cg,
#define SW_SIM_MEANING(id, name, cg, meaning) meaning,
const char *const sw_sim_names[SW_SIM_N] = {SW_SIM_METRICS(SW_SIM_NAME)};
const char *const sw_sim_events[SW_SIM_N] = {SW_SIM_METRICS(SW_SIM_EVENT)};
const char *const sw_sim_meanings[SW_SIM_N] = {SW_SIM_METRICS(SW_SIM_MEANING)};

const char sw_sim_description[] = "valgrind --tool=cachegrind --cache-sim=yes (" SW_SIM_CACHES_TEXT
                                  "), address space randomization off, " SW_SIM_CLOCK;

uint64_t sw_sim_est_cycles(const uint64_t v[SW_SIM_N]) {
    uint64_t access = v[SW_SIM_IR] + v[SW_SIM_DR] + v[SW_SIM_DW];
    uint64_t l1_miss = v[SW_SIM_I1MR] + v[SW_SIM_D1MR] + v[SW_SIM_D1MW];
    uint64_t ll_miss = v[SW_SIM_ILMR] + v[SW_SIM_DLMR] + v[SW_SIM_DLMW];
    return (access - l1_miss) + SW_SIM_LL_HIT_CYCLES * (l1_miss - ll_miss) + SW_SIM_RAM_CYCLES * ll_miss;
}

/* The rest of the line that starts with key, or NULL; *count: how many
 * lines do (the output has one of each). */
static const char *find_line(const char *text, const char *key, int *count) {
    size_t k = strlen(key);
    const char *found = NULL;
    *count = 0;
    for (const char *line = text; line && *line;) {
        if (strncmp(line, key, k) == 0) {
            if (!found)
                found = line + k;
            ++*count;
        }
        line = strchr(line, '\n');
        if (line)
            line++;
    }
    return found;
}

/* Splits the rest of a line into at most max blank-separated words. */
static int words(const char *s, char out[][32], int max, int *too_long) {
    int n = 0;
    *too_long = 0;
    while (*s && *s != '\n') {
        while (*s == ' ' || *s == '\t' || *s == '\r')
            s++;
        if (!*s || *s == '\n')
            break;
        size_t len = strcspn(s, " \t\r\n");
        if (n == max || len >= 32) {
            *too_long = 1;
            return n;
        }
        memcpy(out[n], s, len);
        out[n][len] = '\0';
        n++;
        s += len;
    }
    return n;
}

int sw_sim_parse(const char *text, uint64_t v[SW_SIM_N], const char **why) {
    enum { MAXW = 32 };
    char ev[MAXW][32], sum[MAXW][32];
    int too_long;
    int ne_lines, ns_lines;
    const char *e = find_line(text, "events:", &ne_lines);
    const char *s = find_line(text, "summary:", &ns_lines);
    if (!e) {
        *why = "no 'events:' line";
        return -1;
    }
    if (!s) {
        *why = "no 'summary:' line (did valgrind finish?)";
        return -1;
    }
    if (ne_lines > 1 || ns_lines > 1) {
        *why = "more than one 'events:' or 'summary:' line (two outputs in one file?)";
        return -1;
    }
    int ne = words(e, ev, MAXW, &too_long);
    if (too_long) {
        *why = "the 'events:' line is too long";
        return -1;
    }
    int ns = words(s, sum, MAXW, &too_long);
    if (too_long || ns != ne) {
        *why = "the 'summary:' line does not have one count per event";
        return -1;
    }
    for (int m = 0; m < SW_SIM_N; m++) {
        if (!sw_sim_events[m])
            continue;
        int found = -1;
        for (int i = 0; i < ne; i++)
            if (!strcmp(ev[i], sw_sim_events[m]))
                found = i;
        if (found < 0) {
            *why = "an event is missing (Ir I1mr ILmr Dr D1mr DLmr Dw D1mw DLmw are needed: --cache-sim=yes)";
            return -1;
        }
        if (sw_parse_uint(sum[found], UINT64_MAX, &v[m]) != 0) {
            *why = "a count in the 'summary:' line is not a whole number";
            return -1;
        }
    }
    if (v[SW_SIM_I1MR] > v[SW_SIM_IR] || v[SW_SIM_D1MR] > v[SW_SIM_DR] || v[SW_SIM_D1MW] > v[SW_SIM_DW] ||
        v[SW_SIM_ILMR] > v[SW_SIM_I1MR] || v[SW_SIM_DLMR] > v[SW_SIM_D1MR] || v[SW_SIM_DLMW] > v[SW_SIM_D1MW]) {
        *why = "the counts are inconsistent (more misses than accesses, or more LL than L1 misses)";
        return -1;
    }
    v[SW_SIM_CYCLES] = sw_sim_est_cycles(v);
    return 0;
}

char **sw_sim_argv(const char *valgrind, const char *outfile, char *const *argv, char **outopt) {
    /* --trace-children=yes: a command that execs its runtime (a launcher
     * script: exec java ...) is counted in the program it becomes; without
     * it valgrind would let the exec'd program run uncounted. */
    static const char *const opts[] = {"-q",          "--tool=cachegrind",   "--cache-sim=yes", "--branch-sim=no",
                                       SW_SIM_CACHES, "--trace-children=yes"};
    size_t nopts = sizeof opts / sizeof *opts, nargv = 0;
    while (argv[nargv])
        nargv++;
    char **out = ct_xcalloc(1 + nopts + 1 + nargv + 1, sizeof *out);
    size_t n = 0;
    out[n++] = (char *)valgrind;
    for (size_t i = 0; i < nopts; i++)
        out[n++] = (char *)opts[i];
    *outopt = sw_xasprintf("--cachegrind-out-file=%s", outfile);
    out[n++] = *outopt;
    for (size_t i = 0; i < nargv; i++)
        out[n++] = argv[i];
    out[n] = NULL;
    return out;
}

char *sw_sim_find_program(const char *name) {
    if (strchr(name, '/'))
        return access(name, X_OK) == 0 ? ct_xstrdup(name) : NULL;
    const char *path = getenv("PATH");
    if (!path || !*path)
        path = "/usr/local/bin:/usr/bin:/bin";
    char *copy = ct_xstrdup(path), *save = NULL;
    for (char *dir = strtok_r(copy, ":", &save); dir; dir = strtok_r(NULL, ":", &save)) {
        char *p = sw_xasprintf("%s/%s", *dir ? dir : ".", name);
        if (access(p, X_OK) == 0) {
            free(copy);
            return p;
        }
        free(p);
    }
    free(copy);
    return NULL;
}
