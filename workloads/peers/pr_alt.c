/* pr_alt.c - the C peers' segment driver (invariants: pr_alt.h; the file:
 * docs/FORMATS.md, "The segment series"). */
#define _GNU_SOURCE
#include "pr_alt.h"
#include "../../contracts/ct_out.h"
#include "pr_common.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

int64_t pr_alt_countdown = INT64_MAX;

/* The runtime's default SGC_SEED (docs/RUNTIME.md). */
#define PR_ALT_DEFAULT_SEED 1592652782ull
/* Check points between the first two clock readings of a segment. */
#define PR_ALT_FIRST_CHECK 16

enum { ALT_OFF, ALT_NONE, ALT_ALLOC };
enum { END_ITER, END_EXIT };

/* One segment, as the series records it. */
typedef struct pr_seg {
    uint32_t index, block;
    uint8_t pos, on, end;
    char kind;
    uint64_t cpu_ns, wall_ns, bytes, iterations, alloc_samples, switch_ns;
} pr_seg;

/* Counter readings at a boundary. */
typedef struct pr_snap {
    uint64_t cpu, wall, bytes, iterations, samples;
} pr_snap;

static struct {
    int mode;            /* ALT_* */
    int phase;           /* 0 = ABBA, 1 = BAAB */
    int closed;          /* the last segment is recorded */
    uint64_t seed;       /* SGC_SEED */
    uint64_t target_ns;  /* CPU time per segment */
    const char *out;     /* SGC_ALT_OUT, or NULL */
    const char *program; /* for messages */
    pr_alt_sampler sampler;
    pr_seg cur;           /* the running segment: index, block, pos, kind, on */
    pr_snap start;        /* its start reading */
    uint64_t last_end;    /* CPU time of the previous end reading */
    uint64_t iterations;  /* check points passed so far */
    int64_t armed;        /* pr_alt_countdown when they were last counted */
    uint64_t first_count; /* the allocator's count at the lead-in's start */
    int sampling;         /* the allocator samples now */
    pr_seg *segs;         /* completed segments (mmap'ed: no malloc) */
    size_t nsegs, cap;
} alt = {.armed = INT64_MAX};

