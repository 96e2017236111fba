/* st_segcheck.c - the segment series conformance checker (st_segcheck.h). */
#define _GNU_SOURCE
#include "st_segcheck.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The fields every series names (docs/FORMATS.md), in this order; switch_ns
 * is the one optional field the checker knows. */
/* One field a line: packed lines were laid out differently by each pass of make format. */
#define SC_FIELDS(X)    \
    X(index, 0)         \
    X(block, 0)         \
    X(pos, 0)           \
    X(kind, 0)          \
    X(on, 0)            \
    X(end, 0)           \
    X(cpu_ns, 0)        \
    X(wall_ns, 1)       \
    X(bytes, 0)         \
    X(iterations, 1)    \
    X(alloc_samples, 1) \
    X(alloc_points, 1)  \
    X(sampled_bytes, 1) \
    X(time_samples, 1)  \
    X(minor, 1)         \
    X(major, 1)         \
    X(gc_ns, 1)         \
    X(major_cpu_ns, 1)
enum {
#define X(name, m) F_##name,
    SC_FIELDS(X)
#undef X
        NF_REQ,
    F_switch_ns = NF_REQ,
    NF
};
static const char *const field_name[NF] = {
#define X(name, m) #name,
    SC_FIELDS(X)
#undef X
        "switch_ns"};
/* May the field be listed as unmeasured? */
static const int may_unmeasure[NF] = {
#define X(name, m) m,
    SC_FIELDS(X)
#undef X
        0};

/* The header keys: every writer writes the first twelve; the last three
 * are optional. */
static const char *const header_keys[] = {"alternate",  "pattern", "segment_fills", "segment_cpu_ns", "alloc_period",
                                          "alloc_mode", "time_hz", "time_clock",    "seed",           "nursery_size",
                                          "carry_ns",   "cost_ns", "system",        "cpu_clock",      "unmeasured"};
enum { NKEYS_REQ = 12, NKEYS = 15 };
enum {
    K_ALTERNATE,
    K_PATTERN,
    K_FILLS,
    K_CPU,
    K_PERIOD,
    K_MODE,
    K_HZ,
    K_CLOCK,
    K_SEED,
    K_NURSERY,
    K_CARRY,
    K_COST,
    K_SYSTEM,
    K_CPU_CLOCK,
    K_UNMEASURED
};

typedef struct seg {
    uint64_t v[NF];
    char kind; /* 'A', 'B' or '?' */
    char end[8];
    int line;
} seg;

typedef struct checker {
    st_segcheck_report report;
    void *ctx;
    size_t n;
} checker;

static void __attribute__((format(printf, 2, 3))) err(checker *c, const char *fmt, ...) {
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    c->report(c->ctx, msg);
    c->n++;
}

/* An unsigned decimal integer below 2^63 without sign or leading zero. */
static int parse_u63(const char *s, uint64_t *v) {
    size_t n = strlen(s);
    if (!n || n > 19 || strspn(s, "0123456789") != n || (n > 1 && s[0] == '0'))
        return -1;
    unsigned long long x = strtoull(s, NULL, 10);
    if (n == 19 && x >= (1ull << 63))
        return -1;
    *v = x;
    return 0;
}

/* The seed's phase, docs/FORMATS.md invariant 3: 0 ABBA, 1 BAAB. */
static int phase_of(uint64_t seed) {
    uint64_t z = seed ^ 0xa17e4a7e5e6a5eedull;
    z += 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    return (int)(z >> 63);
}

/* Splits s at single spaces into w (at most max words; *over set when there
 * are more).  Returns the count; an empty word (two spaces, a space at an
 * end) is returned as "". */
static int split(char *s, char **w, int max, int *over) {
    int n = 0;
    *over = 0;
    for (char *p = s;;) {
        char *sp = strchr(p, ' ');
        if (sp)
            *sp = '\0';
        if (n < max)
            w[n++] = p;
        else
            *over = 1;
        if (!sp)
            break;
        p = sp + 1;
    }
    return n;
}

