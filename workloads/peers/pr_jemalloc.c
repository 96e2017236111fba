/* pr_jemalloc.c - the C peers' sampler report for jemalloc (5.3, Debian's libjemalloc).
 *
 * jemalloc samples allocations when profiling is on (MALLOC_CONF=prof:true):
 * the bytes between two samples are drawn from a geometric distribution with
 * mean 2^lg_prof_sample (MALLOC_CONF lg_prof_sample:K), so alloc_mode is
 * poisson and alloc_period 2^K (read back from mallctl prof.lg_sample).
 *
 * The count of samples taken is jemalloc's own: with prof_stats on (set
 * below in the program's built-in malloc_conf, so every run has it) jemalloc
 * counts every sampled allocation by size class, cumulatively, and
 * prof.stats.bins.<i>.accum / prof.stats.lextents.<j>.accum return
 * {requested bytes, count}; alloc_samples is the sum of the counts over all
 * size classes.  tests/peers/ checks it against the cumulative counts of
 * jemalloc's own heap profile dump (prof_accum, unbiased off).
 *
 * In-process alternation (pr_alt.h): jemalloc runs with prof:true and the
 * driver switches mallctl prof.active, which jemalloc reads on every
 * sample event: inactive, the event draws its next gap but takes no sample
 * (jemalloc's byte counter keeps running, so the gap pending at a switch
 * on is the rest of a geometric gap of the same mean: memoryless, exact).
 * The samples of each segment are differences of the same prof_stats sums,
 * read through MIBs (mallctlnametomib once, mallctlbymib per size class).
 *
 * Determinism (the simulated part, docs/WORKLOADS.md): jemalloc purges
 * unused pages on a schedule of elapsed time (dirty_decay_ms,
 * muzzy_decay_ms), so the instructions a run executes depend on how fast it
 * runs.  With FREECHECK_JEMALLOC_DECAY=off the program turns time-based
 * purging off as it starts (mallctl arenas.{dirty,muzzy}_decay_ms and every
 * existing arena's, -1: pages are kept), so that repeated runs under
 * valgrind count the same; MALLOC_CONF stays the sampling setting's.
 *
 * Invariant: nothing here calls malloc, so reading the counts cannot take
 * a sample itself.
 */
#include <errno.h>
#include <jemalloc/jemalloc.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "pr_common.h"

/* jemalloc merges this with MALLOC_CONF (which is read after it, so a user's
 * prof_stats:false there wins and alloc_samples is then left out). */
const char *malloc_conf = "prof_stats:true";

/* FREECHECK_JEMALLOC_DECAY=off: no purging by elapsed time (above). */
__attribute__((constructor)) static void pr_je_decay(void) {
    const char *v = getenv("FREECHECK_JEMALLOC_DECAY");
    if (!v || !*v)
        return;
    if (strcmp(v, "off")) {
        fprintf(stderr, "jemalloc peer: FREECHECK_JEMALLOC_DECAY=%s: expected off (or unset)\n", v);
        exit(2);
    }
    /* The default of arenas made from now on, then arena 0, the one that
     * exists (the others take the default when they are made: an arena not
     * yet made answers EFAULT). */
    ssize_t never = -1;
    unsigned narenas = 0;
    size_t len = sizeof narenas;
    int bad = mallctl("arenas.dirty_decay_ms", NULL, NULL, &never, sizeof never) != 0 ||
              mallctl("arenas.muzzy_decay_ms", NULL, NULL, &never, sizeof never) != 0 ||
              mallctl("arenas.narenas", &narenas, &len, NULL, 0) != 0;
    for (unsigned i = 0; !bad && i < (narenas ? narenas : 1); i++) {
        char name[64];
        snprintf(name, sizeof name, "arena.%u.dirty_decay_ms", i);
        int r = mallctl(name, NULL, NULL, &never, sizeof never);
        snprintf(name, sizeof name, "arena.%u.muzzy_decay_ms", i);
        int r2 = mallctl(name, NULL, NULL, &never, sizeof never);
        bad |= (r && (i == 0 || r != EFAULT)) || (r2 && (i == 0 || r2 != EFAULT));
    }
    if (bad) {
        fprintf(stderr, "jemalloc peer: FREECHECK_JEMALLOC_DECAY=off: jemalloc refused a decay setting (mallctl)\n");
        exit(1);
    }
}

/* prof.stats.<kind>.<i>.accum, as jemalloc 5.3 returns it. */
typedef struct pr_je_prof_stats {
    uint64_t req_sum; /* bytes requested by the sampled allocations */
    uint64_t count;   /* sampled allocations */
} pr_je_prof_stats;

/* Adds the sampled allocations of every size class of this kind ("bins",
 * "lextents"; count_name says how many there are).  Returns 0, or -1 if
 * jemalloc refused a name. */
static int pr_je_sum(const char *kind, const char *count_name, uint64_t *total) {
    unsigned n = 0;
    size_t len = sizeof n;
    if (mallctl(count_name, &n, &len, NULL, 0) != 0)
        return -1;
    for (unsigned i = 0; i < n; i++) {
        char name[64];
        snprintf(name, sizeof name, "prof.stats.%s.%u.accum", kind, i);
        pr_je_prof_stats st;
        len = sizeof st;
        if (mallctl(name, &st, &len, NULL, 0) != 0 || len != sizeof st)
            return -1;
        *total += st.count;
    }
    return 0;
}

