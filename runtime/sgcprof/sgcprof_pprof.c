/* sgcprof_pprof.c - the pprof export: profile.proto through protobuf-c,
 * gzip through zlib (invariants: sgcprof_pprof.h). */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "../../contracts/ct_alloc.h"
#include "../../contracts/ct_out.h"
#include "profile.pb-c.h"
#include "sgcprof_names.h"
#include "sgcprof_pprof.h"
#include "sgcprof_io.h"
#include "sgcprof_report.h"
#include "sgc_modes.h"

typedef Perftools__Profiles__Profile pb_profile;
typedef Perftools__Profiles__ValueType pb_vtype;
typedef Perftools__Profiles__Sample pb_sample;
typedef Perftools__Profiles__Label pb_label;
typedef Perftools__Profiles__Location pb_location;
typedef Perftools__Profiles__Line pb_line;
typedef Perftools__Profiles__Function pb_function;

/* ---- The string table: index 0 is "", each string once ------------------ */

typedef struct strtab {
    char **s; /* by index */
    size_t n, cap;
    int64_t *slot; /* open addressing: index + 1, 0 = empty */
    size_t nslot;  /* power of two */
} strtab;

static uint64_t hash(const char *s) {
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++)
        h = (h ^ (uint8_t)*s) * 1099511628211ull;
    return h;
}

/* Index of s (copied on first use). */
static int64_t str_id(strtab *t, const char *s) {
    if ((t->n + 1) * 2 > t->nslot) {
        size_t ns = t->nslot ? t->nslot * 2 : 1024;
        int64_t *sl = ct_xcalloc(ns, sizeof *sl);
        for (size_t i = 0; i < t->n; i++) {
            size_t j = hash(t->s[i]) & (ns - 1);
            while (sl[j])
                j = (j + 1) & (ns - 1);
            sl[j] = (int64_t)i + 1;
        }
        free(t->slot);
        t->slot = sl;
        t->nslot = ns;
    }
    size_t j = hash(s) & (t->nslot - 1);
    while (t->slot[j]) {
        if (!strcmp(t->s[t->slot[j] - 1], s))
            return t->slot[j] - 1;
        j = (j + 1) & (t->nslot - 1);
    }
    if (t->n == t->cap) {
        t->cap = t->cap ? t->cap * 2 : 256;
        t->s = ct_xrealloc(t->s, t->cap * sizeof *t->s);
    }
    t->s[t->n] = ct_xstrdup(s);
    t->slot[j] = (int64_t)t->n + 1;
    return (int64_t)t->n++;
}

/* ---- Aggregated samples ------------------------------------------------ */

enum { V_ASAMPLES, V_AOBJECTS, V_ASPACE, V_SURVIVED, V_TSAMPLES, V_TIME, NVALUES };

typedef struct agg_key {
    uint64_t size; /* alloc: footprint */
    uint32_t node;
    uint32_t tid;  /* alloc: type id */
    uint8_t time;  /* 1 = a time sample */
    uint8_t phase; /* time: enum sgc_phase */
    uint8_t large; /* alloc */
    uint8_t survival;
} agg_key;

typedef struct agg_sample {
    agg_key k;
    uint64_t asamples, aspace, survived, tsamples;
    double aobjects;
} agg_sample;

typedef struct aggtab {
    agg_sample *v;
    size_t n, cap;
    uint32_t *slot; /* index + 1 */
    size_t nslot;
} aggtab;

static uint64_t key_hash(const agg_key *k) {
    uint64_t h = k->size * 0x9e3779b97f4a7c15ull;
    h ^= ((uint64_t)k->node << 32 | k->tid) * 0xc2b2ae3d27d4eb4full;
    h ^= ((uint64_t)k->time << 24 | (uint64_t)k->phase << 16 | (uint64_t)k->large << 8 | k->survival) *
         0x165667b19e3779f9ull;
    return h ^ (h >> 29);
}

static int key_eq(const agg_key *a, const agg_key *b) {
    return a->size == b->size && a->node == b->node && a->tid == b->tid && a->time == b->time && a->phase == b->phase &&
           a->large == b->large && a->survival == b->survival;
}

