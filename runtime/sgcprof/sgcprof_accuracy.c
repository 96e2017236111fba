/* sgcprof_accuracy.c - sampled allocation profiles against the exact one
 * (invariants: sgcprof_accuracy.h). */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../contracts/ct_alloc.h"
#include "sgc_profread.h"
#include "sgcprof_accuracy.h"
#include "sgcprof_io.h"
#include "sgc_modes.h"

#define TRUTH_PERIOD 8 /* the period of an exact profile */
#define MAX_TOP 1000

/* ---- Names and calling contexts, shared by every profile read ----------- */

/* Open-addressing hash tables; ids start at 1 (names) and 1 (contexts;
 * context 0 is the empty stack). */
static char **names;         /* names[id] */
static uint32_t nnames = 1;  /* next id */
static uint32_t *name_slots; /* hash slots: 0 = empty, else id */
static uint32_t name_cap;    /* slots, a power of two */

static uint32_t *ctx_parent, *ctx_name; /* by context id */
static uint32_t nctx = 1;               /* next id (0 = empty stack) */
static uint32_t *ctx_slots;
static uint32_t ctx_cap;

static uint64_t hash_str(const char *s) {
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (uint8_t)*s) * 1099511628211ull;
    return h;
}

static uint64_t hash_pair(uint32_t a, uint32_t b) {
    uint64_t h = ((uint64_t)a << 32 | b) * 0x9e3779b97f4a7c15ull;
    return h ^ (h >> 29);
}

static uint32_t name_id(const char *s) {
    if (2 * (uint64_t)nnames >= name_cap) {
        uint32_t cap = name_cap ? name_cap * 2 : 1024;
        uint32_t *slots = ct_xrealloc(NULL, cap * sizeof *slots);
        memset(slots, 0, cap * sizeof *slots);
        for (uint32_t id = 1; id < nnames; id++) {
            uint32_t i = (uint32_t)hash_str(names[id]) & (cap - 1);
            while (slots[i])
                i = (i + 1) & (cap - 1);
            slots[i] = id;
        }
        free(name_slots);
        name_slots = slots;
        name_cap = cap;
        names = ct_xrealloc(names, cap * sizeof *names);
    }
    uint32_t i = (uint32_t)hash_str(s) & (name_cap - 1);
    while (name_slots[i]) {
        if (!strcmp(names[name_slots[i]], s))
            return name_slots[i];
        i = (i + 1) & (name_cap - 1);
    }
    size_t len = strlen(s);
    names[nnames] = memcpy(ct_xrealloc(NULL, len + 1), s, len + 1);
    name_slots[i] = nnames;
    return nnames++;
}

static uint32_t ctx_id(uint32_t parent, uint32_t name) {
    if (2 * (uint64_t)nctx >= ctx_cap) {
        uint32_t cap = ctx_cap ? ctx_cap * 2 : 1024;
        uint32_t *slots = ct_xrealloc(NULL, cap * sizeof *slots);
        memset(slots, 0, cap * sizeof *slots);
        for (uint32_t id = 1; id < nctx; id++) {
            uint32_t i = (uint32_t)hash_pair(ctx_parent[id], ctx_name[id]) & (cap - 1);
            while (slots[i])
                i = (i + 1) & (cap - 1);
            slots[i] = id;
        }
        free(ctx_slots);
        ctx_slots = slots;
        ctx_cap = cap;
        ctx_parent = ct_xrealloc(ctx_parent, cap * sizeof *ctx_parent);
        ctx_name = ct_xrealloc(ctx_name, cap * sizeof *ctx_name);
        ctx_parent[0] = ctx_name[0] = 0;
    }
    uint32_t i = (uint32_t)hash_pair(parent, name) & (ctx_cap - 1);
    while (ctx_slots[i]) {
        uint32_t c = ctx_slots[i];
        if (ctx_parent[c] == parent && ctx_name[c] == name)
            return c;
        i = (i + 1) & (ctx_cap - 1);
    }
    ctx_parent[nctx] = parent;
    ctx_name[nctx] = name;
    ctx_slots[i] = nctx;
    return nctx++;
}

/* The stack of context c, root first, frames separated by ';'.  Deep stacks
 * keep their innermost frames: "...;f;g;h" within len bytes. */