/* The value of key in a stats record's text, copied into out; 0, or -1 if absent. */
static int record_value(const char *rec, const char *key, char *out, size_t outlen) {
    size_t kl = strlen(key);
    for (const char *line = strchr(rec, '\n'); line && line[1]; line = strchr(line + 1, '\n')) {
        const char *p = line + 1;
        if (!strncmp(p, key, kl) && p[kl] == ' ') {
            size_t vl = strcspn(p + kl + 1, "\n");
            snprintf(out, outlen, "%.*s", (int)vl, p + kl + 1);
            return 0;
        }
    }
    return -1;
}

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static uint64_t median_of(uint64_t *v, size_t n) {
    if (!n)
        return 0;
    qsort(v, n, sizeof *v, cmp_u64);
    return v[n / 2];
}

/* A series as read: its header words, its columns, its segments. */
typedef struct series {
    char *hdr[NKEYS]; /* the header's values (NULL: absent) */
    int col_of[NF];   /* field -> its column (-1: no column) */
    seg *segs;
    size_t nseg;
} series;

/* What the checks learn on the way: the header's numbers, the unmeasured
 * fields and the segments' totals. */
typedef struct findings {
    uint64_t num[NKEYS];
    int unmeasured[NF];
    uint64_t tot_bytes, tot_iter, tot_samples;
} findings;

/* The header's words: mode, system, CPU clock, allocation mode; the
 * summary's system and clock. */
static void check_header_words(checker *c, char *const *hdr, const st_segcheck_opts *o, st_segcheck_summary *sum) {
    const char *mode = hdr[K_ALTERNATE];
    static const char *const modes[] = {"none", "alloc", "time", "both"};
    int known_mode = 0;
    for (int i = 0; i < 4; i++)
        known_mode |= !strcmp(mode, modes[i]);
    if (!known_mode)
        err(c, "alternate '%s' is not one of none alloc time both", mode);
    if (o->mode && strcmp(mode, o->mode))
        err(c, "alternate %s, expected %s", mode, o->mode);
    const char *system = hdr[K_SYSTEM] ? hdr[K_SYSTEM] : "freecheck";
    if (hdr[K_SYSTEM] &&
        (!*hdr[K_SYSTEM] || strspn(hdr[K_SYSTEM], "abcdefghijklmnopqrstuvwxyz0123456789_-") != strlen(hdr[K_SYSTEM])))
        err(c, "system '%s' is not a system name (lower-case letters, digits, '_', '-')", hdr[K_SYSTEM]);
    if (hdr[K_SYSTEM] && !strcmp(hdr[K_SYSTEM], "freecheck"))
        err(c, "system freecheck: freecheck's runtime writes no system line (absent means freecheck)");
    if (o->system && strcmp(system, o->system))
        err(c, "system '%s', expected %s", hdr[K_SYSTEM] ? hdr[K_SYSTEM] : "(none: freecheck)", o->system);
    const char *clock = hdr[K_CPU_CLOCK] ? hdr[K_CPU_CLOCK] : "thread";
    if (strcmp(clock, "thread") && strcmp(clock, "process"))
        err(c, "cpu_clock '%s' is not thread or process", clock);
    if (strcmp(hdr[K_MODE], "poisson") && strcmp(hdr[K_MODE], "fixed"))
        err(c, "alloc_mode '%s' is not poisson or fixed", hdr[K_MODE]);
    if (sum) {
        snprintf(sum->system, sizeof sum->system, "%s", system);
        snprintf(sum->cpu_clock, sizeof sum->cpu_clock, "%s", clock);
        sum->unmeasured[0] = '\0';
    }
}

/* The unmeasured list: fields a writer may leave unmeasured, each once,
 * into fd->unmeasured (and the summary's list). */