static agg_sample *agg_get(aggtab *t, const agg_key *k) {
    if ((t->n + 1) * 2 > t->nslot) {
        size_t ns = t->nslot ? t->nslot * 2 : 4096;
        uint32_t *sl = ct_xcalloc(ns, sizeof *sl);
        for (size_t i = 0; i < t->n; i++) {
            size_t j = key_hash(&t->v[i].k) & (ns - 1);
            while (sl[j])
                j = (j + 1) & (ns - 1);
            sl[j] = (uint32_t)i + 1;
        }
        free(t->slot);
        t->slot = sl;
        t->nslot = ns;
    }
    size_t j = key_hash(k) & (t->nslot - 1);
    while (t->slot[j]) {
        if (key_eq(&t->v[t->slot[j] - 1].k, k))
            return &t->v[t->slot[j] - 1];
        j = (j + 1) & (t->nslot - 1);
    }
    if (t->n == t->cap) {
        t->cap = t->cap ? t->cap * 2 : 1024;
        t->v = ct_xrealloc(t->v, t->cap * sizeof *t->v);
    }
    agg_sample *a = &t->v[t->n];
    memset(a, 0, sizeof *a);
    a->k = *k;
    t->slot[j] = (uint32_t)++t->n;
    return a;
}

/* ---- The profile --------------------------------------------------------- */

static const char *const phase_label[3] = {"mutator", "minor GC", "major GC"};
static const char *const survival_label[3] = {"died", "survived", "unknown"};

/* Gzips data into path: through a temporary renamed over it at the end
 * (contracts/ct_out.h), so a failure leaves path as it was. */
static int write_gzip(const char *path, const uint8_t *data, size_t n) {
    ct_out o;
    char err[4200];
    if (ct_out_begin(&o, path, err, sizeof err) != 0) {
        fprintf(stderr, "sgcprof: %s\n", err);
        return -1;
    }
    gzFile g = gzdopen(o.fd, "wb");
    if (!g) {
        fprintf(stderr, "sgcprof: cannot write %s: %s\n", path, errno ? strerror(errno) : "out of memory");
        ct_out_abort(&o);
        return -1;
    }
    int ok = 1;
    size_t off = 0;
    while (ok && off < n) {
        unsigned chunk = n - off > (1u << 30) ? (1u << 30) : (unsigned)(n - off);
        if (gzwrite(g, data + off, chunk) != (int)chunk)
            ok = 0;
        off += chunk;
    }
    int e = errno;
    if (gzclose(g) != Z_OK) { /* closes o.fd */
        ok = 0;
        e = errno;
    }
    o.fd = -1;
    if (!ok) {
        fprintf(stderr, "sgcprof: writing %s failed: %s; it was left as it was\n", path,
                e ? strerror(e) : "compression error");
        ct_out_abort(&o);
        return -1;
    }
    if (ct_out_commit(&o, err, sizeof err) != 0) {
        fprintf(stderr, "sgcprof: %s\n", err);
        return -1;
    }
    return 0;
}

/* An export being built: the reader, the string table, the aggregated
 * samples, and every protobuf message with the arrays it points into, kept
 * until the profile is packed.  The strings are interned in the order the
 * steps below take them, so the string table is the same from run to run. */
typedef struct pprof_build {
    const sgc_pr_reader *r;
    strtab st;
    aggtab at;
    uint64_t ns; /* nanoseconds a time sample stands for */
    /* Functions: id = string id for a frame's function, then the three
     * pseudo-frames; used[id] once a stack has it. */
    uint32_t f_minor, f_major, f_none, nf;
    uint8_t *used;
    uint32_t depth; /* the deepest stack, pseudo-frames included */
    pb_sample *samples, **sample_ptrs;
    int64_t *values;
    pb_label *labels, **label_ptrs;
    uint64_t **locs, *stack;
    int64_t k_type, k_object, k_surv, k_bytes, k_phase, u_bytes; /* label keys and unit */
    size_t nused;                                                /* functions (and locations) used */
    pb_function *funcs, **func_ptrs;
    pb_location *locations, **loc_ptrs;
    pb_line *lines, **line_ptrs;
    Perftools__Profiles__Mapping mapping, *mapping_ptr;
    pb_vtype types[NVALUES], *type_ptrs[NVALUES], period_type;
    char c[4][512]; /* the comments' text */
    int64_t comments[4];
} pprof_build;

/* The samples aggregated by stack, type, size, object, survival (allocation)
 * or stack and phase (time). */
