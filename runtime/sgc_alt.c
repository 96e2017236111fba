/* sgc_alt.c - in-process alternation: the segment driver, the samplers'
 * switch, the per-segment measurements and the segment series file
 * (invariants: sgc_alt.h; settings: docs/RUNTIME.md; file: docs/FORMATS.md).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sgc_alt.h"
#include "sgc_internal.h"
#include "sgc_output.h"
#include "sgc_sample.h"
#include "sgc_timer.h"

int64_t sgc__alt_countdown = INT64_MAX;

/* Iterations between the first two clock readings of a segment in the hook;
 * afterwards the countdown adapts to the measured rate. */
#define ALT_FIRST_CHECK 16
/* Timer periods a segment holds at least when time sampling is alternated. */
#define SGC_ALT_MIN_PERIODS 20u

/* Counter readings at a segment boundary. */
typedef struct alt_snap {
    uint64_t cpu, wall, bytes, iterations, alloc_samples, alloc_points, sampled_bytes, time_samples, minor, major,
        gc_ns, major_cpu;
} alt_snap;

static struct {
    int on;                /* alternation is running */
    int closed;            /* the last segment has been recorded */
    int phase;             /* 0 = ABBA, 1 = BAAB */
    uint64_t target_ns;    /* CPU time per segment in force (0 in fills mode) */
    sgc_alt_segment cur;   /* the running segment: index, block, pos, kind, on */
    alt_snap start;        /* readings at its start */
    uint64_t fills;        /* minor collections that ended in it */
    uint64_t iterations;   /* sgc_iteration() calls counted so far */
    int64_t armed;         /* sgc__alt_countdown when iterations were last counted */
    uint64_t major_cpu;    /* thread CPU time in major collections so far */
    uint64_t major_start;  /* thread CPU time when the running major collection began */
    sgc_alt_segment *segs; /* completed segments */
    size_t nsegs, cap;
} alt = {.armed = INT64_MAX};

/* ---- Clocks and counters -------------------------------------------------- */

static uint64_t thread_cpu_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Adds the hook calls since the last count to alt.iterations. */
static void count_iterations(void) {
    alt.iterations += (uint64_t)(alt.armed - sgc__alt_countdown);
    alt.armed = sgc__alt_countdown;
}

static void arm(int64_t n) {
    count_iterations();
    sgc__alt_countdown = n;
    alt.armed = n;
}

static void take(alt_snap *s) {
    count_iterations();
    sgc__sample_sync(); /* the fast path's bytes into sampled_bytes */
    s->cpu = thread_cpu_ns();
    s->wall = sgc__now_ns();
    s->bytes = sgc__stats.nursery_bytes + (uint64_t)(sgc_nursery.free - sgc_nursery.start) + sgc__stats.large_bytes;
    s->iterations = alt.iterations;
    s->alloc_samples = sgc__stats.alloc_samples;
    s->alloc_points = sgc__stats.alloc_sample_points;
    s->sampled_bytes = sgc__stats.sampled_bytes;
    s->time_samples = sgc__timer_taken();
    s->minor = sgc__stats.minor_collections;
    s->major = sgc__stats.major_collections;
    s->gc_ns = sgc__stats.minor_ns + sgc__stats.major_ns;
    s->major_cpu = alt.major_cpu;
}

/* Burns ns of this thread's CPU time (the debug costs SGC_ALT_CARRY and
 * SGC_ALT_COST): CPU time, so that preemption does not shorten it. */
static void spin(uint64_t ns) {
    uint64_t t0 = thread_cpu_ns();
    while (thread_cpu_ns() - t0 < ns)
        ;
}

/* ---- The pattern ----------------------------------------------------------- */

static char kind_at(int pos) {
    int a_first = alt.phase == 0;     /* ABBA */
    int outer = pos == 0 || pos == 3; /* the A of ABBA, the B of BAAB */
    return (outer == a_first) ? 'A' : 'B';
}

static int phase_for_seed(uint64_t seed) {
    /* splitmix64 of the seed with its own constant, so the phase does not
     * follow the poisson gaps' first draw. */
    uint64_t z = seed ^ 0xa17e4a7e5e6a5eedull;
    z += 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    return (int)(z >> 63);
}

/* Puts the samplers in the state of the running segment.  Every on-segment
 * is a fresh session (sgc_alt.h); segment i's poisson gaps come from
 * SGC_SEED + i, so no two segments repeat the same gaps. */
