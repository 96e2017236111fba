/* sgc_settings.c - parses the SGC_* environment variables once, at runtime start.
 *
 * Every setting, its kind, limits and default is a row of SGC_SETTINGS
 * (contracts/sgc_settings_table.h), which docs/RUNTIME.md's table repeats;
 * this file parses each row by its kind and holds the checks of one
 * setting against another (check()).  A bad value is
 * never guessed at: the process prints "freecheck: SGC_X=<value>: <why>" and
 * exits with status 2, before the heap exists, so nothing has been recorded
 * yet that could be lost.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "sgc_alt.h"
#include "sgc_internal.h"
#include "sgc_sample.h"

/* The one list of every SGC_* name the runtime reads, SGC_SETTINGS's names
 * in its order (docs/RUNTIME.md's table).  Any other SGC_* variable in the
 * environment is refused at start-up (exit 2, naming the closest name
 * below), so a typo such as SGC_ALLOCPERIOD never silently leaves a setting
 * at its default.  tests/runtime/test_settings.c checks that the
 * documentation and this list agree. */
#define SGC__SETTING_NAME(id, name, ...) name,
const char *const sgc__setting_names[] = {SGC_SETTINGS(SGC__SETTING_NAME) NULL};
#undef SGC__SETTING_NAME

#define SGC__SETTING_DEFAULT(id, name, kind, ctype, field, def, ...) .field = def,
sgc_settings sgc__settings = {
    SGC_SETTINGS(SGC__SETTING_DEFAULT).alt_fills = 0,
    .spin_iters_per_ns = 0,
};
#undef SGC__SETTING_DEFAULT

/* Parses a byte size: decimal digits, optionally followed by one of K, M, G
 * (either case, optionally followed by "iB" or "B"), meaning 1024, 1024^2,
 * 1024^3.  Returns 0 and sets *out, or -1 if the text is not a size or the
 * value does not fit in 64 bits.  Never prints. */
int sgc__parse_size(const char *text, uint64_t *out) {
    if (text == NULL || *text < '0' || *text > '9')
        return -1;
    uint64_t value = 0;
    const char *p = text;
    while (*p >= '0' && *p <= '9') {
        uint64_t digit = (uint64_t)(*p - '0');
        if (value > (UINT64_MAX - digit) / 10)
            return -1;
        value = value * 10 + digit;
        p++;
    }
    uint64_t unit = 1;
    switch (*p) {
    case 'k':
    case 'K':
        unit = (uint64_t)1 << 10;
        p++;
        break;
    case 'm':
    case 'M':
        unit = (uint64_t)1 << 20;
        p++;
        break;
    case 'g':
    case 'G':
        unit = (uint64_t)1 << 30;
        p++;
        break;
    default: break;
    }
    if (unit != 1) {
        if (p[0] == 'i' && p[1] == 'B')
            p += 2;
        else if (p[0] == 'B')
            p += 1;
    }
    if (*p != '\0')
        return -1;
    if (value != 0 && unit > UINT64_MAX / value)
        return -1;
    *out = value * unit;
    return 0;
}

/* Reports a bad setting and exits with status 2 (bad input). */
static void bad(const char *name, const char *value, const char *why) {
    fprintf(stderr, "freecheck: %s=%s: %s\n", name, value, why);
    exit(2);
}

/* The number of the word v names in a table of sgc_modes.h (or sgc_alt.h); exits 2 with
 * the table's words if it names none. */
static int word_setting(const char *name, const char *v, int (*parse)(const char *), const char *(*word)(int)) {
    int k = parse(v);
    if (k < 0) {
        char names[256], why[300];
        sgc_names_join(names, sizeof names, word, ", ", " or ");
        snprintf(why, sizeof why, "expected %s", names);
        bad(name, v, why);
    }
    return k;
}