static void read_unmeasured(checker *c, const series *se, findings *fd, st_segcheck_summary *sum) {
    if (!se->hdr[K_UNMEASURED])
        return;
    char *list = strdup(se->hdr[K_UNMEASURED]), *save = NULL;
    for (char *u = strtok_r(list, " ", &save); u; u = strtok_r(NULL, " ", &save)) {
        int f = -1;
        for (int k = 0; k < NF; k++)
            if (!strcmp(u, field_name[k]))
                f = k;
        if (f < 0 || !may_unmeasure[f] || se->col_of[f] < 0) {
            err(c, "unmeasured names %s, which is not a field a writer may leave unmeasured", u);
            continue;
        }
        if (fd->unmeasured[f]++)
            err(c, "unmeasured names %s twice", u);
        else if (sum)
            snprintf(sum->unmeasured + strlen(sum->unmeasured), sizeof sum->unmeasured - strlen(sum->unmeasured),
                     "%s%s", sum->unmeasured[0] ? " " : "", u);
    }
    free(list);
}

/* The header's numbers and what they imply: clock and rate, period,
 * segment length, pattern and seed, at least one segment.  0, or -1 when
 * the rest cannot be checked. */
static int check_header_numbers(checker *c, const series *se, const st_segcheck_opts *o, findings *fd) {
    char *const *hdr = se->hdr;
    uint64_t *num = fd->num;
    static const int numeric[] = {K_FILLS, K_CPU, K_PERIOD, K_HZ, K_SEED, K_NURSERY, K_CARRY, K_COST};
    for (size_t i = 0; i < sizeof numeric / sizeof numeric[0]; i++) {
        int k = numeric[i];
        if (parse_u63(hdr[k], &num[k]) != 0) {
            err(c, "header %s '%s' is not an unsigned decimal integer", header_keys[k], hdr[k]);
            return -1;
        }
    }
    if (!strcmp(hdr[K_CLOCK], "none") && num[K_HZ])
        err(c, "time_clock none with time_hz %llu (none is the clock of a program without a time sampler)",
            (unsigned long long)num[K_HZ]);
    if (o->alloc_period >= 0 && num[K_PERIOD] != (uint64_t)o->alloc_period)
        err(c, "alloc_period %llu, expected %lld", (unsigned long long)num[K_PERIOD], (long long)o->alloc_period);
    uint64_t fills = num[K_FILLS], target = num[K_CPU];
    if ((fills == 0) == (target == 0))
        err(c, "exactly one of segment_fills and segment_cpu_ns must be nonzero (%llu, %llu)",
            (unsigned long long)fills, (unsigned long long)target);
    const char *pattern = hdr[K_PATTERN];
    if (strcmp(pattern, "ABBA") && strcmp(pattern, "BAAB")) {
        err(c, "pattern '%s' is not ABBA or BAAB", pattern);
        return -1;
    }
    const char *want = phase_of(num[K_SEED]) == 0 ? "ABBA" : "BAAB";
    if (strcmp(pattern, want))
        err(c, "pattern %s, but seed %s gives %s", pattern, hdr[K_SEED], want);
    if (!se->nseg) {
        err(c, "no segments: a series has at least the lead-in");
        return -1;
    }
    return 0;
}

/* Segment i's place: its index, block and position, its kind under the
 * pattern, whether it is on under the mode. */
static void check_place(checker *c, const seg *g, size_t i, const char *where, const char *pattern, const char *mode) {
    if (g->v[F_index] != i)
        err(c, "%s: index %llu", where, (unsigned long long)g->v[F_index]);
    uint64_t blk = i == 0 ? 0 : (i - 1) / 4 + 1, pos = i == 0 ? 3 : (i - 1) % 4;
    if (g->v[F_block] != blk || g->v[F_pos] != pos)
        err(c, "%s: block %llu pos %llu, expected block %llu pos %llu", where, (unsigned long long)g->v[F_block],
            (unsigned long long)g->v[F_pos], (unsigned long long)blk, (unsigned long long)pos);
    if (g->kind != pattern[pos])
        err(c, "%s: kind %c, but %s puts %c at position %llu", where, g->kind, pattern, pattern[pos],
            (unsigned long long)pos);
    uint64_t want_on = strcmp(mode, "none") && g->kind == 'B';
    if (g->v[F_on] != want_on)
        err(c, "%s: on %llu, expected %llu under %s", where, (unsigned long long)g->v[F_on],
            (unsigned long long)want_on, mode);
}