static void ctx_path(uint32_t c, char *buf, size_t len) {
    if (c == 0) {
        snprintf(buf, len, "(no frame)");
        return;
    }
    /* Written right to left from the leaf. */
    size_t pos = len - 1;
    buf[pos] = '\0';
    for (; c; c = ctx_parent[c]) {
        const char *n = names[ctx_name[c]];
        size_t nl = strlen(n) + (ctx_parent[c] ? 1 : 0);
        if (nl + 4 > pos) {
            memcpy(buf, "...", 3);
            memmove(buf + 3, buf + pos, len - pos);
            return;
        }
        pos -= nl;
        if (ctx_parent[c])
            buf[pos] = ';';
        memcpy(buf + pos + (ctx_parent[c] ? 1 : 0), n, strlen(n));
    }
    memmove(buf, buf + pos, len - pos);
}

/* ---- One profile, aggregated ---------------------------------------------- */

enum { DIM_SITE, DIM_LEAF, DIM_TYPE, DIM_SURVIVAL, NDIM };
static const char *const dim_name[NDIM] = {"site", "leaf", "type", "survival"};
static const char *const dim_plural[NDIM] = {"sites", "functions", "types", "survival classes"};

typedef struct dim_table {
    double *bytes;   /* truth: bytes; sampled: estimated bytes; by key id */
    uint64_t *count; /* truth: objects; sampled: samples; by key id */
    uint32_t cap;    /* entries allocated */
} dim_table;

/* Sampled objects by what a run allocates: (calling context, type name,
 * footprint, large), the names shared by every profile read, so that a
 * sampled profile's objects can be checked against the truth's. */
typedef struct obj_key {
    uint32_t ctx, type;
    uint64_t size;
    uint32_t large;
} obj_key;

typedef struct obj_table {
    obj_key *key;
    uint64_t *count;
    uint32_t n, cap; /* cap: slots, a power of two (0 = empty table) */
} obj_table;

static uint64_t hash_obj(const obj_key *k) {
    uint64_t h = hash_pair(k->ctx, k->type) ^ (k->size * 0x9e3779b97f4a7c15ull) ^ k->large;
    return h ^ (h >> 31);
}

static int obj_eq(const obj_key *a, const obj_key *b) {
    return a->ctx == b->ctx && a->type == b->type && a->size == b->size && a->large == b->large;
}

/* The slot of k in t (its count 0 if absent); t must have room. */
static uint32_t obj_slot(const obj_table *t, const obj_key *k) {
    uint32_t i = (uint32_t)hash_obj(k) & (t->cap - 1);
    while (t->count[i] && !obj_eq(&t->key[i], k))
        i = (i + 1) & (t->cap - 1);
    return i;
}

static void obj_add(obj_table *t, const obj_key *k) {
    if (2 * ((uint64_t)t->n + 1) > t->cap) {
        obj_table g = {NULL, NULL, 0, t->cap ? 2 * t->cap : 1024};
        g.key = ct_xrealloc(NULL, g.cap * sizeof *g.key);
        g.count = ct_xrealloc(NULL, g.cap * sizeof *g.count);
        memset(g.count, 0, g.cap * sizeof *g.count);
        for (uint32_t i = 0; i < t->cap; i++)
            if (t->count[i]) {
                uint32_t j = obj_slot(&g, &t->key[i]);
                g.key[j] = t->key[i];
                g.count[j] = t->count[i];
                g.n++;
            }
        free(t->key);
        free(t->count);
        *t = g;
    }
    uint32_t i = obj_slot(t, k);
    if (!t->count[i]) {
        t->key[i] = *k;
        t->n++;
    }
    t->count[i]++;
}

static uint64_t obj_get(const obj_table *t, const obj_key *k) { return t->cap ? t->count[obj_slot(t, k)] : 0; }

typedef struct profile {
    const char *path;
    int truth; /* read as the exact profile */
    dim_table dim[NDIM];
    double bytes;     /* total bytes (truth) or estimate (sampled) */
    uint64_t records; /* allocation samples */
    uint64_t points;  /* sample points */
    uint64_t period;  /* the one period in force, or 0 if it changed */
    int mode;         /* 0 fixed, 1 poisson, -1 both */
    int configs;      /* ALLOC_CONFIG records with a period */
    obj_table objs;   /* its objects (truth) or samples (sampled) by site, type, size */
} profile;