static void apply_kind(void) {
    int mode = sgc__settings.alt_mode;
    int on = alt.cur.kind == 'B' && mode != SGC_ALT_NONE;
    alt.cur.on = (uint8_t)on;
    if (sgc_alt_switches_alloc(mode)) {
        if (on)
            sgc_sampling_start(sgc__settings.alloc_period, sgc__settings.alloc_mode,
                               sgc__settings.seed + alt.cur.index);
        else
            sgc_sampling_stop();
    }
    if (sgc_alt_switches_time(mode)) {
        if (!on) {
            sgc_time_sampling_stop();
        } else if (sgc_time_sampling_start(sgc__settings.time_hz, sgc__settings.time_clock) != 0) {
            fprintf(stderr, "freecheck: SGC_ALTERNATE: cannot start the time sampler for segment %u: %s\n",
                    alt.cur.index, strerror(errno));
            exit(1);
        }
    }
}

/* Starts the running segment: samplers, start readings, debug costs. */
static void begin_segment(char previous_kind) {
    alt.cur.kind = kind_at(alt.cur.pos);
    apply_kind();
    alt.fills = 0;
    take(&alt.start);
    if (previous_kind == 'B' && sgc__settings.alt_carry_ns)
        spin(sgc__settings.alt_carry_ns);
    if (alt.cur.kind == 'B' && sgc__settings.alt_cost_ns)
        spin(sgc__settings.alt_cost_ns);
    /* In CPU-time mode the hook looks at the clock soon, then adapts; in
     * fills mode it only counts. */
    arm(sgc__settings.alt_fills ? INT64_MAX : ALT_FIRST_CHECK);
}

/* Records the running segment as ended now. */
static void end_segment(int why) {
    alt_snap e;
    take(&e);
    sgc_alt_segment s = alt.cur;
    s.end = (uint8_t)why;
    s.cpu_ns = e.cpu - alt.start.cpu;
    s.wall_ns = e.wall - alt.start.wall;
    s.bytes = e.bytes - alt.start.bytes;
    s.iterations = e.iterations - alt.start.iterations;
    s.alloc_samples = e.alloc_samples - alt.start.alloc_samples;
    s.alloc_points = e.alloc_points - alt.start.alloc_points;
    s.sampled_bytes = e.sampled_bytes - alt.start.sampled_bytes;
    s.time_samples = e.time_samples - alt.start.time_samples;
    s.minor = e.minor - alt.start.minor;
    s.major = e.major - alt.start.major;
    s.gc_ns = e.gc_ns - alt.start.gc_ns;
    s.major_cpu_ns = e.major_cpu - alt.start.major_cpu;
    if (alt.nsegs == alt.cap) {
        size_t cap = alt.cap ? alt.cap * 2 : 256;
        sgc_alt_segment *p = realloc(alt.segs, cap * sizeof *p);
        if (p == NULL) {
            fprintf(stderr, "freecheck: out of memory growing the segment series to %zu entries\n", cap);
            abort();
        }
        alt.segs = p;
        alt.cap = cap;
    }
    alt.segs[alt.nsegs++] = s;
}

/* A boundary: the running segment ends, the next one begins. */
static void boundary(int why) {
    end_segment(why);
    char previous = alt.cur.kind;
    alt.cur.index++;
    alt.cur.pos = (uint8_t)((alt.cur.pos + 1) % 4);
    if (alt.cur.pos == 0)
        alt.cur.block++;
    begin_segment(previous);
}

/* ---- Hooks ------------------------------------------------------------------ */

void sgc__alt_init(void) {
    if (!sgc__settings.alt_mode || alt.on)
        return;
    alt.on = 1;
    alt.phase = phase_for_seed(sgc__settings.seed);
    /* A fresh timer fires first one period after it starts, so a B segment
     * of few periods would take fewer samples than its rate says: time
     * sampling gets segments of at least SGC_ALT_MIN_PERIODS periods. */
    alt.target_ns = sgc__settings.alt_cpu_ns;
    int mode = sgc__settings.alt_mode;
    if (alt.target_ns && sgc_alt_switches_time(mode) && sgc__settings.time_hz) {
        uint64_t min_ns = SGC_ALT_MIN_PERIODS * (1000000000ull / sgc__settings.time_hz);
        if (alt.target_ns < min_ns) {
            alt.target_ns = min_ns;
            /* Asked for explicitly: say that the length in force is another. */
            const char *v = getenv("SGC_ALT_SEGMENT");
            if (v) {
                char len[32];
                if (min_ns % 1000000 == 0)
                    snprintf(len, sizeof len, "%llums", (unsigned long long)(min_ns / 1000000));
                else
                    snprintf(len, sizeof len, "%llu.%06llums", (unsigned long long)(min_ns / 1000000),
                             (unsigned long long)(min_ns % 1000000));
                fprintf(stderr,
                        "freecheck: SGC_ALT_SEGMENT=%s: warning: segments last %s, at least %u periods of "
                        "SGC_TIME_HZ=%u\n",
                        v, len, SGC_ALT_MIN_PERIODS, sgc__settings.time_hz);
            }
        }
    }
    memset(&alt.cur, 0, sizeof alt.cur);
    alt.cur.pos = 3; /* the lead-in stands where the previous block's last segment would */
    begin_segment(0);
}