/* Segment g's end: only the last at exit; the others after the segment's
 * length (CPU time, or fills counted in minor collections, or in major
 * ones when the series has no minor collection at all). */
static void check_end(checker *c, const seg *g, int last, const char *where, const findings *fd, int no_minor) {
    uint64_t fills = fd->num[K_FILLS], target = fd->num[K_CPU];
    int at_exit = !strcmp(g->end, "exit");
    if (last && !at_exit)
        err(c, "%s: the last segment must end at exit, not %s", where, g->end);
    if (!last && at_exit)
        err(c, "%s: only the last segment ends at exit", where);
    if (!last && target && g->v[F_cpu_ns] < target)
        err(c, "%s: ended after %llu ns of CPU time, before segment_cpu_ns %llu", where,
            (unsigned long long)g->v[F_cpu_ns], (unsigned long long)target);
    if (!last && fills && !no_minor && g->v[F_minor] != fills)
        err(c, "%s: %llu minor collections, segment_fills %llu", where, (unsigned long long)g->v[F_minor],
            (unsigned long long)fills);
    if (!last && fills && no_minor && g->v[F_major] != fills)
        err(c, "%s: %llu collections (major; the series has no minor ones), segment_fills %llu", where,
            (unsigned long long)g->v[F_major], (unsigned long long)fills);
}

/* Segment i's counts: unmeasured fields written 0, the samples of off and on
 * segments, samples within points, the lead-in's switch time. */
static void check_counts(checker *c, const seg *g, size_t i, const char *where, const series *se, const findings *fd,
                         int switches_alloc) {
    const int *unmeasured = fd->unmeasured;
    for (int f = 0; f < NF; f++)
        if (unmeasured[f] && g->v[f])
            err(c, "%s: %s is %llu, but the series says it is unmeasured (written 0)", where, field_name[f],
                (unsigned long long)g->v[f]);
    if (switches_alloc && g->kind == 'A' && (g->v[F_alloc_samples] || g->v[F_alloc_points] || g->v[F_sampled_bytes]))
        err(c, "%s: an off segment with %llu samples, %llu points, %llu sampled bytes", where,
            (unsigned long long)g->v[F_alloc_samples], (unsigned long long)g->v[F_alloc_points],
            (unsigned long long)g->v[F_sampled_bytes]);
    if (switches_alloc && g->kind == 'B' && !unmeasured[F_sampled_bytes] && g->v[F_sampled_bytes] != g->v[F_bytes])
        err(c, "%s: an on segment samples %llu of its %llu bytes", where, (unsigned long long)g->v[F_sampled_bytes],
            (unsigned long long)g->v[F_bytes]);
    if (g->v[F_alloc_points] && g->v[F_alloc_samples] > g->v[F_alloc_points])
        err(c, "%s: more samples (%llu) than sample points (%llu)", where, (unsigned long long)g->v[F_alloc_samples],
            (unsigned long long)g->v[F_alloc_points]);
    if (se->col_of[F_switch_ns] >= 0 && i == 0 && g->v[F_switch_ns])
        err(c, "%s: the lead-in has switch_ns %llu (0: no switch before it)", where,
            (unsigned long long)g->v[F_switch_ns]);
}

/* Every segment line's invariants, in file order, and the totals. */
static void check_segment_lines(checker *c, const series *se, findings *fd) {
    const char *mode = se->hdr[K_ALTERNATE], *pattern = se->hdr[K_PATTERN];
    int switches_alloc = !strcmp(mode, "alloc") || !strcmp(mode, "both");
    /* A writer without minor collections (minor 0 in every segment: Go's
     * collector has one kind of cycle, counted as major) cuts segments of K
     * cycles by its major collections. */
    int no_minor = 1;
    for (size_t i = 0; i < se->nseg; i++)
        no_minor &= se->segs[i].v[F_minor] == 0;
    for (size_t i = 0; i < se->nseg; i++) {
        const seg *g = &se->segs[i];
        char where[64];
        snprintf(where, sizeof where, "segment %zu (line %d)", i, g->line);
        check_place(c, g, i, where, pattern, mode);
        check_end(c, g, i == se->nseg - 1, where, fd, no_minor);
        check_counts(c, g, i, where, se, fd, switches_alloc);
        fd->tot_bytes += g->v[F_bytes];
        fd->tot_iter += g->v[F_iterations];
        fd->tot_samples += g->v[F_alloc_samples];
    }
}

