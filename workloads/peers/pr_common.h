/* pr_common.h - what the C peer programs share: arguments, checksum, allocation
 * counting, the stats record, and the allocator's sampler report.
 *
 * A C peer is freecheck's workload of the same name (workloads/<name>.c)
 * written as a plain C program on malloc/free, linked against one allocator
 * (jemalloc or gperftools' tcmalloc), so that allocator's own heap sampler
 * can be measured by the same harness (docs/WORKLOADS.md, "Peer programs").
 *
 * Invariants:
 *  - The work and the checksum are those of freecheck's workload at the same
 *    --size (and --depth): the same allocations in the same order, the same
 *    values mixed into the same checksum (docs/WORKLOADS.md, "The checksum"),
 *    so the printed line "checksum <16 hex>" is identical.
 *  - pr_alloc/pr_calloc count every request: bytes_allocated is the sum of
 *    the sizes the program asked malloc for, objects_allocated their number.
 *  - The stats record (docs/FORMATS.md) is written at exit when SGC_STATS
 *    names a file, with no call to malloc after the sampler's count has
 *    been read (an allocation there could itself be sampled, uncounted).
 *  - alloc_samples is written only when the allocator itself counted its
 *    samples (pr_sampler.samples_known); it is never computed from bytes.
 *  - With SGC_ALTERNATE (pr_alt.h) the record covers the segment series'
 *    span: alloc_samples counts the samples from the lead-in's start on
 *    (alloc_samples_startup the ones before), alloc_period is the on
 *    segments' period; stdout's buffer is static, so nothing mallocs after
 *    the series ends.
 */
#ifndef PR_COMMON_H
#define PR_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pr_alt.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Arguments ------------------------------------------------------------ */

/* What a peer accepts: --size N always, --depth D when depth_max > 0. */
typedef struct pr_spec {
    const char *name;      /* program name used in messages */
    const char *summary;   /* one line for --help */
    int64_t default_size;  /* --size when not given */
    int64_t max_size;      /* largest --size (smallest is 1) */
    int64_t default_depth; /* --depth when not given */
    int64_t depth_min;     /* --depth range; depth_max 0: no --depth */
    int64_t depth_max;
} pr_spec;

typedef struct pr_run {
    const pr_spec *spec;
    int64_t size;      /* --size N */
    int64_t depth;     /* --depth D (default_depth without it) */
    uint64_t start_ns; /* CLOCK_MONOTONIC at pr_start */
} pr_run;

/* Parses --size N (also --size=N), --depth D where the spec has it, --help.
 * A bad argument: "<name>: <what> (see <name> --help)" on stderr, exit 2.
 * Then starts in-process alternation when SGC_ALTERNATE asks for it. */
pr_run pr_start(const pr_spec *spec, int argc, char **argv);

/* ---- Checksum (the same as workloads/wl_common.h) -------------------------- */

typedef struct pr_checksum {
    uint64_t h;
} pr_checksum;

#define PR_CHECKSUM_INIT \
    { 0x6a09e667f3bcc908ull }

static inline void pr_mix(pr_checksum *c, uint64_t v) {
    uint64_t h = (c->h << 27) | (c->h >> 37);
    c->h = (h ^ v) * 0x9e3779b97f4a7c15ull + 0x632be59bd9b4e019ull;
}

static inline void pr_mix_double(pr_checksum *c, double d) {
    uint64_t bits;
    memcpy(&bits, &d, sizeof bits);
    pr_mix(c, bits);
}

/* ---- Allocation ----------------------------------------------------------- */

extern uint64_t pr_bytes_allocated;   /* sum of requested sizes */
extern uint64_t pr_objects_allocated; /* number of requests */

/* Out of memory: message naming the size, exit 1. */
__attribute__((noreturn)) void pr_out_of_memory(size_t size);

static inline void *pr_alloc(size_t size) {
    pr_alt_tick();
    pr_bytes_allocated += size;
    pr_objects_allocated++;
    void *p = malloc(size);
    if (!p)
        pr_out_of_memory(size);
    return p;
}

static inline void *pr_calloc(size_t size) {
    pr_alt_tick();
    pr_bytes_allocated += size;
    pr_objects_allocated++;
    void *p = calloc(1, size);
    if (!p)
        pr_out_of_memory(size);
    return p;
}

/* ---- The allocator's sampler (pr_jemalloc.c, pr_gperftools.cc) ------------ */

typedef struct pr_sampler {
    const char *system;  /* "jemalloc", "gperftools" */
    const char *mode;    /* the sampling rule, a word: "poisson" */
    uint64_t period;     /* mean bytes between samples in force; 0: sampling off */
    int samples_known;   /* 1: samples is the allocator's own count */
    uint64_t samples;    /* samples the allocator took */
    int live_known;      /* 1: live is the allocator's own count */
    uint64_t live;       /* sampled objects still allocated */
    const char *problem; /* why samples is unknown, or NULL */
} pr_sampler;

/* Reads the allocator's sampling state.  Implemented once per allocator;
 * must not allocate after reading the counts. */
void pr_sampler_read(pr_sampler *s);

/* ---- Finishing ------------------------------------------------------------ */

/* Prints "checksum <16 hex>" on stdout; then, if SGC_STATS names a file,
 * reads the sampler and writes the stats record there.  Returns 0 (main's
 * return value); a write failure: message, exit 1. */
int pr_finish(const pr_run *run, const pr_checksum *sum);

#ifdef __cplusplus
}
#endif

#endif /* PR_COMMON_H */
