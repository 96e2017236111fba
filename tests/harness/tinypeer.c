/* tinypeer.c - the smallest real runtime for the harness's tests of command
 * workloads: freecheck's binarytrees as the C peers write it
 * (workloads/peers/binarytrees.c, pr_common.c, pr_alt.c), on glibc's
 * malloc, with an allocation sampler of its own around malloc and calloc
 * (linked with -Wl,--wrap=malloc,--wrap=calloc), so that the harness is
 * tested end to end on a system other than freecheck whatever peers are
 * installed: timed, in-process (it speaks the protocol through pr_alt.c)
 * and simulated (it repeats to the instruction under valgrind).
 *
 * Its sampler: TINYPEER_SAMPLE_PERIOD=P (bytes; 0 or unset: off) draws
 * exponential gaps of mean P from a xorshift generator seeded with SGC_SEED
 * (its default without); a sample hashes the request's size and caller
 * into a small table and counts itself.  TINYPEER_ACTIVE=0 starts it
 * switched off (the in-process design's setting, like jemalloc's
 * prof_active:false; under SGC_ALTERNATE=alloc it must be given, exit 2
 * otherwise, so a sweep whose in-process templates did not reach the run
 * fails it).  TINYPEER_NOCOUNT=1 makes it a sampler that keeps no count:
 * no alloc_samples in the record, alloc_samples unmeasured in the series.
 * TINYPEER_SYSTEM=NAME is the system it names (default tiny), so that one
 * program stands for several systems of a test.  TINYPEER_DETERMINISTIC=1 is its "determinism
 * setting" (what the harness's sim-env gives runs under valgrind): it
 * refuses to run under valgrind without it, and with it anywhere else
 * (exit 2, naming it), so a sweep whose simulated runs did not get it, or
 * whose timed runs did, fails those runs.  A test fixture, not a system to
 * measure.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <valgrind/valgrind.h>

#include "../../workloads/peers/pr_common.h"

void *__real_malloc(size_t size);
void *__real_calloc(size_t n, size_t size);

static uint64_t tp_period; /* 0: the sampler is off */
static int tp_on;          /* switched on (TINYPEER_ACTIVE, or the series) */
static int64_t tp_until;   /* bytes before the next sample */
static uint64_t tp_rng = 88172645463325252ull;
static uint64_t tp_samples;   /* samples taken */
static uint64_t tp_table[64]; /* what a sample records */

static double tp_uniform(void) {
    tp_rng ^= tp_rng << 13;
    tp_rng ^= tp_rng >> 7;
    tp_rng ^= tp_rng << 17;
    return ((double)(tp_rng >> 11) + 0.5) / 9007199254740992.0;
}

static void tp_next_gap(void) { tp_until = (int64_t)(-log(tp_uniform()) * (double)tp_period) + 1; }

__attribute__((noinline)) static void tp_sample(size_t size, const void *caller) {
    tp_samples++;
    uint64_t h = (uint64_t)size * 0x9e3779b97f4a7c15ull ^ (uint64_t)(uintptr_t)caller;
    tp_table[h % 64] += h >> 7;
    tp_next_gap();
}

static inline void tp_account(size_t size, const void *caller) {
    if (tp_on && (tp_until -= (int64_t)size) <= 0)
        tp_sample(size, caller);
}

void *__wrap_malloc(size_t size) {
    tp_account(size, __builtin_return_address(0));
    return __real_malloc(size);
}

void *__wrap_calloc(size_t n, size_t size) {
    tp_account(n * size, __builtin_return_address(0));
    return __real_calloc(n, size);
}

static uint64_t tp_env(const char *name, uint64_t dflt) {
    const char *v = getenv(name);
    if (!v || !*v)
        return dflt;
    char *end;
    unsigned long long x = strtoull(v, &end, 10);
    if (*end || v[0] == '-') {
        fprintf(stderr, "tinypeer: %s=%s: expected an unsigned decimal integer\n", name, v);
        exit(2);
    }
    return x;
}

__attribute__((constructor)) static void tp_init(void) {
    tp_period = tp_env("TINYPEER_SAMPLE_PERIOD", 0);
    tp_rng ^= tp_env("SGC_SEED", 1592652782u) * 0x9e3779b97f4a7c15ull;
    if (!tp_rng)
        tp_rng = 1;
    tp_on = tp_period > 0 && tp_env("TINYPEER_ACTIVE", 1) != 0;
    if (tp_period)
        tp_next_gap();
    int det = tp_env("TINYPEER_DETERMINISTIC", 0) != 0;
    if (det != (RUNNING_ON_VALGRIND != 0)) {
        fprintf(stderr, "tinypeer: TINYPEER_DETERMINISTIC=%d %s valgrind: it is set exactly in runs under valgrind\n",
                det, det ? "outside" : "under");
        exit(2);
    }
}

static const char *tp_system(void) {
    const char *v = getenv("TINYPEER_SYSTEM");
    return v && *v ? v : "tiny";
}

void pr_sampler_read(pr_sampler *s) {
    s->system = tp_system();
    s->mode = "poisson";
    s->period = tp_on ? tp_period : 0;
    s->samples_known = !tp_env("TINYPEER_NOCOUNT", 0);
    s->samples = tp_samples;
    if (!s->samples_known)
        s->problem = "TINYPEER_NOCOUNT=1: it keeps no count";
    s->live_known = 1; /* the table's first entry's low bit: keeps the table's work live */
    s->live = tp_table[0] & 1;
}

int pr_alt_sampler_prepare(const char *mode, pr_alt_sampler *s, char *why, size_t whylen) {
    memset(s, 0, sizeof *s);
    s->system = tp_system();
    s->period = tp_period;
    s->on_at_start = tp_on;
    s->counts = !tp_env("TINYPEER_NOCOUNT", 0);
    s->nocount = s->counts ? NULL : "TINYPEER_NOCOUNT=1: it keeps no count";
    if (!strcmp(mode, "alloc") && !tp_period) {
        snprintf(why, whylen, "alternating the tiny sampler needs its period: TINYPEER_SAMPLE_PERIOD=BYTES");
        return -1;
    }
    if (!strcmp(mode, "alloc") && tp_on) {
        snprintf(why, whylen, "alternating the tiny sampler needs it switched off at the start: TINYPEER_ACTIVE=0");
        return -1;
    }
    return 0;
}

void pr_alt_sampler_set(int on) { tp_on = on && tp_period > 0; }

uint64_t pr_alt_sampler_count(void) { return tp_samples; }