static void dim_add(dim_table *t, uint32_t key, double bytes) {
    if (key >= t->cap) {
        uint32_t cap = t->cap ? t->cap : 256;
        while (cap <= key)
            cap *= 2;
        t->bytes = ct_xrealloc(t->bytes, cap * sizeof *t->bytes);
        t->count = ct_xrealloc(t->count, cap * sizeof *t->count);
        memset(t->bytes + t->cap, 0, (cap - t->cap) * sizeof *t->bytes);
        memset(t->count + t->cap, 0, (cap - t->cap) * sizeof *t->count);
        t->cap = cap;
    }
    t->bytes[key] += bytes;
    t->count[key]++;
}

static double dim_get(const dim_table *t, uint32_t key) { return key < t->cap ? t->bytes[key] : 0.0; }

static void profile_free(profile *p) {
    for (int d = 0; d < NDIM; d++) {
        free(p->dim[d].bytes);
        free(p->dim[d].count);
    }
    free(p->objs.key);
    free(p->objs.count);
}

static uint32_t no_frame, surv_name[3];

/* One file's ids mapped to the shared ones (names, contexts). */
typedef struct id_maps {
    uint32_t *str, *node, *type; /* by this file's string, node, type id */
    uint32_t str_cap, node_cap, type_cap;
    uint64_t period; /* the period in force (0: sampling off) */
} id_maps;

/* Grows a map of uint32_t to hold index id (first cap first, doubling);
 * new entries zeroed when zero is set. */
static uint32_t *map_grow(uint32_t *map, uint32_t *cap, uint32_t id, uint32_t first, int zero) {
    if (id < *cap)
        return map;
    uint32_t old = *cap;
    *cap = *cap ? 2 * *cap : first;
    while (*cap <= id)
        *cap *= 2;
    map = ct_xrealloc(map, *cap * sizeof *map);
    if (zero)
        memset(map + old, 0, (*cap - old) * sizeof *map);
    return map;
}

/* A string, node or type record: its id mapped to the shared one. */
static void map_record(id_maps *m, const sgc_pr_record *c) {
    switch (c->kind) {
    case SGC_REC_STRING:
        m->str = map_grow(m->str, &m->str_cap, c->id, 256, 0);
        m->str[c->id] = name_id(c->str);
        break;
    case SGC_REC_NODE:
        /* The reader checked parent < id and that func is defined. */
        if (c->id >= m->node_cap) {
            m->node = map_grow(m->node, &m->node_cap, c->id, 256, 0);
            m->node[0] = 0;
        }
        m->node[c->id] = ctx_id(c->parent ? m->node[c->parent] : 0, m->str[c->func]);
        break;
    case SGC_REC_TYPE:
        m->type = map_grow(m->type, &m->type_cap, c->tid, 64, 1);
        m->type[c->tid] = m->str[c->name];
        break;
    default: break;
    }
}

/* An allocation sampling setting: the profile's period and mode (0 and -1
 * once they changed); an exact profile must be one setting at period 8 in
 * fixed mode.  0, or 2 with the message printed. */
static int take_config(profile *p, id_maps *m, const sgc_pr_record *c) {
    if (c->period == 0) {
        m->period = 0;
        return 0;
    }
    if (p->truth && (c->period != TRUTH_PERIOD || c->mode != 0)) {
        fprintf(stderr,
                "sgcprof: %s: not an exact profile: sampling at period %" PRIu64 " in %s mode (record at byte %" PRIu64
                "); an exact profile is taken with "
                "SGC_ALLOC_PERIOD=8 SGC_ALLOC_MODE=fixed\n",
                p->path, c->period, sgc_alloc_mode_name((int)c->mode), c->offset);
        return 2;
    }
    if (p->truth && p->configs > 0) {
        fprintf(stderr,
                "sgcprof: %s: not an exact profile: sampling was restarted (record at byte %" PRIu64
                "); allocations before it may be missing\n",
                p->path, c->offset);
        return 2;
    }
    if (p->configs == 0) {
        p->period = c->period;
        p->mode = (int)c->mode;
    } else {
        if (c->period != p->period)
            p->period = 0;
        if ((int)c->mode != p->mode)
            p->mode = -1;
    }
    p->configs++;
    m->period = c->period;
    return 0;
}

/* An allocation sample: its bytes (exact: its size; else its points times
 * the period) added by site, leaf, type and survival, and its object.  0,
 * or 2 with the message printed. */