static void aggregate(pprof_build *b) {
    const sgc_pr_reader *r = b->r;
    for (size_t i = 0; i < r->nallocs; i++) {
        const sgc_pr_alloc *a = &r->allocs[i];
        agg_key k = {a->size, a->node, a->tid, 0, 0, (uint8_t)a->large, (uint8_t)a->survival};
        agg_sample *s = agg_get(&b->at, &k);
        uint64_t bytes = (uint64_t)a->points * sgc_pr_period_at(r, a->ts);
        s->asamples++;
        s->aspace += bytes;
        if (a->survival == SGC_SURVIVED)
            s->survived += bytes;
        s->aobjects += a->size ? (double)bytes / (double)a->size : 0.0;
    }
    for (size_t i = 0; i < r->ntimes; i++) {
        agg_key k = {0, r->times[i].node, 0, 1, (uint8_t)r->times[i].phase, 0, 0};
        agg_get(&b->at, &k)->tsamples++;
    }
    b->ns = sgcprof_ns_per_time_sample(r);
}

/* Sample i's labels: its phase (time), or its type, object kind, survival
 * and size (allocation). */
static void sample_labels(pprof_build *b, size_t i, const agg_sample *a, pb_sample *s) {
    pb_label *l = &b->labels[i * 4];
    pb_label **lp = &b->label_ptrs[i * 4];
    size_t nl = 0;
    for (int j = 0; j < 4; j++)
        perftools__profiles__label__init(&l[j]);
    if (a->k.time) {
        l[nl].key = b->k_phase;
        l[nl++].str = str_id(&b->st, phase_label[a->k.phase]);
    } else {
        char *tn = sgcprof_escape(sgc_pr_type_name(b->r, a->k.tid), 0);
        l[nl].key = b->k_type;
        l[nl++].str = str_id(&b->st, tn);
        free(tn);
        l[nl].key = b->k_object;
        l[nl++].str = str_id(&b->st, a->k.large ? "large" : "small");
        l[nl].key = b->k_surv;
        l[nl++].str = str_id(&b->st, survival_label[a->k.survival]);
        l[nl].key = b->k_bytes;
        l[nl].num = (int64_t)a->k.size;
        l[nl++].num_unit = b->u_bytes;
    }
    for (size_t j = 0; j < nl; j++)
        lp[j] = &l[j];
    s->label = lp;
    s->n_label = nl;
}

/* Aggregated sample i as a pprof sample: its stack (leaf first, the phase's
 * pseudo-frame on top, "(no frame)" for the empty stack), values, labels. */
static void build_sample(pprof_build *b, size_t i) {
    const sgc_pr_reader *r = b->r;
    const agg_sample *a = &b->at.v[i];
    pb_sample *s = &b->samples[i];
    perftools__profiles__sample__init(s);
    b->sample_ptrs[i] = s;
    uint64_t *stack = b->stack;
    size_t d = 0;
    if (a->k.time && a->k.phase)
        stack[d++] = a->k.phase == 1 ? b->f_minor : b->f_major;
    if (!a->k.node)
        stack[d++] = b->f_none;
    for (uint32_t n = a->k.node; n; n = r->node_parent[n])
        stack[d++] = r->node_func[n];
    for (size_t j = 0; j < d; j++)
        b->used[stack[j]] = 1;
    b->locs[i] = ct_xcalloc(d, sizeof **b->locs);
    memcpy(b->locs[i], stack, d * sizeof *stack);
    s->location_id = b->locs[i];
    s->n_location_id = d;
    int64_t *v = &b->values[i * NVALUES];
    v[V_ASAMPLES] = (int64_t)a->asamples;
    v[V_AOBJECTS] = (int64_t)llround(a->aobjects);
    v[V_ASPACE] = (int64_t)a->aspace;
    v[V_SURVIVED] = (int64_t)a->survived;
    v[V_TSAMPLES] = (int64_t)a->tsamples;
    v[V_TIME] = (int64_t)(a->tsamples * b->ns);
    s->value = v;
    s->n_value = NVALUES;
    sample_labels(b, i, a, s);
}

/* Every aggregated sample, with the label keys interned first. */
static void build_samples(pprof_build *b) {
    const sgc_pr_reader *r = b->r;
    size_t n = b->at.n;
    b->f_minor = r->nstrings + 1, b->f_major = r->nstrings + 2, b->f_none = r->nstrings + 3;
    b->nf = r->nstrings + 4;
    b->used = ct_xcalloc(b->nf, 1);
    b->depth = sgcprof_max_depth(r) + 2;
    b->samples = ct_xcalloc(n, sizeof *b->samples);
    b->sample_ptrs = ct_xcalloc(n, sizeof *b->sample_ptrs);
    b->values = ct_xcalloc(n * NVALUES, sizeof *b->values);
    b->labels = ct_xcalloc(n * 4, sizeof *b->labels);
    b->label_ptrs = ct_xcalloc(n * 4, sizeof *b->label_ptrs);
    b->locs = ct_xcalloc(n, sizeof *b->locs);
    b->stack = ct_xcalloc(b->depth, sizeof *b->stack);
    b->k_type = str_id(&b->st, "type"), b->k_object = str_id(&b->st, "object"), b->k_surv = str_id(&b->st, "survival");
    b->k_bytes = str_id(&b->st, "bytes"), b->k_phase = str_id(&b->st, "gc_phase");
    b->u_bytes = str_id(&b->st, "bytes");
    for (size_t i = 0; i < n; i++)
        build_sample(b, i);
}

