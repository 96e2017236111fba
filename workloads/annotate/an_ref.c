/* an_ref.c - annotate's reference fixpoint: round-robin passes over malloc'd site sets. */
#include "an_ref.h"

#include <stdlib.h>
#include <string.h>
#include "../wl_common.h"

/* An annotation: kinds, and a sorted array of site ids (malloc'd, grown
 * by doubling). */
typedef struct ref_ann {
    uint32_t kinds;
    int n, cap;
    int *sites;
} ref_ann;

typedef struct ref_state {
    const an_program *p;
    ref_ann *ann;  /* every annotation */
    int *var_base; /* annotation index of function f's variable 0 */
    int ret_base, elem_base, dkey_base, dval_base;
    int *tmp; /* merge buffer */
    int tmp_cap;
    int changed; /* something grew during this pass */
} ref_state;

static void join_kinds(ref_state *r, int dst, uint32_t kinds) {
    if ((r->ann[dst].kinds | kinds) != r->ann[dst].kinds) {
        r->ann[dst].kinds |= kinds;
        r->changed = 1;
    }
}

/* dst.sites := dst.sites U src[0..n) (sorted). */
static void join_sites(ref_state *r, int dst, const int *src, int n) {
    ref_ann *d = &r->ann[dst];
    int extra = 0;
    for (int i = 0, j = 0; j < n; j++) {
        while (i < d->n && d->sites[i] < src[j])
            i++;
        if (i == d->n || d->sites[i] != src[j])
            extra++;
    }
    if (!extra)
        return;
    int total = d->n + extra;
    if (total > r->tmp_cap) {
        r->tmp_cap = total * 2;
        free(r->tmp);
        r->tmp = wl_xmalloc((size_t)r->tmp_cap * sizeof(int));
    }
    int i = 0, j = 0, k = 0;
    while (i < d->n || j < n) {
        if (j == n || (i < d->n && d->sites[i] < src[j]))
            r->tmp[k++] = d->sites[i++];
        else if (i == d->n || src[j] < d->sites[i])
            r->tmp[k++] = src[j++];
        else
            r->tmp[k++] = d->sites[i++], j++;
    }
    if (total > d->cap) {
        d->cap = total * 2;
        free(d->sites);
        d->sites = wl_xmalloc((size_t)d->cap * sizeof(int));
    }
    memcpy(d->sites, r->tmp, (size_t)total * sizeof(int));
    d->n = total;
    r->changed = 1;
}

/* dst := dst U src. */
static void join(ref_state *r, int dst, int src) {
    if (dst == src)
        return;
    join_kinds(r, dst, r->ann[src].kinds);
    join_sites(r, dst, r->ann[src].sites, r->ann[src].n);
}

static void join_site(ref_state *r, int dst, int site) { join_sites(r, dst, &site, 1); }

/* The flow of a call from function f's op to function g. */
static void call(ref_state *r, int f, const an_op *op, int g) {
    const an_fn *callee = &r->p->fns[g];
    int n = op->nargs < callee->nparams ? op->nargs : callee->nparams;
    for (int i = 0; i < n; i++)
        join(r, r->var_base[g] + i, r->var_base[f] + op->args[i]);
    join(r, r->var_base[f] + op->res, r->ret_base + g);
}

static void pass(ref_state *r) {
    const an_program *p = r->p;
    for (int f = 0; f < p->nfuncs; f++) {
        const an_fn *fn = &p->fns[f];
        int vb = r->var_base[f];
        for (int k = 0; k < fn->nops; k++) {
            const an_op *op = &fn->ops[k];
            int a = vb + op->a, res = vb + op->res;
            switch (op->opcode) {
            case AN_CONST: join_kinds(r, res, op->x); break;
            case AN_COPY: join(r, res, a); break;
            case AN_BINOP: join_kinds(r, res, an_binop_kinds(r->ann[a].kinds, r->ann[vb + op->b].kinds)); break;
            case AN_NEWLIST:
            case AN_NEWDICT: join_site(r, res, (int)op->x); break;
            case AN_FUNCREF: join_site(r, res, p->nconts + (int)op->x); break;
            case AN_RETURN: join(r, r->ret_base + f, a); break;
            case AN_CALL: call(r, f, op, (int)op->x); break;
            default: {
                /* the ops that act on every site the operand may hold; a
                 * copy of the set, since joining into res may grow it */
                int n = r->ann[a].n;
                int *sites = wl_xmalloc((size_t)(n ? n : 1) * sizeof(int));
                if (n)
                    memcpy(sites, r->ann[a].sites, (size_t)n * sizeof(int));
                for (int k2 = 0; k2 < n; k2++) {
                    int s = sites[k2];
                    int is_func = s >= p->nconts;
                    int is_dict = !is_func && p->site_is_dict[s];
                    int is_list = !is_func && !is_dict;
                    if (op->opcode == AN_SETELEM && is_list)
                        join(r, r->elem_base + s, vb + op->b);
                    else if (op->opcode == AN_GETELEM && is_list)
                        join(r, res, r->elem_base + s);
                    else if (op->opcode == AN_SETITEM && is_dict) {
                        join(r, r->dkey_base + s, vb + op->b);
                        join(r, r->dval_base + s, vb + op->args[0]);
                    } else if (op->opcode == AN_GETITEM && is_dict)
                        join(r, res, r->dval_base + s);
                    else if (op->opcode == AN_CALLIND && is_func)
                        call(r, f, op, s - p->nconts);
                }
                free(sites);
            }
            }
        }
    }
}

static void mix_ann(ref_state *r, wl_checksum *c, int ann) {
    wl_mix(c, r->ann[ann].kinds);
    wl_mix(c, (uint64_t)r->ann[ann].n);
    for (int i = 0; i < r->ann[ann].n; i++)
        wl_mix(c, (uint64_t)r->ann[ann].sites[i]);
}

uint64_t an_ref_checksum(const an_program *p) {
    ref_state r = {0};
    r.p = p;
    r.var_base = wl_xcalloc((size_t)p->nfuncs, sizeof(int));
    int nann = 0;
    for (int f = 0; f < p->nfuncs; f++) {
        r.var_base[f] = nann;
        nann += p->fns[f].nvars;
    }
    r.ret_base = nann;
    nann += p->nfuncs;
    r.elem_base = nann;
    nann += p->nconts;
    r.dkey_base = nann;
    nann += p->nconts;
    r.dval_base = nann;
    nann += p->nconts;
    r.ann = wl_xcalloc((size_t)nann, sizeof(ref_ann));
    do {
        r.changed = 0;
        pass(&r);
    } while (r.changed);

    wl_checksum c = WL_CHECKSUM_INIT;
    for (int f = 0; f < p->nfuncs; f++) {
        for (int v = 0; v < p->fns[f].nvars; v++)
            mix_ann(&r, &c, r.var_base[f] + v);
        mix_ann(&r, &c, r.ret_base + f);
    }
    for (int s = 0; s < p->nconts; s++) {
        mix_ann(&r, &c, r.elem_base + s);
        mix_ann(&r, &c, r.dkey_base + s);
        mix_ann(&r, &c, r.dval_base + s);
    }
    for (int i = 0; i < nann; i++)
        free(r.ann[i].sites);
    free(r.ann);
    free(r.tmp);
    free(r.var_base);
    return wl_checksum_value(&c);
}