static int take_sample(profile *p, const id_maps *m, const sgc_pr_record *c) {
    if (m->period == 0) {
        fprintf(stderr, "sgcprof: %s: an allocation sample while sampling was off (record at byte %" PRIu64 ")\n",
                p->path, c->offset);
        return 2;
    }
    if (p->truth && (c->size % TRUTH_PERIOD != 0 || c->points != c->size / TRUTH_PERIOD)) {
        fprintf(stderr,
                "sgcprof: %s: not an exact profile: a sample of %" PRIu64 " bytes with %u points "
                "(record at byte %" PRIu64 "); at period 8 every allocation has size / 8\n",
                p->path, c->size, c->points, c->offset);
        return 2;
    }
    double bytes = p->truth ? (double)c->size : (double)c->points * (double)m->period;
    uint32_t ctx = c->node ? m->node[c->node] : 0;
    uint32_t type = c->tid < m->type_cap ? m->type[c->tid] : 0;
    dim_add(&p->dim[DIM_SITE], ctx, bytes);
    dim_add(&p->dim[DIM_LEAF], ctx ? ctx_name[ctx] : no_frame, bytes);
    dim_add(&p->dim[DIM_TYPE], type, bytes);
    dim_add(&p->dim[DIM_SURVIVAL], surv_name[c->survival <= 2 ? c->survival : 2], bytes);
    p->bytes += bytes;
    p->records++;
    p->points += c->points;
    obj_key ok = {ctx, type, c->size, c->large};
    obj_add(&p->objs, &ok);
    return 0;
}

/* Reads path into p.  Returns 0, or 2 with a message on stderr. */
static int profile_read(profile *p, const char *path, int truth) {
    memset(p, 0, sizeof *p);
    p->path = path;
    p->truth = truth;
    p->mode = -2; /* none yet */
    sgc_pr_reader r;
    if (sgcprof_open_input(&r, path) != 0) {
        fprintf(stderr, "sgcprof: %s: %s\n", path, r.err);
        sgc_pr_close(&r);
        return 2;
    }
    id_maps m = {0};
    int rc = 0, n;
    sgc_pr_record c;
    while (!rc && (n = sgc_pr_next(&r, &c)) == 1) {
        if (c.kind == SGC_REC_ALLOC_CONFIG)
            rc = take_config(p, &m, &c);
        else if (c.kind == SGC_REC_ALLOC_SAMPLE)
            rc = take_sample(p, &m, &c);
        else
            map_record(&m, &c);
    }
    if (rc) {
        /* the message is out */
    } else if (n < 0) {
        fprintf(stderr, "sgcprof: %s: %s\n", path, r.err);
        rc = 2;
    } else if (p->configs == 0) {
        fprintf(stderr, "sgcprof: %s: allocation sampling was never on in this profile%s\n", path,
                truth ? "; an exact profile is taken with SGC_ALLOC_PERIOD=8 SGC_ALLOC_MODE=fixed" : "");
        rc = 2;
    }
    free(m.str);
    free(m.node);
    free(m.type);
    sgc_pr_close(&r);
    return rc;
}

/* ---- Is the sampled profile one of the truth's run? ----------------------- */

/* A profile carries no run identity (no program name, arguments, input or
 * seed: docs/PROFILE.md), so what it holds decides.  A deterministic run
 * allocates the same objects whatever the period: every object a sampled
 * profile recorded (its site, type, footprint, large or not) the truth
 * recorded at least as often; and in fixed mode, sampling on throughout at
 * one period P, the points are floor((B + offset) / P) of the truth's B
 * bytes, so the estimate lies within P of B; in poisson mode the points are
 * a binomial count of mean B / P, within 6 standard deviations of it (a
 * chance of about 2e-9 to refuse a profile of the same run).  Returns 0, or
 * 1 with the first difference in why. */