/* Parses a plain unsigned decimal integer (no suffix); -1 if not one. */
static int parse_uint(const char *text, uint64_t *out) {
    if (text == NULL || *text < '0' || *text > '9')
        return -1;
    uint64_t value = 0;
    for (const char *p = text; *p; p++) {
        if (*p < '0' || *p > '9')
            return -1;
        uint64_t digit = (uint64_t)(*p - '0');
        if (value > (UINT64_MAX - digit) / 10)
            return -1;
        value = value * 10 + digit;
    }
    *out = value;
    return 0;
}

/* Parses a decimal number with at most three decimals ("2", "1.5",
 * "1.001"; no sign, exponent, hexadecimal or spaces, digits on both sides
 * of a point) into thousandths; -1 if it is not one or exceeds 10^15. */
static int parse_decimal3(const char *text, uint64_t *thousandths) {
    const char *p = text;
    uint64_t whole = 0;
    if (*p < '0' || *p > '9')
        return -1;
    for (; *p >= '0' && *p <= '9'; p++) {
        if (whole > 1000000000000u)
            return -1;
        whole = whole * 10 + (uint64_t)(*p - '0');
    }
    uint64_t frac = 0;
    if (*p == '.') {
        p++;
        int digits = 0;
        for (; *p >= '0' && *p <= '9'; p++, digits++) {
            if (digits == 3)
                return -1;
            frac = frac * 10 + (uint64_t)(*p - '0');
        }
        if (digits == 0)
            return -1;
        for (; digits < 3; digits++)
            frac *= 10;
    }
    if (*p != '\0')
        return -1;
    *thousandths = whole * 1000 + frac;
    return 0;
}

/* A 0/1 switch; "0" and "1" only, so that "yes"/"no" typos are caught. */
static int parse_switch(const char *name, const char *value) {
    if (strcmp(value, "0") == 0)
        return 0;
    if (strcmp(value, "1") == 0)
        return 1;
    bad(name, value, "expected 0 (off) or 1 (on)");
    return 0;
}

/* Edit distance between a (case ignored) and b (upper case) (insertions, deletions, substitutions),
 * for "did you mean"; names are short, so the quadratic table is fine. */
static size_t edit_distance(const char *a, size_t la, const char *b) {
    size_t lb = strlen(b);
    size_t row[64];
    if (la >= 63 || lb >= 63)
        return (size_t)-1;
    for (size_t j = 0; j <= lb; j++)
        row[j] = j;
    for (size_t i = 1; i <= la; i++) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t up = row[j];
            size_t best = diag + (toupper((unsigned char)a[i - 1]) != b[j - 1]);
            if (up + 1 < best)
                best = up + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[lb];
}

const char *sgc__setting_closest(const char *name, size_t len) {
    const char *best = sgc__setting_names[0];
    size_t best_d = (size_t)-1;
    for (const char *const *k = sgc__setting_names; *k; k++) {
        size_t d = edit_distance(name, len, *k);
        if (d < best_d) {
            best_d = d;
            best = *k;
        }
    }
    return best;
}

extern char **environ;

/* Refuses any variable whose name begins with SGC_ in any case and is not
 * exactly one of sgc__setting_names (sgc_alloc_period=4M would otherwise
 * leave sampling silently off), and a setting given twice (an environment
 * built by execve may hold a name twice; getenv reads only the first). */
static void refuse_unknown_names(void) {
    for (char **e = environ; e && *e; e++) {
        if (strncasecmp(*e, "SGC_", 4) != 0)
            continue;
        const char *eq = strchr(*e, '=');
        size_t len = eq ? (size_t)(eq - *e) : strlen(*e);
        int known = 0;
        for (const char *const *k = sgc__setting_names; *k && !known; k++)
            known = strlen(*k) == len && strncmp(*k, *e, len) == 0;
        if (!known) {
            fprintf(stderr,
                    "freecheck: %s: unknown setting (did you mean %s?); the SGC_* settings are listed in "
                    "docs/RUNTIME.md\n",
                    *e, sgc__setting_closest(*e, len));
            exit(2);
        }
        for (char **f = environ; f != e; f++)
            if (strncmp(*f, *e, len) == 0 && (*f)[len] == '=') {
                fprintf(stderr, "freecheck: %s: %.*s is set twice in the environment (first %s); set it once\n", *e,
                        (int)len, *e, *f);
                exit(2);
            }
    }
}