/* At least one complete block (four segments of one block, all ended at a
 * boundary), when the caller requires it. */
static void check_complete(checker *c, const series *se, const st_segcheck_opts *o) {
    size_t complete = 0;
    for (size_t i = 1; i + 3 < se->nseg + 0; i += 4) {
        int ok = 1;
        for (size_t k = i; k < i + 4; k++)
            ok &= strcmp(se->segs[k].end, "exit") != 0;
        complete += ok;
    }
    if (o->require_complete && !complete)
        err(c, "no complete block (four segments ended at boundaries): the run was shorter than five segments");
}

/* The segments' totals against the run's stats record: bytes, samples (or
 * their absence when unmeasured), the period, the iterations as objects. */
static void check_record(checker *c, const char *rec, const series *se, const findings *fd, int objects) {
    if (strncmp(rec, "sgc-stats 1\n", 12)) {
        err(c, "the stats record's first line is not 'sgc-stats 1'");
        return;
    }
    char v[64], mine[32];
    snprintf(mine, sizeof mine, "%llu", (unsigned long long)fd->tot_bytes);
    if (record_value(rec, "bytes_allocated", v, sizeof v) || strcmp(v, mine))
        err(c, "the segments' bytes add up to %s, the record's bytes_allocated is %s", mine,
            record_value(rec, "bytes_allocated", v, sizeof v) ? "absent" : v);
    int has = record_value(rec, "alloc_samples", v, sizeof v) == 0;
    snprintf(mine, sizeof mine, "%llu", (unsigned long long)fd->tot_samples);
    if (!fd->unmeasured[F_alloc_samples]) {
        if (!has || strcmp(v, mine))
            err(c, "the segments' samples add up to %s, the record's alloc_samples is %s", mine, has ? v : "absent");
    } else if (has) {
        err(c, "the series leaves alloc_samples unmeasured, but the record has alloc_samples %s", v);
    }
    if (record_value(rec, "alloc_period", v, sizeof v) || strcmp(v, se->hdr[K_PERIOD]))
        err(c, "the series' alloc_period %s, the record's %s", se->hdr[K_PERIOD],
            record_value(rec, "alloc_period", v, sizeof v) ? "absent" : v);
    snprintf(mine, sizeof mine, "%llu", (unsigned long long)fd->tot_iter);
    if (objects && (record_value(rec, "objects_allocated", v, sizeof v) || strcmp(v, mine)))
        err(c, "the segments' iterations add up to %s, the record's objects_allocated is %s", mine,
            record_value(rec, "objects_allocated", v, sizeof v) ? "absent" : v);
}

/* The medians of switch_ns over switches on, off and between segments of
 * one state. */
static void summarize_switches(const series *se, st_segcheck_summary *sum) {
    size_t nseg = se->nseg;
    const seg *segs = se->segs;
    uint64_t *ups = malloc(nseg * sizeof *ups), *downs = malloc(nseg * sizeof *downs),
             *same = malloc(nseg * sizeof *same);
    size_t nu = 0, nd = 0, ns = 0;
    for (size_t i = 1; ups && downs && same && i < nseg; i++) {
        uint64_t a = segs[i - 1].v[F_on], b = segs[i].v[F_on], s = segs[i].v[F_switch_ns];
        if (b && !a)
            ups[nu++] = s;
        else if (!b && a)
            downs[nd++] = s;
        else
            same[ns++] = s;
    }
    sum->switch_on_ns = ups ? median_of(ups, nu) : 0;
    sum->switch_off_ns = downs ? median_of(downs, nd) : 0;
    sum->switch_same_ns = same ? median_of(same, ns) : 0;
    free(ups), free(downs), free(same);
}