/* The name of function f: a pseudo-frame's, or its string escaped. */
static int64_t function_name(pprof_build *b, uint32_t f) {
    if (f == b->f_minor)
        return str_id(&b->st, "[minor GC]");
    if (f == b->f_major)
        return str_id(&b->st, "[major GC]");
    if (f == b->f_none)
        return str_id(&b->st, "(no frame)");
    char *e = sgcprof_escape(sgc_pr_string(b->r, f), 0);
    int64_t id = str_id(&b->st, e);
    free(e);
    return id;
}

/* One function, line and location for every function a stack used, and the
 * one mapping they are in. */
static void build_functions(pprof_build *b, const char *source) {
    size_t nused = 0;
    for (uint32_t f = 1; f < b->nf; f++)
        nused += b->used[f];
    b->nused = nused;
    b->funcs = ct_xcalloc(nused, sizeof *b->funcs);
    b->func_ptrs = ct_xcalloc(nused, sizeof *b->func_ptrs);
    b->locations = ct_xcalloc(nused, sizeof *b->locations);
    b->loc_ptrs = ct_xcalloc(nused, sizeof *b->loc_ptrs);
    b->lines = ct_xcalloc(nused, sizeof *b->lines);
    b->line_ptrs = ct_xcalloc(nused, sizeof *b->line_ptrs);
    /* One mapping that says the functions are known, so pprof neither looks
     * for a binary to symbolize nor complains that it has none. */
    b->mapping_ptr = &b->mapping;
    perftools__profiles__mapping__init(&b->mapping);
    b->mapping.id = 1;
    b->mapping.has_functions = 1;
    char *fname = sgcprof_escape(source, 0);
    b->mapping.filename = str_id(&b->st, fname);
    free(fname);
    size_t k = 0;
    for (uint32_t f = 1; f < b->nf; f++) {
        if (!b->used[f])
            continue;
        pb_function *fn = &b->funcs[k];
        perftools__profiles__function__init(fn);
        fn->id = f;
        fn->name = function_name(b, f);
        /* system_name stays unset: pprof then takes name as already demangled
         * and shows it as it is (it would otherwise "simplify" it, e.g.
         * "<module>" to "<unknown>"). */
        b->func_ptrs[k] = fn;
        pb_line *ln = &b->lines[k];
        perftools__profiles__line__init(ln);
        ln->function_id = f;
        b->line_ptrs[k] = ln;
        pb_location *lo = &b->locations[k];
        perftools__profiles__location__init(lo);
        lo->id = f;
        lo->mapping_id = 1;
        lo->line = &b->line_ptrs[k];
        lo->n_line = 1;
        b->loc_ptrs[k] = lo;
        k++;
    }
}

/* The profile's sample types, its duration, and its period: allocation
 * space (the last period in force) unless it has time samples only. */
static void build_types_and_period(pprof_build *b, pb_profile *p, uint64_t *aperiod, uint32_t *amode) {
    const sgc_pr_reader *r = b->r;
    static const char *const vt[NVALUES][2] = {{"alloc_samples", "count"}, {"alloc_objects", "count"},
                                               {"alloc_space", "bytes"},   {"survived_space", "bytes"},
                                               {"time_samples", "count"},  {"time", "nanoseconds"}};
    for (int i = 0; i < NVALUES; i++) {
        perftools__profiles__value_type__init(&b->types[i]);
        b->types[i].type = str_id(&b->st, vt[i][0]);
        b->types[i].unit = str_id(&b->st, vt[i][1]);
        b->type_ptrs[i] = &b->types[i];
    }
    perftools__profiles__profile__init(p);
    p->sample_type = b->type_ptrs;
    p->n_sample_type = NVALUES;
    p->sample = b->sample_ptrs;
    p->n_sample = b->at.n;
    p->mapping = &b->mapping_ptr;
    p->n_mapping = 1;
    p->location = b->loc_ptrs;
    p->n_location = b->nused;
    p->function = b->func_ptrs;
    p->n_function = b->nused;
    p->duration_nanos = (int64_t)(r->end_ts - r->base_ts);
    perftools__profiles__value_type__init(&b->period_type);
    *aperiod = 0;
    *amode = 0;
    for (size_t i = 0; i < r->naconfs; i++)
        if (r->aconfs[i].value) {
            *aperiod = r->aconfs[i].value;
            *amode = r->aconfs[i].mode;
        }
    if (r->nallocs || !r->ntimes) {
        b->period_type.type = str_id(&b->st, "space");
        b->period_type.unit = str_id(&b->st, "bytes");
        p->period = (int64_t)*aperiod;
        p->default_sample_type = str_id(&b->st, "alloc_space");
    } else {
        b->period_type.type = str_id(&b->st, "time");
        b->period_type.unit = str_id(&b->st, "nanoseconds");
        p->period = (int64_t)b->ns;
        p->default_sample_type = str_id(&b->st, "time");
    }
    p->period_type = &b->period_type;
}