uint64_t sgc__spin_loop(uint64_t n) {
    uint64_t x = n;
    for (uint64_t i = 0; i < n; i++) {
        x = x * 6364136223846793005u + 1442695040888963407u;
        __asm__ volatile("" : "+r"(x)); /* one dependent multiply-add per iteration, never folded */
    }
    return x;
}

static uint64_t thread_cpu_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The cpu spin's rate: iterations per ns of thread CPU time, the fastest of
 * five timings of at least 1 ms each (an interrupt or a cold cache only
 * ever slows a timing down).  About 6 ms of CPU at start-up. */
static void calibrate_spin(void) {
    uint64_t n = 1u << 14;
    double best = 0;
    for (int rep = 0; rep < 5;) {
        uint64_t t0 = thread_cpu_ns();
        sgc__spin_loop(n);
        uint64_t t = thread_cpu_ns() - t0;
        if (t < 1000000) { /* too short to time well: longer */
            n *= 2;
            continue;
        }
        double rate = (double)n / (double)t;
        if (rate > best)
            best = rate;
        rep++;
    }
    sgc__settings.spin_iters_per_ns = best;
}

static void refuse_without_effect(void);

/* SGC_ALT_SEGMENT: a CPU time Nms, or a number of minor collections. */
static void load_segment(const char *name, const char *v) {
    size_t len = strlen(v);
    char num[32];
    uint64_t n;
    if (len > 2 && len < sizeof num && strcmp(v + len - 2, "ms") == 0) {
        memcpy(num, v, len - 2);
        num[len - 2] = '\0';
        if (parse_uint(num, &n) != 0 || n < 1 || n > SGC_MAX_ALT_MS)
            bad(name, v, "expected a CPU time from 1ms to 60000ms, or a number of minor collections");
        sgc__settings.alt_cpu_ns = n * 1000000u;
        sgc__settings.alt_fills = 0;
    } else {
        if (parse_uint(v, &n) != 0 || n < 1 || n > SGC_MAX_ALT_FILLS)
            bad(name, v,
                "expected a number of minor collections from 1 to 1000000 (such as 16), "
                "or a CPU time such as 20ms");
        sgc__settings.alt_fills = n;
        sgc__settings.alt_cpu_ns = 0;
    }
}

/* The checks of a setting against the ones before it in SGC_SETTINGS (and
 * the nursery's own limits and rounding), on its value n as read (a WORD's
 * number): exits 2 with the reason, or returns the value to store. */
static uint64_t check(sgc_setting_id id, const char *name, const char *v, uint64_t n) {
    switch (id) {
    case SGC_SETTING_NURSERY:
        if (n < SGC_MIN_NURSERY)
            bad(name, v, "the nursery must be at least 4K (4096 bytes)");
        if (n > SGC_MAX_NURSERY)
            bad(name, v, "the nursery must be at most 64G");
        /* Objects are 8-byte aligned, so the nursery is a whole number of words. */
        return n & ~(uint64_t)7;
    case SGC_SETTING_HEAP_MAX:
        if (n != 0 && n <= sgc__settings.nursery_size) {
            char why[160];
            snprintf(why, sizeof why, "the heap limit must be larger than the nursery (%zu bytes, SGC_NURSERY)",
                     sgc__settings.nursery_size);
            bad(name, v, why);
        }
        return n;
    /* Fixed mode's sample points move from the multiples of P to P - o,
     * 2P - o, ...: after T bytes floor((T + o) / P) points (o = 0: floor(T / P)). */
    case SGC_SETTING_ALLOC_OFFSET:
        if (n != 0 && sgc__settings.alloc_period == 0)
            bad(name, v, "needs fixed-mode sampling (SGC_ALLOC_PERIOD is 0 or unset)");
        if (n != 0 && sgc__settings.alloc_mode != SGC_SAMPLE_FIXED)
            bad(name, v, "applies to fixed mode only (poisson mode's first point comes from SGC_SEED)");
        if (n != 0 && n >= sgc__settings.alloc_period)
            bad(name, v, "must be below the period (SGC_ALLOC_PERIOD)");
        return n;
    case SGC_SETTING_TIME_MODE:
        if (n == SGC_TIME_THREAD && sgc__settings.time_clock == SGC_CLOCK_CPU)
            bad(name, v, "the sampler thread samples on the wall clock; unset SGC_TIME_CLOCK=cpu");
        return n;
    /* Alternating a sampler that is not set up would measure nothing. */
    case SGC_SETTING_ALTERNATE:
        if (sgc_alt_switches_alloc((int)n) && sgc__settings.alloc_period == 0)
            bad(name, v, "alternating allocation sampling needs SGC_ALLOC_PERIOD (the period of the on segments)");
        if (sgc_alt_switches_time((int)n) && sgc__settings.time_hz == 0)
            bad(name, v, "alternating time sampling needs SGC_TIME_HZ (the rate of the on segments)");
        return n;
    default: return n;
    }
}