static int same_run(const profile *t, const profile *s, char *why, size_t len) {
    char site[4096];
    for (uint32_t i = 0; i < s->objs.cap; i++) {
        uint64_t n = s->objs.count[i];
        if (!n)
            continue;
        const obj_key *k = &s->objs.key[i];
        uint64_t m = obj_get(&t->objs, k);
        if (m < n) {
            ctx_path(k->ctx, site, sizeof site);
            snprintf(why, len,
                     "it sampled %" PRIu64 " %sobjects of type %s, %" PRIu64 " bytes, at %s, where the exact "
                     "profile allocated %" PRIu64,
                     n, k->large ? "large " : "", k->type ? names[k->type] : "?", k->size, site, m);
            return 1;
        }
    }
    if (s->configs == 1 && s->period && s->mode == 0) {
        double d = s->bytes - t->bytes;
        if (fabs(d) >= (double)s->period) {
            snprintf(why, len,
                     "it estimates %.0f bytes allocated, the exact profile holds %.0f: in fixed mode at period %" PRIu64
                     " the same run gives at most a period less or more",
                     s->bytes, t->bytes, s->period);
            return 1;
        }
    } else if (s->configs == 1 && s->period && s->mode == 1) {
        double mean = t->bytes / (double)s->period, sd = sqrt(mean);
        if (fabs((double)s->points - mean) > 6 * sd + 1) {
            snprintf(why, len,
                     "it has %" PRIu64 " sample points, the exact profile's %.0f bytes give %.1f +- %.1f at period "
                     "%" PRIu64 " in poisson mode: more than 6 standard deviations apart",
                     s->points, t->bytes, mean, sd, s->period);
            return 1;
        }
    }
    return 0;
}

/* What same_run could check of s, in words. */
static const char *checked_text(const profile *s) {
    if (s->configs == 1 && s->period && s->mode == 0)
        return "every sampled object allocated as often in the truth; the estimated total within one period of the "
               "truth's bytes";
    if (s->configs == 1 && s->period && s->mode == 1)
        return "every sampled object allocated as often in the truth; the sample points within 6 standard "
               "deviations of the truth's bytes / period";
    return "every sampled object allocated as often in the truth (the total not: sampling restarted or changed "
           "its period or mode)";
}

/* ---- Ranking and comparison ----------------------------------------------- */

static char key_buf_a[4096], key_buf_b[4096];

static const char *key_text(int dim, uint32_t key, char *buf, size_t len) {
    if (dim == DIM_SITE) {
        ctx_path(key, buf, len);
        return buf;
    }
    return key ? names[key] : "?";
}

static const dim_table *rank_table;
static int rank_dim;
static int by_bytes_desc(const void *a, const void *b) {
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    double bx = rank_table->bytes[x], by = rank_table->bytes[y];
    if (bx != by)
        return bx < by ? 1 : -1;
    int c =
        strcmp(key_text(rank_dim, x, key_buf_a, sizeof key_buf_a), key_text(rank_dim, y, key_buf_b, sizeof key_buf_b));
    return c ? c : (x < y ? -1 : x > y);
}

/* Keys with bytes > 0, largest first (ties by name); returns how many; *out
 * is allocated. */
static uint32_t ranked(const dim_table *t, int dim, uint32_t **out) {
    uint32_t *ids = ct_xrealloc(NULL, (t->cap ? t->cap : 1) * sizeof *ids);
    uint32_t n = 0;
    for (uint32_t k = 0; k < t->cap; k++)
        if (t->bytes[k] > 0)
            ids[n++] = k;
    rank_table = t;
    rank_dim = dim;
    qsort(ids, n, sizeof *ids, by_bytes_desc);
    *out = ids;
    return n;
}

/* Mean absolute deviation of a Poisson count of mean lambda from lambda:
 * 2 lambda^(m+1) e^-lambda / m!, m = floor(lambda). */
static double poisson_mad(double lambda) {
    if (lambda <= 0)
        return 0;
    double m = floor(lambda);
    return 2.0 * exp((m + 1) * log(lambda) - lambda - lgamma(m + 1));
}

typedef struct comparison {
    uint32_t keys_truth, keys_sampled;
    double tvd, tvd_indep;
    unsigned top;            /* keys in the top list (min of N and the truth's keys) */
    double err[MAX_TOP];     /* relative error of each, in the truth's order */
    uint32_t key[MAX_TOP];   /* the truth's top keys */
    uint32_t srank[MAX_TOP]; /* their rank in the sampled profile (1-based; 0 = not sampled) */
    double max_err;
    int set_ok, order_ok;
    double min_expected; /* expected samples of the smallest top key (NaN: no single period) */
} comparison;