static uint64_t clock_ns(clockid_t id) {
    struct timespec ts;
    clock_gettime(id, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

__attribute__((noreturn, format(printf, 2, 3))) static void bad(const char *program, const char *fmt, ...) {
    va_list ap;
    fprintf(stderr, "%s: ", program);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    exit(2);
}

/* A whole decimal number (no sign), or -1. */
static int parse_u64(const char *s, uint64_t *out) {
    uint64_t v = 0;
    if (!*s)
        return -1;
    for (; *s; s++) {
        if (*s < '0' || *s > '9' || v > (UINT64_MAX - 9) / 10)
            return -1;
        v = v * 10 + (uint64_t)(*s - '0');
    }
    *out = v;
    return 0;
}

/* The phase of a seed: docs/FORMATS.md, the runtime's phase_for_seed. */
static int phase_for_seed(uint64_t seed) {
    uint64_t z = seed ^ 0xa17e4a7e5e6a5eedull;
    z += 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    return (int)(z >> 63);
}

static char kind_at(int pos) {
    int outer = pos == 0 || pos == 3;
    return outer == (alt.phase == 0) ? 'A' : 'B';
}

static void count_iterations(void) {
    alt.iterations += (uint64_t)(alt.armed - pr_alt_countdown);
    alt.armed = pr_alt_countdown;
}

static void arm(int64_t n) {
    count_iterations();
    pr_alt_countdown = n;
    alt.armed = n;
}

static uint64_t samples_now(void) { return alt.sampler.counts ? pr_alt_sampler_count() : 0; }

/* Grows the series by doubling in mmap'ed memory: malloc here could be
 * sampled between two segments. */
static void reserve_segment(const char *program) {
    if (alt.nsegs < alt.cap)
        return;
    size_t cap = alt.cap ? alt.cap * 2 : 4096;
    void *p = alt.segs ? mremap(alt.segs, alt.cap * sizeof(pr_seg), cap * sizeof(pr_seg), MREMAP_MAYMOVE)
                       : mmap(NULL, cap * sizeof(pr_seg), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        fprintf(stderr, "%s: out of memory growing the segment series to %zu segments\n", program, cap);
        exit(1);
    }
    alt.segs = p;
    alt.cap = cap;
}

/* Starts the running segment: switch, then the start reading (counters
 * first, CPU time last). */
static void begin_segment(void) {
    alt.cur.kind = kind_at(alt.cur.pos);
    int on = alt.mode == ALT_ALLOC ? alt.cur.kind == 'B' : alt.sampler.on_at_start;
    alt.cur.on = (uint8_t)(alt.mode == ALT_ALLOC && on);
    /* The lead-in sets the state even if it is the allocator's already: a
     * sampler that started before the program may have a gap pending that
     * is not one of its rule (tcmalloc's first 16 MiB, pr_gperftools.cc). */
    if (alt.mode == ALT_ALLOC && (on != alt.sampling || alt.cur.index == 0)) {
        pr_alt_sampler_set(on);
        alt.sampling = on;
    }
    count_iterations();
    alt.start.samples = samples_now();
    alt.start.bytes = pr_bytes_allocated;
    alt.start.iterations = alt.iterations;
    alt.start.wall = clock_ns(CLOCK_MONOTONIC);
    alt.start.cpu = clock_ns(CLOCK_THREAD_CPUTIME_ID);
    arm(PR_ALT_FIRST_CHECK);
}

/* Records the running segment as ended now (CPU time first). */
static void end_segment(const char *program, int end, uint64_t cpu_now) {
    pr_snap e;
    e.cpu = cpu_now;
    e.wall = clock_ns(CLOCK_MONOTONIC);
    count_iterations();
    e.iterations = alt.iterations;
    e.bytes = pr_bytes_allocated;
    e.samples = samples_now();
    reserve_segment(program);
    pr_seg *s = &alt.segs[alt.nsegs++];
    *s = alt.cur;
    s->end = (uint8_t)end;
    s->cpu_ns = e.cpu - alt.start.cpu;
    s->wall_ns = e.wall - alt.start.wall;
    s->bytes = e.bytes - alt.start.bytes;
    s->iterations = e.iterations - alt.start.iterations;
    s->alloc_samples = e.samples - alt.start.samples;
    s->switch_ns = alt.cur.index ? alt.start.cpu - alt.last_end : 0;
    alt.last_end = e.cpu;
}

void pr_alt_slow(void) {
    if (alt.mode == ALT_OFF || alt.closed) {
        arm(INT64_MAX);
        return;
    }
    count_iterations();
    uint64_t now = clock_ns(CLOCK_THREAD_CPUTIME_ID);
    uint64_t elapsed = now - alt.start.cpu;
    if (elapsed >= alt.target_ns) {
        end_segment(alt.program, END_ITER, now);
        alt.cur.index++;
        alt.cur.pos = (uint8_t)((alt.cur.pos + 1) % 4);
        if (alt.cur.pos == 0)
            alt.cur.block++;
        begin_segment();
        return;
    }
    /* Look again when about half of the remaining time should have passed
     * at the rate so far (as the runtime's driver does). */
    uint64_t done = alt.iterations - alt.start.iterations;
    double next =
        elapsed ? (double)(alt.target_ns - elapsed) * (double)done / (double)elapsed / 2.0 : PR_ALT_FIRST_CHECK;
    if (next < 1.0)
        next = 1.0;
    if (next > 1e15)
        next = 1e15;
    arm((int64_t)next);
}

void pr_alt_start(const char *program) {
    const char *v = getenv("SGC_ALTERNATE");
    alt.program = program;
    static const char *const alt_vars[] = {"SGC_ALT_SEGMENT", "SGC_ALT_OUT", "SGC_ALT_CARRY", "SGC_ALT_COST"};
    for (size_t i = 0; i < sizeof alt_vars / sizeof alt_vars[0]; i++) {
        const char *w = getenv(alt_vars[i]);
        if (!w || !*w || !strcmp(w, "0")) /* an empty path and a cost of 0 ask for nothing */
            continue;
        if (i >= 2)
            bad(program, "%s=%s: freecheck's debug cost; this program does not inject it (unset %s)", alt_vars[i], w,
                alt_vars[i]);
        if (!v || !strcmp(v, "off"))
            bad(program,
                "%s=%s: has no effect without in-process alternation (SGC_ALTERNATE is off or unset); set "
                "SGC_ALTERNATE or unset %s",
                alt_vars[i], w, alt_vars[i]);
    }
    if (!v || !strcmp(v, "off"))
        return;
    if (!strcmp(v, "none"))
        alt.mode = ALT_NONE;
    else if (!strcmp(v, "alloc"))
        alt.mode = ALT_ALLOC;
    else if (!strcmp(v, "time") || !strcmp(v, "both"))
        bad(program, "SGC_ALTERNATE=%s: this program has no time sampler; it alternates off, none or alloc", v);
    else
        bad(program, "SGC_ALTERNATE=%s: expected off, none or alloc", v);
    alt.target_ns = 5000000u;
    if ((v = getenv("SGC_ALT_SEGMENT")) != NULL) {
        size_t len = strlen(v);
        char num[32];
        uint64_t ms;
        if (len > 2 && len < sizeof num && !strcmp(v + len - 2, "ms")) {
            memcpy(num, v, len - 2);
            num[len - 2] = '\0';
            if (parse_u64(num, &ms) || ms < 1 || ms > 60000)
                bad(program, "SGC_ALT_SEGMENT=%s: expected a CPU time from 1ms to 60000ms", v);
            alt.target_ns = ms * 1000000u;
        } else {
            bad(program,
                "SGC_ALT_SEGMENT=%s: this program has no minor collections to count; give a CPU time such as 5ms", v);
        }
    }
    alt.seed = PR_ALT_DEFAULT_SEED;
    if ((v = getenv("SGC_SEED")) != NULL && parse_u64(v, &alt.seed))
        bad(program, "SGC_SEED=%s: expected an unsigned decimal integer below 2^64", v);
    if ((v = getenv("SGC_ALT_OUT")) != NULL && *v)
        alt.out = v;
    char why[512];
    if (pr_alt_sampler_prepare(alt.mode == ALT_ALLOC ? "alloc" : "none", &alt.sampler, why, sizeof why) != 0)
        bad(program, "SGC_ALTERNATE=%s: %s", getenv("SGC_ALTERNATE"), why);
    alt.phase = phase_for_seed(alt.seed);
    alt.sampling = alt.sampler.on_at_start;
    alt.first_count = samples_now();
    memset(&alt.cur, 0, sizeof alt.cur);
    alt.cur.pos = 3; /* the lead-in stands where the previous block's last segment would */
    begin_segment();
}

/* ---- The series file -------------------------------------------------------- */

typedef struct out_buf {
    int fd, failed;
    size_t len;
    char buf[65536];
} out_buf;

static void flush_buf(out_buf *o) {
    size_t done = 0;
    while (!o->failed && done < o->len) {
        ssize_t n = write(o->fd, o->buf + done, o->len - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            o->failed = errno ? errno : EIO;
        else
            done += (size_t)n;
    }
    o->len = 0;
}

__attribute__((format(printf, 2, 3))) static void put(out_buf *o, const char *fmt, ...) {
    if (sizeof o->buf - o->len < 512)
        flush_buf(o);
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(o->buf + o->len, sizeof o->buf - o->len, fmt, ap);
    va_end(ap);
    if (n > 0)
        o->len += (size_t)n;
}

/* Writes the series to path with the atomic writer (contracts/ct_out.h:
 * no malloc).  0, or -1 with the reason in err. */
static int write_series(const char *path, char *err, size_t errlen) {
    static out_buf o;
    static ct_out out;
    if (ct_out_begin(&out, path, err, errlen) != 0)
        return -1;
    o.fd = out.fd;
    o.failed = 0;
    o.len = 0;
    put(&o, "sgc-segments 1\n");
    put(&o, "alternate %s\n", alt.mode == ALT_ALLOC ? "alloc" : "none");
    put(&o, "pattern %s\n", alt.phase == 0 ? "ABBA" : "BAAB");
    put(&o, "segment_fills 0\nsegment_cpu_ns %" PRIu64 "\n", alt.target_ns);
    put(&o, "alloc_period %" PRIu64 "\nalloc_mode poisson\n",
        alt.mode == ALT_ALLOC || alt.sampler.on_at_start ? alt.sampler.period : 0);
    put(&o, "time_hz 0\ntime_clock none\nseed %" PRIu64 "\nnursery_size 0\ncarry_ns 0\ncost_ns 0\n", alt.seed);
    put(&o, "system %s\ncpu_clock thread\n", alt.sampler.system);
    put(&o, "unmeasured %salloc_points\n", alt.sampler.counts ? "" : "alloc_samples ");
    put(&o, "columns index block pos kind on end cpu_ns wall_ns bytes iterations alloc_samples alloc_points "
            "sampled_bytes time_samples minor major gc_ns major_cpu_ns switch_ns\n");
    for (size_t i = 0; i < alt.nsegs; i++) {
        const pr_seg *s = &alt.segs[i];
        int sampled = alt.mode == ALT_ALLOC ? s->on : alt.sampler.on_at_start;
        put(&o,
            "seg %" PRIu32 " %" PRIu32 " %u %c %u %s %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64
            " 0 %" PRIu64 " 0 0 0 0 0 %" PRIu64 "\n",
            s->index, s->block, s->pos, s->kind, s->on, s->end == END_EXIT ? "exit" : "iter", s->cpu_ns, s->wall_ns,
            s->bytes, s->iterations, s->alloc_samples, sampled ? s->bytes : 0, s->switch_ns);
    }
    put(&o, "segments %zu\n", alt.nsegs);
    flush_buf(&o);
    out.failed = o.failed;
    return ct_out_commit(&out, err, errlen) != 0 ? -1 : 0;
}

void pr_alt_finish(const char *program, pr_alt_totals *t) {
    memset(t, 0, sizeof *t);
    if (alt.mode == ALT_OFF)
        return;
    if (!alt.closed) {
        end_segment(program, END_EXIT, clock_ns(CLOCK_THREAD_CPUTIME_ID));
        alt.closed = 1;
        pr_alt_countdown = INT64_MAX;
        alt.armed = INT64_MAX;
    }
    t->active = 1;
    t->counts = alt.sampler.counts;
    t->period = alt.mode == ALT_ALLOC || alt.sampler.on_at_start ? alt.sampler.period : 0;
    t->samples_before = alt.first_count;
    t->samples = samples_now() - alt.first_count;
    char err[CT_OUT_PATH_MAX + 256];
    if (alt.out && write_series(alt.out, err, sizeof err) != 0) {
        fprintf(stderr, "%s: cannot write the segment series to %s (SGC_ALT_OUT): %s\n", program, alt.out, err);
        exit(1);
    }
}