/* A value of [lo, hi], compared so that lo = 0 raises no warning. */
static int in_range(uint64_t n, uint64_t lo, uint64_t hi) { return n - lo <= hi - lo; }

/* Each kind's reading of the value v of setting name into n (exits 2 with
 * why if v is not one), then check(), then its limits (why again), then
 * the store into the field. */
#define SGC__READ_SIZE(name, v, lo, hi, why) \
    if (sgc__parse_size(v, &n) != 0)         \
        bad(name, v, why);
#define SGC__READ_UINT(name, v, lo, hi, why) \
    if (parse_uint(v, &n) != 0)              \
        bad(name, v, why);
#define SGC__READ_US SGC__READ_UINT
#define SGC__READ_DEC3(name, v, lo, hi, why) \
    if (parse_decimal3(v, &n) != 0)          \
        bad(name, v, why);
#define SGC__READ_SWITCH(name, v, lo, hi, why) n = (uint64_t)parse_switch(name, v);
#define SGC__READ_WORD(name, v, lo, hi, why) n = (uint64_t)word_setting(name, v, lo, hi);
#define SGC__READ_PATH(name, v, lo, hi, why)
#define SGC__READ_SEGMENT(name, v, lo, hi, why) load_segment(name, v);
/* The limits, after check(): the nursery's own words come first. */
#define SGC__RANGE_SIZE(name, v, lo, hi, why) \
    if (!in_range(n, lo, hi))                 \
        bad(name, v, why);
#define SGC__RANGE_UINT SGC__RANGE_SIZE
#define SGC__RANGE_US SGC__RANGE_SIZE
#define SGC__RANGE_DEC3 SGC__RANGE_SIZE
#define SGC__RANGE_SWITCH(name, v, lo, hi, why)
#define SGC__RANGE_WORD SGC__RANGE_SWITCH
#define SGC__RANGE_PATH SGC__RANGE_SWITCH
#define SGC__RANGE_SEGMENT SGC__RANGE_SWITCH
#define SGC__STORE_SIZE(field, ctype, v, n) sgc__settings.field = (ctype)n;
#define SGC__STORE_UINT SGC__STORE_SIZE
#define SGC__STORE_SWITCH SGC__STORE_SIZE
#define SGC__STORE_WORD SGC__STORE_SIZE
#define SGC__STORE_US(field, ctype, v, n) sgc__settings.field = (ctype)(n * 1000u);
#define SGC__STORE_DEC3(field, ctype, v, n) sgc__settings.field = (double)n / 1000.0;
/* An empty path means "not set", the usual shell convention for clearing a
 * variable without unsetting it. */
#define SGC__STORE_PATH(field, ctype, v, n) \
    if (*v != '\0')                         \
        sgc__settings.field = v;