static void compare(const profile *t, const profile *s, int dim, unsigned top_n, comparison *out) {
    const dim_table *tt = &t->dim[dim], *st = &s->dim[dim];
    uint32_t *tr, *sr;
    out->keys_truth = ranked(tt, dim, &tr);
    out->keys_sampled = ranked(st, dim, &sr);
    uint32_t cap = tt->cap > st->cap ? tt->cap : st->cap;
    double sum = 0;
    for (uint32_t k = 0; k < cap; k++) {
        double p = dim_get(tt, k) / t->bytes;
        double q = s->bytes > 0 ? dim_get(st, k) / s->bytes : 0;
        sum += fabs(p - q);
    }
    out->tvd = s->bytes > 0 ? 0.5 * sum : 1.0;
    if (out->tvd > 1)
        out->tvd = 1; /* rounding */
    /* Independent sampling at this period: each key's samples a Poisson
     * count of mean bytes / P, normalised by the expected total. */
    out->tvd_indep = NAN;
    out->min_expected = NAN;
    if (s->period) {
        double n = t->bytes / (double)s->period, dev = 0;
        for (uint32_t i = 0; i < out->keys_truth; i++)
            dev += poisson_mad(tt->bytes[tr[i]] / (double)s->period);
        out->tvd_indep = n > 0 ? 0.5 * dev / n : 1.0;
        if (out->tvd_indep > 1)
            out->tvd_indep = 1;
    }
    out->top = top_n < out->keys_truth ? top_n : out->keys_truth;
    out->max_err = 0;
    out->set_ok = out->order_ok = 1;
    for (unsigned i = 0; i < out->top; i++) {
        uint32_t k = tr[i];
        double tb = tt->bytes[k];
        out->key[i] = k;
        out->err[i] = (dim_get(st, k) - tb) / tb;
        if (fabs(out->err[i]) > out->max_err)
            out->max_err = fabs(out->err[i]);
        out->srank[i] = 0;
        for (uint32_t j = 0; j < out->keys_sampled; j++)
            if (sr[j] == k) {
                out->srank[i] = j + 1;
                break;
            }
        if (out->srank[i] == 0 || out->srank[i] > out->top)
            out->set_ok = 0;
        if (out->srank[i] != i + 1)
            out->order_ok = 0;
    }
    if (out->keys_sampled < out->top)
        out->set_ok = out->order_ok = 0;
    if (s->period && out->top)
        out->min_expected = tt->bytes[tr[out->top - 1]] / (double)s->period;
    free(tr);
    free(sr);
}

/* ---- Output ------------------------------------------------------------------ */

static const char *mode_text(int mode) { return sgc_alloc_mode_name(mode) ? sgc_alloc_mode_name(mode) : "mixed"; }

/* CSV fields: quoted when they hold a comma, quote or newline. */
static void csv_str(FILE *out, const char *s) {
    if (!strpbrk(s, ",\"\n")) {
        fputs(s, out);
        return;
    }
    fputc('"', out);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', out);
        fputc(*s, out);
    }
    fputc('"', out);
}

static void csv_num(FILE *out, double v) {
    if (isnan(v))
        return; /* empty field */
    fprintf(out, "%.6g", v);
}

static void print_truth(FILE *out, const profile *t, unsigned top_n, int csv) {
    char buf[4096];
    if (csv)
        fprintf(out, "dimension,rank,key,bytes,objects,share\n");
    else
        fprintf(out, "truth: %s: %.0f bytes, %" PRIu64 " objects\n", t->path, t->bytes, t->records);
    for (int d = 0; d < NDIM; d++) {
        uint32_t *ids;
        uint32_t n = ranked(&t->dim[d], d, &ids);
        if (!csv)
            fprintf(out, "\n%u %s; %s:\n  %4s %16s %12s %7s  %s\n", n, dim_plural[d],
                    n > top_n ? "the largest by bytes" : "by bytes", "rank", "bytes", "objects", "share", dim_name[d]);
        for (uint32_t i = 0; i < n && (csv || i < top_n); i++) {
            uint32_t k = ids[i];
            const char *name = key_text(d, k, buf, sizeof buf);
            if (csv) {
                fprintf(out, "%s,%u,", dim_name[d], i + 1);
                csv_str(out, name);
                fprintf(out, ",%.0f,%" PRIu64 ",%.9f\n", t->dim[d].bytes[k], t->dim[d].count[k],
                        t->dim[d].bytes[k] / t->bytes);
            } else {
                fprintf(out, "  %4u %16.0f %12" PRIu64 " %6.2f%%  %s\n", i + 1, t->dim[d].bytes[k], t->dim[d].count[k],
                        100.0 * t->dim[d].bytes[k] / t->bytes, name);
            }
        }
        free(ids);
    }
}

