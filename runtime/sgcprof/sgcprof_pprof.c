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

int sgcprof_pprof(const sgc_pr_reader *r, const char *path, const char *source) {
    strtab st = {0};
    str_id(&st, "");

    /* Aggregate the samples. */
    aggtab at = {0};
    for (size_t i = 0; i < r->nallocs; i++) {
        const sgc_pr_alloc *a = &r->allocs[i];
        agg_key k = {a->size, a->node, a->tid, 0, 0, (uint8_t)a->large, (uint8_t)a->survival};
        agg_sample *s = agg_get(&at, &k);
        uint64_t bytes = (uint64_t)a->points * sgc_pr_period_at(r, a->ts);
        s->asamples++;
        s->aspace += bytes;
        if (a->survival == SGC_SURVIVED)
            s->survived += bytes;
        s->aobjects += a->size ? (double)bytes / (double)a->size : 0.0;
    }
    for (size_t i = 0; i < r->ntimes; i++) {
        agg_key k = {0, r->times[i].node, 0, 1, (uint8_t)r->times[i].phase, 0, 0};
        agg_get(&at, &k)->tsamples++;
    }
    uint64_t ns = sgcprof_ns_per_time_sample(r);

    /* Functions and locations: id = string id for a frame's function, then
     * the three pseudo-frames. */
    uint32_t f_minor = r->nstrings + 1, f_major = r->nstrings + 2, f_none = r->nstrings + 3;
    uint32_t nf = r->nstrings + 4;
    uint8_t *used = ct_xcalloc(nf, 1);
    uint32_t depth = sgcprof_max_depth(r) + 2;

    pb_sample *samples = ct_xcalloc(at.n, sizeof *samples);
    pb_sample **sample_ptrs = ct_xcalloc(at.n, sizeof *sample_ptrs);
    int64_t *values = ct_xcalloc(at.n * NVALUES, sizeof *values);
    pb_label *labels = ct_xcalloc(at.n * 4, sizeof *labels);
    pb_label **label_ptrs = ct_xcalloc(at.n * 4, sizeof *label_ptrs);
    uint64_t **locs = ct_xcalloc(at.n, sizeof *locs);
    uint64_t *stack = ct_xcalloc(depth, sizeof *stack);
    int64_t k_type = str_id(&st, "type"), k_object = str_id(&st, "object"), k_surv = str_id(&st, "survival");
    int64_t k_bytes = str_id(&st, "bytes"), k_phase = str_id(&st, "gc_phase");
    int64_t u_bytes = str_id(&st, "bytes");
    for (size_t i = 0; i < at.n; i++) {
        const agg_sample *a = &at.v[i];
        pb_sample *s = &samples[i];
        perftools__profiles__sample__init(s);
        sample_ptrs[i] = s;
        /* Stack, leaf first. */
        size_t d = 0;
        if (a->k.time && a->k.phase)
            stack[d++] = a->k.phase == 1 ? f_minor : f_major;
        if (!a->k.node)
            stack[d++] = f_none;
        for (uint32_t n = a->k.node; n; n = r->node_parent[n])
            stack[d++] = r->node_func[n];
        for (size_t j = 0; j < d; j++)
            used[stack[j]] = 1;
        locs[i] = ct_xcalloc(d, sizeof **locs);
        memcpy(locs[i], stack, d * sizeof *stack);
        s->location_id = locs[i];
        s->n_location_id = d;
        int64_t *v = &values[i * NVALUES];
        v[V_ASAMPLES] = (int64_t)a->asamples;
        v[V_AOBJECTS] = (int64_t)llround(a->aobjects);
        v[V_ASPACE] = (int64_t)a->aspace;
        v[V_SURVIVED] = (int64_t)a->survived;
        v[V_TSAMPLES] = (int64_t)a->tsamples;
        v[V_TIME] = (int64_t)(a->tsamples * ns);
        s->value = v;
        s->n_value = NVALUES;
        pb_label *l = &labels[i * 4];
        pb_label **lp = &label_ptrs[i * 4];
        size_t nl = 0;
        for (int j = 0; j < 4; j++)
            perftools__profiles__label__init(&l[j]);
        if (a->k.time) {
            l[nl].key = k_phase;
            l[nl++].str = str_id(&st, phase_label[a->k.phase]);
        } else {
            char *tn = sgcprof_escape(sgc_pr_type_name(r, a->k.tid), 0);
            l[nl].key = k_type;
            l[nl++].str = str_id(&st, tn);
            free(tn);
            l[nl].key = k_object;
            l[nl++].str = str_id(&st, a->k.large ? "large" : "small");
            l[nl].key = k_surv;
            l[nl++].str = str_id(&st, survival_label[a->k.survival]);
            l[nl].key = k_bytes;
            l[nl].num = (int64_t)a->k.size;
            l[nl++].num_unit = u_bytes;
        }
        for (size_t j = 0; j < nl; j++)
            lp[j] = &l[j];
        s->label = lp;
        s->n_label = nl;
    }

    size_t nused = 0;
    for (uint32_t f = 1; f < nf; f++)
        nused += used[f];
    pb_function *funcs = ct_xcalloc(nused, sizeof *funcs);
    pb_function **func_ptrs = ct_xcalloc(nused, sizeof *func_ptrs);
    pb_location *locations = ct_xcalloc(nused, sizeof *locations);
    pb_location **loc_ptrs = ct_xcalloc(nused, sizeof *loc_ptrs);
    pb_line *lines = ct_xcalloc(nused, sizeof *lines);
    pb_line **line_ptrs = ct_xcalloc(nused, sizeof *line_ptrs);
    /* One mapping that says the functions are known, so pprof neither looks
     * for a binary to symbolize nor complains that it has none. */
    Perftools__Profiles__Mapping mapping, *mapping_ptr = &mapping;
    perftools__profiles__mapping__init(&mapping);
    mapping.id = 1;
    mapping.has_functions = 1;
    char *fname = sgcprof_escape(source, 0);
    mapping.filename = str_id(&st, fname);
    free(fname);
    size_t k = 0;
    for (uint32_t f = 1; f < nf; f++) {
        if (!used[f])
            continue;
        pb_function *fn = &funcs[k];
        perftools__profiles__function__init(fn);
        fn->id = f;
        if (f == f_minor)
            fn->name = str_id(&st, "[minor GC]");
        else if (f == f_major)
            fn->name = str_id(&st, "[major GC]");
        else if (f == f_none)
            fn->name = str_id(&st, "(no frame)");
        else {
            char *e = sgcprof_escape(sgc_pr_string(r, f), 0);
            fn->name = str_id(&st, e);
            free(e);
        }
        /* system_name stays unset: pprof then takes name as already demangled
         * and shows it as it is (it would otherwise "simplify" it, e.g.
         * "<module>" to "<unknown>"). */
        func_ptrs[k] = fn;
        pb_line *ln = &lines[k];
        perftools__profiles__line__init(ln);
        ln->function_id = f;
        line_ptrs[k] = ln;
        pb_location *lo = &locations[k];
        perftools__profiles__location__init(lo);
        lo->id = f;
        lo->mapping_id = 1;
        lo->line = &line_ptrs[k];
        lo->n_line = 1;
        loc_ptrs[k] = lo;
        k++;
    }

    /* Sample types, period, comments. */
    static const char *const vt[NVALUES][2] = {{"alloc_samples", "count"}, {"alloc_objects", "count"},
                                               {"alloc_space", "bytes"},   {"survived_space", "bytes"},
                                               {"time_samples", "count"},  {"time", "nanoseconds"}};
    pb_vtype types[NVALUES], *type_ptrs[NVALUES];
    for (int i = 0; i < NVALUES; i++) {
        perftools__profiles__value_type__init(&types[i]);
        types[i].type = str_id(&st, vt[i][0]);
        types[i].unit = str_id(&st, vt[i][1]);
        type_ptrs[i] = &types[i];
    }
    pb_profile p;
    perftools__profiles__profile__init(&p);
    p.sample_type = type_ptrs;
    p.n_sample_type = NVALUES;
    p.sample = sample_ptrs;
    p.n_sample = at.n;
    p.mapping = &mapping_ptr;
    p.n_mapping = 1;
    p.location = loc_ptrs;
    p.n_location = nused;
    p.function = func_ptrs;
    p.n_function = nused;
    p.duration_nanos = (int64_t)(r->end_ts - r->base_ts);
    pb_vtype period_type;
    perftools__profiles__value_type__init(&period_type);
    uint64_t aperiod = 0;
    uint32_t amode = 0;
    for (size_t i = 0; i < r->naconfs; i++)
        if (r->aconfs[i].value) {
            aperiod = r->aconfs[i].value;
            amode = r->aconfs[i].mode;
        }
    if (r->nallocs || !r->ntimes) {
        period_type.type = str_id(&st, "space");
        period_type.unit = str_id(&st, "bytes");
        p.period = (int64_t)aperiod;
        p.default_sample_type = str_id(&st, "alloc_space");
    } else {
        period_type.type = str_id(&st, "time");
        period_type.unit = str_id(&st, "nanoseconds");
        p.period = (int64_t)ns;
        p.default_sample_type = str_id(&st, "time");
    }
    p.period_type = &period_type;
    char c[4][512];
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
    if (ns)
        snprintf(c[nc++], sizeof c[0],
                 "time sampling: %zu samples written, %" PRIu64 " dropped; each stands for %" PRIu64
                 " ns (1 / the achieved rate)",
                 r->ntimes, r->dropped, ns);
    if (!r->ended)
        snprintf(c[nc++], sizeof c[0], "incomplete profile: read up to byte offset %" PRIu64 " (%s)", r->good_end,
                 r->err);
    int64_t comments[4];
    for (int i = 0; i < nc; i++)
        comments[i] = str_id(&st, c[i]);
    p.comment = comments;
    p.n_comment = (size_t)nc;
    p.string_table = st.s;
    p.n_string_table = st.n;

    size_t packed = perftools__profiles__profile__get_packed_size(&p);
    uint8_t *buf = ct_xcalloc(packed, 1);
    size_t got = perftools__profiles__profile__pack(&p, buf);
    int rc = got == packed ? write_gzip(path, buf, packed) : -1;
    if (got != packed)
        fprintf(stderr, "sgcprof: protobuf encoding gave %zu bytes, %zu expected\n", got, packed);

    free(buf);
    for (size_t i = 0; i < at.n; i++)
        free(locs[i]);
    free(locs);
    free(stack);
    free(samples);
    free(sample_ptrs);
    free(values);
    free(labels);
    free(label_ptrs);
    free(funcs);
    free(func_ptrs);
    free(locations);
    free(loc_ptrs);
    free(lines);
    free(line_ptrs);
    free(used);
    for (size_t i = 0; i < st.n; i++)
        free(st.s[i]);
    free(st.s);
    free(st.slot);
    free(at.v);
    free(at.slot);
    return rc;
}