#define SGC__STORE_SEGMENT(field, ctype, v, n)
#define SGC__LOAD(id, name, kind, ctype, field, def, lo, hi, why, ...)                  \
    if ((v = getenv(name)) != NULL) {                                                   \
        n = 0;                                                                          \
        SGC__READ_##kind(name, v, lo, hi, why) n = check(SGC_SETTING_##id, name, v, n); \
        SGC__RANGE_##kind(name, v, lo, hi, why) SGC__STORE_##kind(field, ctype, v, n)   \
    }

void sgc__settings_load(void) {
    const char *v;
    uint64_t n;

    refuse_unknown_names();
    SGC_SETTINGS(SGC__LOAD)
    /* Time samples come at the rate whatever the program does, so at rate x D
     * of a second per second or more the program would spin and never finish
     * (it needs more than that share of a CPU; docs/RUNTIME.md). */
    if (sgc__settings.sample_spin_ns && (uint64_t)sgc__settings.time_hz * sgc__settings.sample_spin_ns >= 1000000000u)
        bad("SGC_SAMPLE_SPIN_NS", getenv("SGC_SAMPLE_SPIN_NS"),
            "with SGC_TIME_HZ the time samples alone would spin for all of the program's time (rate x spin must be "
            "under 1 s per s); lower one of them");
    if (sgc__settings.sample_spin_ns && sgc__settings.sample_spin_clock == SGC_CLOCK_CPU)
        calibrate_spin();
    /* Alternation restarts sampling for every on segment; the offset moves
     * only the first session's points, so the two do not combine. */
    if (sgc__settings.alloc_offset && sgc_alt_switches_alloc(sgc__settings.alt_mode))
        bad("SGC_ALLOC_OFFSET", getenv("SGC_ALLOC_OFFSET"),
            "cannot be combined with SGC_ALTERNATE=alloc or both (each on segment restarts sampling)");
    sgc__settings.time_mode_given = getenv("SGC_TIME_MODE") != NULL;
    refuse_without_effect();
}

/* A setting named here, set, while what it needs is off: exit 2 (nothing
 * the program does could use it; docs/RUNTIME.md, "Settings without
 * effect"). */
static void no_effect(const char *name, const char *without, const char *set_what) {
    char why[300];
    snprintf(why, sizeof why, "has no effect without %s; set %s or unset %s", without, set_what, name);
    bad(name, getenv(name), why);
}

/* Prints "freecheck: NAME=value: warning: ..." (the run goes on). */
static void warn(const char *name, const char *what) {
    fprintf(stderr, "freecheck: %s=%s: warning: %s\n", name, getenv(name), what);
}

static void refuse_without_effect(void) {
    /* Neither sgc_sampling_start nor sgc_time_sampling_start reads these:
     * they act only through the sampler the environment starts. */
    if (getenv("SGC_ALLOC_MODE") && sgc__settings.alloc_period == 0)
        no_effect("SGC_ALLOC_MODE", "allocation sampling (SGC_ALLOC_PERIOD is 0 or unset)", "a period");
    if (getenv("SGC_TIME_CLOCK") && sgc__settings.time_hz == 0)
        no_effect("SGC_TIME_CLOCK", "time sampling (SGC_TIME_HZ is 0 or unset)", "a rate");
    if (sgc__settings.alt_mode == SGC_ALT_OFF) {
        static const char *const alt_vars[] = {"SGC_ALT_SEGMENT", "SGC_ALT_OUT", "SGC_ALT_CARRY", "SGC_ALT_COST"};
        for (size_t i = 0; i < sizeof alt_vars / sizeof alt_vars[0]; i++) {
            const char *v = getenv(alt_vars[i]);
            /* An empty SGC_ALT_OUT and a cost of 0 ask for nothing. */
            if (v && *v && strcmp(v, "0") != 0)
                no_effect(alt_vars[i], "in-process alternation (SGC_ALTERNATE is off or unset)", "SGC_ALTERNATE");
        }
    }
    /* The validation sweeps pass the spin's clock with a spin of 0 as
     * their control on purpose: a warning. */
    if (getenv("SGC_SAMPLE_SPIN_CLOCK") && sgc__settings.sample_spin_ns == 0)
        warn("SGC_SAMPLE_SPIN_CLOCK", "has no effect without a spin (SGC_SAMPLE_SPIN_NS is 0 or unset)");
}