void pr_sampler_read(pr_sampler *s) {
    s->system = "jemalloc";
    s->mode = "poisson";
    bool prof = false, active = false, stats = false;
    size_t len = sizeof prof;
    if (mallctl("opt.prof", &prof, &len, NULL, 0) != 0) {
        s->problem = "this jemalloc was built without profiling (mallctl opt.prof failed)";
        return;
    }
    if (!prof) { /* no profiling: jemalloc takes no samples */
        s->samples_known = 1;
        return;
    }
    size_t lg = 0;
    len = sizeof active;
    if (mallctl("prof.active", &active, &len, NULL, 0) == 0 && active) {
        len = sizeof lg;
        if (mallctl("prof.lg_sample", &lg, &len, NULL, 0) == 0)
            s->period = (uint64_t)1 << lg;
    }
    len = sizeof stats;
    if (mallctl("opt.prof_stats", &stats, &len, NULL, 0) != 0 || !stats) {
        s->problem = "jemalloc's prof_stats is off (MALLOC_CONF prof_stats:false), so it kept no count of samples";
        return;
    }
    uint64_t total = 0;
    if (pr_je_sum("bins", "arenas.nbins", &total) != 0 || pr_je_sum("lextents", "arenas.nlextents", &total) != 0) {
        s->problem = "jemalloc refused a prof.stats query";
        return;
    }
    s->samples_known = 1;
    s->samples = total;
}

/* ---- In-process alternation ------------------------------------------------ */

static size_t je_bins_mib[8], je_lext_mib[8], je_active_mib[4];
static size_t je_bins_len, je_lext_len, je_active_len;
static unsigned je_nbins, je_nlext;

/* The sum of the prof_stats counts of one kind of size class through its
 * MIB (index 3 is the size class). */
static uint64_t je_sum_mib(size_t *mib, size_t len, unsigned n) {
    uint64_t total = 0;
    for (unsigned i = 0; i < n; i++) {
        mib[3] = i;
        pr_je_prof_stats st;
        size_t sz = sizeof st;
        if (mallctlbymib(mib, len, &st, &sz, NULL, 0) == 0 && sz == sizeof st)
            total += st.count;
    }
    return total;
}

uint64_t pr_alt_sampler_count(void) {
    return je_sum_mib(je_bins_mib, je_bins_len, je_nbins) + je_sum_mib(je_lext_mib, je_lext_len, je_nlext);
}

void pr_alt_sampler_set(int on) {
    bool b = on != 0;
    mallctlbymib(je_active_mib, je_active_len, NULL, NULL, &b, sizeof b);
}

int pr_alt_sampler_prepare(const char *mode, pr_alt_sampler *s, char *why, size_t whylen) {
    memset(s, 0, sizeof *s);
    s->system = "jemalloc";
    bool prof = false, active = false, stats = false;
    size_t len = sizeof prof;
    if (mallctl("opt.prof", &prof, &len, NULL, 0) != 0) {
        snprintf(why, whylen, "this jemalloc was built without profiling (mallctl opt.prof failed)");
        return -1;
    }
    if (!prof) {
        if (!strcmp(mode, "alloc")) {
            snprintf(why, whylen,
                     "alternating jemalloc's sampler needs its profiling on: "
                     "MALLOC_CONF=prof:true,prof_active:false,lg_prof_sample:K (period 2^K)");
            return -1;
        }
        s->counts = 1; /* no profiling: jemalloc takes no samples, 0 is its count */
        return 0;
    }
    size_t lg = 0;
    len = sizeof lg;
    if (mallctl("prof.lg_sample", &lg, &len, NULL, 0) != 0) {
        snprintf(why, whylen, "jemalloc refused mallctl prof.lg_sample");
        return -1;
    }
    s->period = (uint64_t)1 << lg;
    len = sizeof active;
    if (mallctl("prof.active", &active, &len, NULL, 0) != 0) {
        snprintf(why, whylen, "jemalloc refused mallctl prof.active");
        return -1;
    }
    s->on_at_start = active;
    len = sizeof stats;
    if (mallctl("opt.prof_stats", &stats, &len, NULL, 0) != 0 || !stats) {
        s->nocount = "jemalloc's prof_stats is off (MALLOC_CONF prof_stats:false), so it keeps no count of samples";
        if (!strcmp(mode, "alloc")) {
            snprintf(why, whylen, "%s to measure segments with", s->nocount);
            return -1;
        }
        return 0; /* A/A without counts */
    }
    je_bins_len = sizeof je_bins_mib / sizeof je_bins_mib[0];
    je_lext_len = sizeof je_lext_mib / sizeof je_lext_mib[0];
    je_active_len = sizeof je_active_mib / sizeof je_active_mib[0];
    len = sizeof je_nbins;
    if (mallctl("arenas.nbins", &je_nbins, &len, NULL, 0) != 0 ||
        mallctl("arenas.nlextents", &je_nlext, &len, NULL, 0) != 0 ||
        mallctlnametomib("prof.stats.bins.0.accum", je_bins_mib, &je_bins_len) != 0 ||
        mallctlnametomib("prof.stats.lextents.0.accum", je_lext_mib, &je_lext_len) != 0 ||
        mallctlnametomib("prof.active", je_active_mib, &je_active_len) != 0) {
        snprintf(why, whylen, "jemalloc refused a prof.stats or prof.active MIB");
        return -1;
    }
    s->counts = 1;
    return 0;
}