static void csv_header(FILE *out, unsigned top_n) {
    fprintf(out, "file,mode,period,samples,points,truth_bytes,truth_objects,estimated_bytes,dimension,"
                 "keys_truth,keys_sampled,tvd,tvd_indep,top_n,top_max_err,top_set,top_order,top_min_expected");
    for (unsigned i = 1; i <= top_n; i++)
        fprintf(out, ",err_%u", i);
    fputc('\n', out);
}

static void csv_rows(FILE *out, const profile *t, const profile *s, unsigned top_n) {
    for (int d = 0; d < NDIM; d++) {
        comparison c;
        compare(t, s, d, top_n, &c);
        csv_str(out, s->path);
        fprintf(out, ",%s,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%.0f,%" PRIu64 ",%.0f,%s,%u,%u,", mode_text(s->mode),
                s->period, s->records, s->points, t->bytes, t->records, s->bytes, dim_name[d], c.keys_truth,
                c.keys_sampled);
        csv_num(out, c.tvd);
        fputc(',', out);
        csv_num(out, c.tvd_indep);
        fprintf(out, ",%u,", c.top);
        csv_num(out, c.max_err);
        fprintf(out, ",%d,%d,", c.set_ok, c.order_ok);
        csv_num(out, c.min_expected);
        for (unsigned i = 0; i < top_n; i++) {
            fputc(',', out);
            if (i < c.top)
                csv_num(out, c.err[i]);
        }
        fputc('\n', out);
    }
}

static void table(FILE *out, const profile *t, const profile *s, unsigned top_n) {
    char buf[4096];
    fprintf(out,
            "\nsampled: %s: %s mode, period %" PRIu64 "%s, %" PRIu64 " samples (%" PRIu64
            " points), estimated %.0f bytes (%+.2f%%)\n",
            s->path, mode_text(s->mode), s->period, s->period ? "" : " (changed)", s->records, s->points, s->bytes,
            100.0 * (s->bytes - t->bytes) / t->bytes);
    fprintf(out, "  same run as the truth, as far as the profiles tell (they name no program, input or seed): %s\n",
            checked_text(s));
    fprintf(out, "  %-9s %6s %6s %8s %11s %12s %7s %7s\n", "dimension", "keys", "found", "TVD", "indep.TVD",
            "top max|err|", "top set", "order");
    comparison c[NDIM];
    for (int d = 0; d < NDIM; d++) {
        compare(t, s, d, top_n, &c[d]);
        char indep[32];
        if (isnan(c[d].tvd_indep))
            snprintf(indep, sizeof indep, "-");
        else
            snprintf(indep, sizeof indep, "%.4f", c[d].tvd_indep);
        fprintf(out, "  %-9s %6u %6u %8.4f %11s %11.2f%% %7s %7s\n", dim_name[d], c[d].keys_truth, c[d].keys_sampled,
                c[d].tvd, indep, 100.0 * c[d].max_err, c[d].set_ok ? "yes" : "no", c[d].order_ok ? "yes" : "no");
    }
    const comparison *cs = &c[DIM_SITE];
    fprintf(out, "  top %u sites by true bytes:\n  %4s %16s %7s %16s %9s %6s  %s\n", cs->top, "rank", "true bytes",
            "share", "estimated", "error", "s.rank", "site");
    for (unsigned i = 0; i < cs->top; i++) {
        uint32_t k = cs->key[i];
        char sr[16];
        if (cs->srank[i])
            snprintf(sr, sizeof sr, "%u", cs->srank[i]);
        else
            snprintf(sr, sizeof sr, "-");
        fprintf(out, "  %4u %16.0f %6.2f%% %16.0f %+8.2f%% %6s  %s\n", i + 1, t->dim[DIM_SITE].bytes[k],
                100.0 * t->dim[DIM_SITE].bytes[k] / t->bytes, dim_get(&s->dim[DIM_SITE], k), 100.0 * cs->err[i], sr,
                key_text(DIM_SITE, k, buf, sizeof buf));
    }
}