void sgc__settings_exit_warnings(void) {
    /* These also act on sampling the program starts itself, so only the
     * end of the run can tell that nothing used them. */
    if (sgc__settings.time_mode_given && sgc__stats.time_sampling_ns == 0)
        warn("SGC_TIME_MODE", "had no effect: no time sampling ran in this process (SGC_TIME_HZ is 0 or unset)");
    if (sgc__settings.sample_spin_ns && sgc__stats.time_sampling_ns == 0 && sgc__sampler.sessions == 0)
        warn("SGC_SAMPLE_SPIN_NS",
             "had no effect: no sampler ran in this process (SGC_ALLOC_PERIOD and SGC_TIME_HZ are 0 or unset)");
}

/* The cpu spin: ns of this thread's CPU time by its own clock.  A fixed
 * number of loop iterations is not a fixed CPU time on a shared machine:
 * the CPU time of one iteration moves by up to two times from one
 * millisecond to the next (docs/RUNTIME.md has figures; make bench-spin
 * shows it), so a count timed at start-up cost one process 0.65 x D and
 * another 1.33 x D.  The clock is what the measurements read, so the spin
 * ends by it: the loop runs a sixteenth of ns at the rate timed at
 * start-up, then a third of what remains at the rate the last run showed,
 * each run followed by a reading; within eight readings of the end the
 * clock is polled, and the spin stops at the reading that puts its total
 * nearest ns.  The total is the CPU time between its first and last
 * readings plus one reading's own cost (the part of the first before its
 * snapshot and of the last after it), a reading's cost measured here back
 * to back at the speed of the moment: so a spin costs ns within half a
 * reading (about 0.2 us), whatever the calibration and however the
 * machine's speed moves.  Async-signal-safe: clock_gettime and locals. */
static void spin_cpu(uint64_t ns) {
    /* One reading's CPU, now: the lesser of two back-to-back gaps, so that
     * an interrupt in one of them does not end the spin early. */
    uint64_t t0 = thread_cpu_ns();
    uint64_t t1 = thread_cpu_ns();
    uint64_t last = thread_cpu_ns();
    uint64_t read = t1 - t0 < last - t1 ? t1 - t0 : last - t1;
    if (read == 0)
        read = 1;
    double rate = sgc__settings.spin_iters_per_ns;
    uint64_t share = 16; /* the first run of the loop trusts the calibration least */
    for (;;) {
        uint64_t total = last - t0 + read; /* what the spin costs if it stops now */
        if (total + read / 2 >= ns)        /* one reading more would end further from ns */
            return;
        uint64_t rest = ns - total;
        if (rest > 8 * read && rate > 0) {
            uint64_t iters = (uint64_t)((double)(rest / share) * rate);
            share = 3;
            sgc__spin_loop(iters);
            uint64_t now = thread_cpu_ns();
            if (now - last > read)
                rate = (double)iters / (double)(now - last - read);
            last = now;
        } else {
            /* The least gap seen: an interrupt charged to this thread
             * during one reading is in last - t0 already and must not be
             * counted a second time as the cost of a reading. */
            uint64_t now = thread_cpu_ns();
            if (now - last < read)
                read = now - last ? now - last : 1;
            last = now;
        }
    }
}

void sgc__spin_ns(uint64_t ns) {
    if (ns == 0)
        return;
    if (sgc__settings.sample_spin_clock == SGC_CLOCK_CPU) {
        spin_cpu(ns);
        return;
    }
    /* Spinning on the clock calibrates itself: no loop count to tune per
     * machine, and preemption during the wait counts as waited, so the
     * injected cost is ns of wall time exactly (plus one clock read). */
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    uint64_t start = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec, now;
    do {
        clock_gettime(CLOCK_MONOTONIC, &ts);
        now = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
    } while (now - start < ns);
}
