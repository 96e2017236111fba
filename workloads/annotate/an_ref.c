/* an_ref.c - annotate's reference fixpoint: round-robin passes over dense bitsets. */
#include "an_ref.h"

#include <stdlib.h>
#include <string.h>
#include "../wl_common.h"

/* An annotation: kinds, and a bitset of nsites bits. */
typedef struct ref_state {
    const an_program *p;
    int words;         /* uint64_t words per bitset */
    uint32_t *kinds;   /* per annotation */
    uint64_t *bits;    /* per annotation: words words */
    int *var_base;     /* annotation index of function f's variable 0 */
    int ret_base, elem_base, dkey_base, dval_base;
    int changed;       /* something grew during this pass */
} ref_state;

static uint64_t *bits_of(ref_state *r, int ann) { return r->bits + (size_t)ann * (size_t)r->words; }

/* dst := dst U src. */
static void join(ref_state *r, int dst, int src) {
    uint32_t k = r->kinds[dst] | r->kinds[src];
    if (k != r->kinds[dst]) {
        r->kinds[dst] = k;
        r->changed = 1;
    }
    uint64_t *d = bits_of(r, dst), *s = bits_of(r, src);
    for (int i = 0; i < r->words; i++) {
        uint64_t n = d[i] | s[i];
        if (n != d[i]) {
            d[i] = n;
            r->changed = 1;
        }
    }
}

static void join_kinds(ref_state *r, int dst, uint32_t kinds) {
    if ((r->kinds[dst] | kinds) != r->kinds[dst]) {
        r->kinds[dst] |= kinds;
        r->changed = 1;
    }
}

static void join_site(ref_state *r, int dst, int site) {
    uint64_t *d = bits_of(r, dst);
    uint64_t m = (uint64_t)1 << (site % 64);
    if (!(d[site / 64] & m)) {
        d[site / 64] |= m;
        r->changed = 1;
    }
}

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
            case AN_BINOP: join_kinds(r, res, an_binop_kinds(r->kinds[a], r->kinds[vb + op->b])); break;
            case AN_NEWLIST:
            case AN_NEWDICT: join_site(r, res, (int)op->x); break;
            case AN_FUNCREF: join_site(r, res, p->nconts + (int)op->x); break;
            case AN_RETURN: join(r, r->ret_base + f, a); break;
            case AN_CALL: call(r, f, op, (int)op->x); break;
            default: {
                /* the ops that act on every site the operand may hold */
                for (int w = 0; w < r->words; w++) {
                  for (uint64_t m = bits_of(r, a)[w]; m; m &= m - 1) {
                    int s = w * 64 + __builtin_ctzll(m);
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
                }
            }
            }
        }
    }
}

static void mix_ann(ref_state *r, wl_checksum *c, int ann) {
    uint64_t *b = bits_of(r, ann);
    uint64_t n = 0;
    for (int i = 0; i < r->words; i++)
        n += (uint64_t)__builtin_popcountll(b[i]);
    wl_mix(c, r->kinds[ann]);
    wl_mix(c, n);
    for (int s = 0; s < r->p->nsites; s++)
        if (b[s / 64] & ((uint64_t)1 << (s % 64)))
            wl_mix(c, (uint64_t)s);
}

uint64_t an_ref_checksum(const an_program *p) {
    ref_state r = {0};
    r.p = p;
    r.words = (p->nsites + 63) / 64;
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
    r.kinds = wl_xcalloc((size_t)nann, sizeof(uint32_t));
    r.bits = wl_xcalloc((size_t)nann * (size_t)r.words, sizeof(uint64_t));
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
    free(r.var_base);
    free(r.kinds);
    free(r.bits);
    return wl_checksum_value(&c);
}