static const char usage[] = "usage: sgcprof accuracy [--top N] [--csv] [--unmatched] TRUTH [SAMPLED...]\n"
                            "Compares sampled allocation profiles with an exact one.  TRUTH is a profile\n"
                            "of the same deterministic run taken with SGC_ALLOC_PERIOD=8 SGC_ALLOC_MODE=fixed\n"
                            "(every allocation recorded).  For each SAMPLED profile, by allocation site\n"
                            "(calling context), leaf function, type and survival: the total variation\n"
                            "distance between the byte shares (0 = identical, 1 = disjoint), the distance\n"
                            "expected from independent sampling at that period, the relative error of the\n"
                            "estimated bytes of the truth's top N keys (default 10), and whether the top N\n"
                            "set and order are recovered.  Without SAMPLED: the truth's bytes and objects\n"
                            "by key.  --csv: one row per profile and dimension (all keys for TRUTH alone).\n"
                            "A SAMPLED profile that cannot be of TRUTH's run is refused (exit 2): one that\n"
                            "sampled an object (site, type, size) TRUTH allocated fewer times, or whose total\n"
                            "is off by more than the sampling allows (a profile names no program, input or\n"
                            "seed, so this is what can be checked; docs/PROFILE.md).  --unmatched compares\n"
                            "such a profile anyway, with a warning: the distances then mix the sampling error\n"
                            "with the difference between the runs.\n";

int sgcprof_accuracy_main(int argc, char **argv) {
    unsigned top_n = 10;
    int csv = 0, unmatched = 0;
    const char **files = ct_xrealloc(NULL, (size_t)(argc + 1) * sizeof *files);
    int nfiles = 0;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            fputs(usage, stdout);
            free(files);
            return 0;
        } else if (!strcmp(a, "--csv")) {
            csv = 1;
        } else if (!strcmp(a, "--unmatched")) {
            unmatched = 1;
        } else if (!strcmp(a, "--top")) {
            char *end;
            if (i + 1 >= argc) {
                fprintf(stderr, "sgcprof: accuracy: --top needs a number\nTry 'sgcprof accuracy --help'.\n");
                free(files);
                return 2;
            }
            errno = 0;
            unsigned long v = strtoul(argv[++i], &end, 10);
            if (errno || *end || end == argv[i] || v == 0 || v > MAX_TOP) {
                fprintf(stderr, "sgcprof: accuracy: --top %s: not a number between 1 and %d\n", argv[i], MAX_TOP);
                free(files);
                return 2;
            }
            top_n = (unsigned)v;
        } else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "sgcprof: accuracy: unknown option %s\nTry 'sgcprof accuracy --help'.\n", a);
            free(files);
            return 2;
        } else {
            files[nfiles++] = a;
        }
    }
    if (nfiles == 0) {
        fprintf(stderr, "sgcprof: accuracy: missing TRUTH\nTry 'sgcprof accuracy --help'.\n");
        free(files);
        return 2;
    }
    no_frame = name_id("(no frame)");
    surv_name[0] = name_id("died");
    surv_name[1] = name_id("survived");
    surv_name[2] = name_id("unknown");

    profile truth;
    int rc = profile_read(&truth, files[0], 1);
    if (rc == 0 && truth.records == 0) {
        fprintf(stderr, "sgcprof: %s: the exact profile holds no allocation\n", files[0]);
        rc = 2;
    }
    if (rc != 0) {
        profile_free(&truth);
        free(files);
        return rc;
    }
    if (nfiles == 1) {
        print_truth(stdout, &truth, top_n, csv);
    } else {
        if (csv)
            csv_header(stdout, top_n);
        else
            fprintf(stdout, "truth: %s: %.0f bytes, %" PRIu64 " objects\n", truth.path, truth.bytes, truth.records);
        for (int i = 1; i < nfiles && rc == 0; i++) {
            profile s;
            rc = profile_read(&s, files[i], 0);
            char why[4600];
            if (rc == 0 && same_run(&truth, &s, why, sizeof why)) {
                if (unmatched) {
                    fprintf(stderr,
                            "sgcprof: accuracy: warning: %s is not a profile of the run of %s: %s (compared "
                            "anyway: --unmatched)\n",
                            files[i], files[0], why);
                } else {
                    fprintf(stderr,
                            "sgcprof: accuracy: %s is not a profile of the run of %s: %s; give a sampled profile "
                            "of the same deterministic program, input and settings (--unmatched compares it "
                            "anyway)\n",
                            files[i], files[0], why);
                    rc = 2;
                }
            }
            if (rc == 0) {
                if (csv)
                    csv_rows(stdout, &truth, &s, top_n);
                else
                    table(stdout, &truth, &s, top_n);
            }
            profile_free(&s);
        }
    }
    profile_free(&truth);
    free(files);
    return rc;
}