/* The summary: segments, pattern, blocks, on and off totals, switch times. */
static void summarize(const series *se, st_segcheck_summary *sum) {
    const seg *segs = se->segs;
    sum->segments = se->nseg;
    snprintf(sum->pattern, sizeof sum->pattern, "%s", se->hdr[K_PATTERN]);
    sum->blocks = 0;
    for (size_t i = 0; i < se->nseg; i++) {
        /* Distinct blocks >= 1 with a segment that ended at a boundary
         * (segments are in block order, so a new block is a change). */
        if (segs[i].v[F_block] >= 1 && strcmp(segs[i].end, "exit") &&
            (i == 0 || segs[i - 1].v[F_block] != segs[i].v[F_block] || !strcmp(segs[i - 1].end, "exit")))
            sum->blocks++;
        if (segs[i].v[F_on]) {
            sum->on_samples += segs[i].v[F_alloc_samples];
            sum->on_bytes += segs[i].v[F_bytes];
            sum->on_cpu_ns += segs[i].v[F_cpu_ns];
        } else {
            sum->off_samples += segs[i].v[F_alloc_samples];
            sum->off_bytes += segs[i].v[F_bytes];
            sum->off_cpu_ns += segs[i].v[F_cpu_ns];
        }
    }
    sum->has_switch = se->col_of[F_switch_ns] >= 0;
    if (sum->has_switch)
        summarize_switches(se, sum);
}

/* The checks after the header and segments were read (checker.n may already
 * count some), in the order of docs/FORMATS.md: header, segments, blocks,
 * the record; then the summary. */
static void check_series(checker *c, const series *se, const st_segcheck_opts *o, st_segcheck_summary *sum) {
    findings fd = {{0}, {0}, 0, 0, 0};
    check_header_words(c, se->hdr, o, sum);
    read_unmeasured(c, se, &fd, sum);
    if (check_header_numbers(c, se, o, &fd) != 0)
        return;
    check_segment_lines(c, se, &fd);
    check_complete(c, se, o);
    if (o->stats)
        check_record(c, o->stats, se, &fd, o->objects);
    if (sum)
        summarize(se, sum);
}

/* The reader's state over the lines. */
typedef struct reader {
    checker *c;
    series se;
    int ncols;         /* -1 until the columns line */
    int *field_of;     /* column k -> field (or -1: unknown to the checker) */
    size_t segcap;     /* segments allocated */
    long long trailer; /* -2: no segments line; -1: one without a count */
} reader;

/* What a line tells the reader to do next. */
enum { NEXT_LINE, STOP_READING, GIVE_UP };

/* Splits copy into its lines in place (without the last line end); NULL
 * when out of memory. */
static char **split_lines(char *copy, size_t *nlines) {
    size_t cap = 64;
    char **lines = malloc(cap * sizeof *lines);
    *nlines = 0;
    for (char *p = copy; lines && *p;) {
        char *nl = strchr(p, '\n');
        if (nl)
            *nl = '\0';
        if (*nlines == cap) {
            char **more = realloc(lines, (cap *= 2) * sizeof *lines);
            if (!more) {
                free(lines);
                return NULL;
            }
            lines = more;
        }
        lines[(*nlines)++] = p;
        if (!nl)
            break;
        p = nl + 1;
    }
    return lines;
}