void sgc__alt_minor_end(void) {
    if (!alt.on || alt.closed)
        return;
    alt.fills++;
    if (sgc__settings.alt_fills ? alt.fills >= sgc__settings.alt_fills
                                : thread_cpu_ns() - alt.start.cpu >= alt.target_ns)
        boundary(SGC_ALT_END_GC);
}

void sgc__alt_major(int begin) {
    if (!alt.on || alt.closed)
        return;
    if (begin)
        alt.major_start = thread_cpu_ns();
    else
        alt.major_cpu += thread_cpu_ns() - alt.major_start;
}

void sgc__alt_iteration_slow(void) {
    if (!alt.on || alt.closed || sgc__settings.alt_fills) {
        arm(INT64_MAX);
        return;
    }
    count_iterations();
    uint64_t elapsed = thread_cpu_ns() - alt.start.cpu;
    uint64_t target = alt.target_ns;
    if (elapsed >= target) {
        boundary(SGC_ALT_END_ITER);
        return;
    }
    /* Look again when about half of the remaining time should have passed
     * at the rate so far: a few clock readings per segment, and the
     * boundary comes within a small fraction of a segment of its time. */
    uint64_t done = alt.iterations - alt.start.iterations;
    double next = elapsed ? (double)(target - elapsed) * (double)done / (double)elapsed / 2.0 : ALT_FIRST_CHECK;
    if (next < 1.0)
        next = 1.0;
    if (next > 1e15)
        next = 1e15;
    arm((int64_t)next);
}

const sgc_alt_segment *sgc_alt_series(size_t *count) {
    *count = alt.nsegs;
    return alt.segs;
}

int sgc_alt_phase(void) { return alt.on ? alt.phase : -1; }

/* ---- The series file -------------------------------------------------------- */

/* The series' lines (docs/FORMATS.md), for sgc__output_replace. */
static int fill_series(FILE *f, void *ctx) {
    (void)ctx;
    const sgc_settings *st = &sgc__settings;
#define KV(key, val) fprintf(f, "%s %llu\n", key, (unsigned long long)(val))
    fprintf(f, "sgc-segments 1\n");
    fprintf(f, "alternate %s\n", sgc_alt_mode_name(st->alt_mode));
    fprintf(f, "pattern %s\n", alt.phase == 0 ? "ABBA" : "BAAB");
    KV("segment_fills", st->alt_fills);
    KV("segment_cpu_ns", alt.target_ns);
    KV("alloc_period", st->alloc_period);
    fprintf(f, "alloc_mode %s\n", sgc_alloc_mode_name(st->alloc_mode));
    KV("time_hz", st->time_hz);
    fprintf(f, "time_clock %s\n", sgc_clock_name(st->time_clock));
    KV("seed", st->seed);
    KV("nursery_size", st->nursery_size);
    KV("carry_ns", st->alt_carry_ns);
    KV("cost_ns", st->alt_cost_ns);
#undef KV
    fprintf(f, "columns index block pos kind on end cpu_ns wall_ns bytes iterations alloc_samples "
               "alloc_points sampled_bytes time_samples minor major gc_ns major_cpu_ns\n");
    for (size_t i = 0; i < alt.nsegs; i++) {
        const sgc_alt_segment *s = &alt.segs[i];
        fprintf(f, "seg %u %u %u %c %u %s %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu\n", s->index,
                s->block, s->pos, s->kind, s->on, sgc_alt_end_name(s->end), (unsigned long long)s->cpu_ns,
                (unsigned long long)s->wall_ns, (unsigned long long)s->bytes, (unsigned long long)s->iterations,
                (unsigned long long)s->alloc_samples, (unsigned long long)s->alloc_points,
                (unsigned long long)s->sampled_bytes, (unsigned long long)s->time_samples, (unsigned long long)s->minor,
                (unsigned long long)s->major, (unsigned long long)s->gc_ns, (unsigned long long)s->major_cpu_ns);
    }
    fprintf(f, "segments %zu\n", alt.nsegs);
    return 0;
}

int sgc__alt_shutdown(void) {
    if (!alt.on || alt.closed)
        return 0;
    end_segment(SGC_ALT_END_EXIT);
    alt.closed = 1;
    sgc__alt_countdown = INT64_MAX;
    alt.armed = INT64_MAX;
    char why[256];
    if (sgc__settings.alt_out != NULL && sgc__output_replace(SGC_OUT_SERIES, fill_series, NULL, why, sizeof why) != 0) {
        fprintf(stderr, "freecheck: cannot write the segment series to %s (SGC_ALT_OUT): %s\n", sgc__settings.alt_out,
                why);
        return -1;
    }
    return 0;
}