/* The comments: the source and format, the allocation period, the time
 * samples, an incomplete profile's end; then the string table. */
static void build_comments(pprof_build *b, pb_profile *p, const char *source, uint64_t aperiod, uint32_t amode) {
    const sgc_pr_reader *r = b->r;
    char(*c)[512] = b->c;
    int nc = 0;
    char *src = sgcprof_escape(source, 0);
    snprintf(c[nc++], sizeof c[0], "freecheck profile %.200s (format version %u), exported by sgcprof", src,
             r->version);
    free(src);
    if (aperiod)
        snprintf(c[nc++], sizeof c[0],
                 "allocation sampling: period %" PRIu64 " bytes (%s, the last of %zu settings); estimated "
                 "bytes = sample points x the period in force",
                 aperiod, sgc_alloc_mode_name((int)amode), r->naconfs);
    if (b->ns)
        snprintf(c[nc++], sizeof c[0],
                 "time sampling: %zu samples written, %" PRIu64 " dropped; each stands for %" PRIu64
                 " ns (1 / the achieved rate)",
                 r->ntimes, r->dropped, b->ns);
    if (!r->ended)
        snprintf(c[nc++], sizeof c[0], "incomplete profile: read up to byte offset %" PRIu64 " (%s)", r->good_end,
                 r->err);
    for (int i = 0; i < nc; i++)
        b->comments[i] = str_id(&b->st, c[i]);
    p->comment = b->comments;
    p->n_comment = (size_t)nc;
    p->string_table = b->st.s;
    p->n_string_table = b->st.n;
}

/* Packs p and writes it gzipped to path: 0, or -1 with the message printed. */
static int pack_and_write(const pb_profile *p, const char *path) {
    size_t packed = perftools__profiles__profile__get_packed_size(p);
    uint8_t *buf = ct_xcalloc(packed, 1);
    size_t got = perftools__profiles__profile__pack(p, buf);
    int rc = got == packed ? write_gzip(path, buf, packed) : -1;
    if (got != packed)
        fprintf(stderr, "sgcprof: protobuf encoding gave %zu bytes, %zu expected\n", got, packed);
    free(buf);
    return rc;
}

static void free_build(pprof_build *b) {
    for (size_t i = 0; i < b->at.n; i++)
        free(b->locs[i]);
    free(b->locs);
    free(b->stack);
    free(b->samples);
    free(b->sample_ptrs);
    free(b->values);
    free(b->labels);
    free(b->label_ptrs);
    free(b->funcs);
    free(b->func_ptrs);
    free(b->locations);
    free(b->loc_ptrs);
    free(b->lines);
    free(b->line_ptrs);
    free(b->used);
    for (size_t i = 0; i < b->st.n; i++)
        free(b->st.s[i]);
    free(b->st.s);
    free(b->st.slot);
    free(b->at.v);
    free(b->at.slot);
}

int sgcprof_pprof(const sgc_pr_reader *r, const char *path, const char *source) {
    pprof_build b;
    memset(&b, 0, sizeof b);
    b.r = r;
    str_id(&b.st, "");
    aggregate(&b);
    build_samples(&b);
    build_functions(&b, source);
    pb_profile p;
    uint64_t aperiod;
    uint32_t amode;
    build_types_and_period(&b, &p, &aperiod, &amode);
    build_comments(&b, &p, source, aperiod, amode);
    int rc = pack_and_write(&p, path);
    free_build(&b);
    return rc;
}