/* The columns line (words w[1..nw)): each required field exactly once. */
static int read_columns(reader *r, char **w, int nw, int over, int no) {
    checker *c = r->c;
    if (r->ncols >= 0) {
        err(c, "line %d: a second columns line", no);
        return NEXT_LINE;
    }
    if (r->se.nseg)
        err(c, "line %d: the columns line comes after segment lines", no);
    if (over) {
        err(c, "line %d: more columns than a segment line can have", no);
        return GIVE_UP;
    }
    int ncols = r->ncols = nw - 1;
    r->field_of = calloc((size_t)(ncols ? ncols : 1), sizeof *r->field_of);
    if (!r->field_of) {
        err(c, "out of memory reading it");
        return GIVE_UP;
    }
    int count[NF] = {0};
    for (int k = 0; k < ncols; k++) {
        r->field_of[k] = -1;
        for (int f = 0; f < NF; f++)
            if (!strcmp(w[k + 1], field_name[f])) {
                r->field_of[k] = f;
                if (!count[f]++)
                    r->se.col_of[f] = k;
            }
        for (int j = 0; j < k; j++)
            if (!strcmp(w[j + 1], w[k + 1]))
                err(c, "line %d: column %s is named twice", no, w[k + 1]);
    }
    for (int f = 0; f < NF_REQ; f++)
        if (count[f] != 1)
            err(c, "line %d: the columns line must name %s exactly once", no, field_name[f]);
    return NEXT_LINE;
}

/* One field v of a segment line, column k, into g. */
static void read_field(reader *r, seg *g, int k, const char *v, int no) {
    checker *c = r->c;
    int f = r->field_of[k];
    if (f == F_kind) {
        if (strcmp(v, "A") && strcmp(v, "B"))
            err(c, "line %d: kind '%s' is not A or B", no, v);
        else
            g->kind = v[0];
        return;
    }
    if (f == F_end) {
        if (strcmp(v, "gc") && strcmp(v, "iter") && strcmp(v, "exit"))
            err(c, "line %d: end '%s' is not one of gc iter exit", no, v);
        snprintf(g->end, sizeof g->end, "%s", strlen(v) < sizeof g->end ? v : "?");
        return;
    }
    uint64_t x;
    if (parse_u63(v, &x) != 0) {
        err(c, "line %d: %s '%s' is not an unsigned decimal integer below 2^63", no, f >= 0 ? field_name[f] : "a field",
            v);
        x = 0;
    }
    if (f >= 0 && r->se.col_of[f] == k)
        g->v[f] = x;
}

/* A segment line: as many fields as the columns line names. */
static int read_segment(reader *r, char **w, int nw, int over, int no) {
    checker *c = r->c;
    if (r->ncols < 0) {
        err(c, "line %d: a segment line before the columns line", no);
        return GIVE_UP;
    }
    if (nw - 1 != r->ncols || over) {
        err(c, "line %d: %d fields, the columns line names %d", no, over ? nw : nw - 1, r->ncols);
        return NEXT_LINE;
    }
    if (r->se.nseg == r->segcap) {
        seg *more = realloc(r->se.segs, (r->segcap = r->segcap ? r->segcap * 2 : 256) * sizeof *r->se.segs);
        if (!more) {
            err(c, "out of memory reading it");
            return GIVE_UP;
        }
        r->se.segs = more;
    }
    seg *g = &r->se.segs[r->se.nseg++];
    memset(g, 0, sizeof *g);
    g->line = no;
    g->kind = '?';
    for (int k = 0; k < r->ncols; k++)
        read_field(r, g, k, w[k + 1], no);
    return NEXT_LINE;
}

/* A header line: a known key, once, before the columns line, one word (the
 * unmeasured list: the words up to the line's end). */
static int read_header_line(reader *r, char **w, int nw, int no) {
    checker *c = r->c;
    if (r->ncols >= 0)
        err(c, "line %d: header line '%s' after the columns line", no, w[0]);
    int k = -1;
    for (int j = 0; j < NKEYS; j++)
        if (!strcmp(w[0], header_keys[j]))
            k = j;
    if (k < 0) {
        err(c, "line %d: '%s' is not a header key of docs/FORMATS.md (nor columns, seg, segments)", no, w[0]);
        return NEXT_LINE;
    }
    if (r->se.hdr[k]) {
        err(c, "line %d: header key %s twice", no, w[0]);
        return NEXT_LINE;
    }
    if (nw < 2 || (k != K_UNMEASURED && nw != 2)) {
        err(c, "line %d: header key %s missing or not one word", no, w[0]);
        return NEXT_LINE;
    }
    for (int j = 2; j < nw; j++)
        w[j][-1] = ' ';
    r->se.hdr[k] = w[1];
    return NEXT_LINE;
}

/* Line number no (after the first): its form, then by its first word. */
static int read_line(reader *r, char *line, int no) {
    checker *c = r->c;
    if (r->trailer != -2) {
        err(c, "line %d: text after the 'segments' line", no);
        return STOP_READING;
    }
    if (strchr(line, '\r') || strchr(line, '\t')) {
        err(c, "line %d: a carriage return or tab (LF line ends, fields separated by one space)", no);
        return NEXT_LINE;
    }
    char *w[NF + 8];
    int over, nw = split(line, w, NF + 8, &over), empty = 0;
    for (int k = 0; k < nw; k++)
        empty |= !*w[k];
    if (empty) {
        err(c, "line %d: fields must be separated by exactly one space", no);
        return NEXT_LINE;
    }
    if (!strcmp(w[0], "columns"))
        return read_columns(r, w, nw, over, no);
    if (!strcmp(w[0], "seg"))
        return read_segment(r, w, nw, over, no);
    if (!strcmp(w[0], "segments")) {
        uint64_t x;
        if (nw != 2 || parse_u63(w[1], &x) != 0) {
            err(c, "line %d: the 'segments' line has no count", no);
            r->trailer = -1;
        } else {
            r->trailer = (long long)x;
        }
        return NEXT_LINE;
    }
    return read_header_line(r, w, nw, no);
}

/* Every line after the first; then the trailer's count, the columns line
 * and the required header keys.  0 when the series can be checked. */
static int read_series(reader *r, char **lines, size_t nlines) {
    checker *c = r->c;
    for (size_t li = 1; li < nlines; li++) {
        int next = read_line(r, lines[li], (int)li + 1);
        if (next == GIVE_UP)
            return -1;
        if (next == STOP_READING)
            break;
    }
    if (r->trailer == -2)
        err(c, "no 'segments N' line at the end");
    else if (r->trailer >= 0 && (size_t)r->trailer != r->se.nseg)
        err(c, "'segments %lld' but %zu segment lines", r->trailer, r->se.nseg);
    if (r->ncols < 0) {
        err(c, "no columns line");
        return -1;
    }
    for (int k = 0; k < NKEYS_REQ; k++)
        if (!r->se.hdr[k])
            err(c, "header key %s missing or not one word", header_keys[k]);
    return c->n ? -1 : 0;
}

size_t st_segcheck(const char *text, size_t len, const st_segcheck_opts *opts, st_segcheck_report report, void *ctx,
                   st_segcheck_summary *sum) {
    checker c = {report, ctx, 0};
    st_segcheck_opts none = {.alloc_period = -1};
    const st_segcheck_opts *o = opts ? opts : &none;
    if (sum)
        memset(sum, 0, sizeof *sum);
    if (memchr(text, '\0', len)) {
        err(&c, "it holds a NUL byte: not a text file");
        return c.n;
    }
    if (!len || text[len - 1] != '\n')
        err(&c, "the file does not end with a line end");
    char *copy = strndup(text, len);
    if (!copy) {
        err(&c, "out of memory reading it");
        return c.n;
    }
    size_t nlines;
    char **lines = split_lines(copy, &nlines);
    reader r = {.c = &c, .ncols = -1, .trailer = -2};
    for (int f = 0; f < NF; f++)
        r.se.col_of[f] = -1;
    if (!lines)
        err(&c, "out of memory reading it");
    else if (!nlines || strcmp(lines[0], "sgc-segments 1"))
        err(&c, "the first line is not 'sgc-segments 1'");
    else if (read_series(&r, lines, nlines) == 0)
        check_series(&c, &r.se, o, sum);
    free(r.se.segs);
    free(r.field_of);
    free(lines);
    free(copy);
    return c.n;
}
