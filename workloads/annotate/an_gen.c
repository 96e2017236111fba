/* an_gen.c - generates annotate's deterministic synthetic program. */
#include "an_gen.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

uint32_t an_binop_kinds(uint32_t ka, uint32_t kb) {
    /* table[i][j]: result of kind bit i with kind bit j */
    static const uint8_t table[5][5] = {/*          int        float        str     bool       none */
                                        /* int */ {AN_K_INT, AN_K_FLOAT, 0, AN_K_INT, 0},
                                        /* flt */ {AN_K_FLOAT, AN_K_FLOAT, 0, AN_K_FLOAT, 0},
                                        /* str */ {AN_K_STR, 0, AN_K_STR, 0, 0},
                                        /* bool*/ {AN_K_INT, AN_K_FLOAT, 0, AN_K_INT, 0},
                                        /* none*/ {0, 0, 0, 0, 0}};
    uint32_t r = 0;
    for (int i = 0; i < 5; i++)
        if (ka & (1u << i))
            for (int j = 0; j < 5; j++)
                if (kb & (1u << j))
                    r |= table[i][j];
    return r;
}

/* splitmix64: small, well mixed, and the same everywhere. */
static uint64_t rng_next(uint64_t *s) {
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static uint32_t rnd(uint64_t *s, uint32_t n) { return (uint32_t)(rng_next(s) % n); }

static void *xcalloc(size_t n, size_t sz) {
    void *p = calloc(n ? n : 1, sz ? sz : 1);
    if (!p) {
        fprintf(stderr, "annotate: out of memory generating the program\n");
        exit(1);
    }
    return p;
}

/* Functions come in modules of AN_MODULE consecutive functions that call
 * each other freely (recursion and cycles included), as the parts of a real
 * program do.  Across modules only primitive values travel: a call into
 * another module passes constants and its result lands in the caller's
 * sink variable, which no operation reads.  So allocation sites stay in
 * their module and annotations stay the size they have in real programs,
 * while the worklist still links every module to others. */
#define AN_MODULE 16

/* A function in f's module. */
static uint32_t pick_local_callee(uint64_t *s, int f, int n) {
    int lo = f / AN_MODULE * AN_MODULE;
    int hi = lo + AN_MODULE < n ? lo + AN_MODULE : n;
    return (uint32_t)lo + rnd(s, (uint32_t)(hi - lo));
}

/* A variable in [0, limit) other than the constants (is_prim) when
 * avoid_prim; falls back to variable 0 (a parameter). */
static uint16_t pick_var(uint64_t *s, const uint8_t *is_prim, int limit, int avoid_prim) {
    for (int tries = 0; tries < 8; tries++) {
        uint16_t v = (uint16_t)rnd(s, (uint32_t)limit);
        if (!avoid_prim || !is_prim[v])
            return v;
    }
    return 0;
}

static void add_site(an_program *p, an_op *op, int is_dict, size_t *cap) {
    if ((size_t)p->nconts == *cap) {
        *cap *= 2;
        p->site_is_dict = realloc(p->site_is_dict, *cap);
        if (!p->site_is_dict) {
            fprintf(stderr, "annotate: out of memory generating the program\n");
            exit(1);
        }
    }
    p->site_is_dict[p->nconts] = (uint8_t)is_dict;
    op->opcode = is_dict ? AN_NEWDICT : AN_NEWLIST;
    op->x = (uint32_t)p->nconts++;
}

/* Defines local l of function f (of n) by one op from earlier variables: a
 * constant (marked in is_prim), a container site, a copy, a binary op, a
 * local call or a function reference. */
static void gen_local(an_program *p, uint64_t *s, an_op *op, int l, int f, int n, uint8_t *is_prim, size_t *conts_cap) {
    op->res = (uint16_t)l;
    uint32_t r = rnd(s, 100);
    if (r < 30) {
        op->opcode = AN_CONST;
        op->x = 1u << rnd(s, 5);
        is_prim[l] = 1;
    } else if (r < 40) {
        add_site(p, op, 0, conts_cap);
    } else if (r < 48) {
        add_site(p, op, 1, conts_cap);
    } else if (r < 62) {
        op->opcode = AN_COPY;
        op->a = (uint16_t)rnd(s, (uint32_t)l);
    } else if (r < 72) {
        op->opcode = AN_BINOP;
        op->a = (uint16_t)rnd(s, (uint32_t)l);
        op->b = (uint16_t)rnd(s, (uint32_t)l);
    } else if (r < 92) {
        op->opcode = AN_CALL;
        op->x = pick_local_callee(s, f, n);
        op->nargs = (uint8_t)(1 + rnd(s, 3));
        for (int i = 0; i < op->nargs; i++)
            op->args[i] = (uint16_t)rnd(s, (uint32_t)l);
    } else {
        op->opcode = AN_FUNCREF;
        op->x = pick_local_callee(s, f, n);
    }
}

/* One use after the module call: a container access, a call (local or
 * indirect), a copy or a binary op; results never go to a constant or the
 * sink, operands never come from the sink. */
static void gen_use(uint64_t *s, an_op *op, const uint8_t *is_prim, int sink, int f, int n) {
    uint32_t r = rnd(s, 100);
    uint16_t res = pick_var(s, is_prim, sink, 1);
    uint16_t v2 = (uint16_t)rnd(s, (uint32_t)sink);
    uint16_t v3 = (uint16_t)rnd(s, (uint32_t)sink);
    if (r < 18) {
        op->opcode = AN_SETELEM;
        op->a = v2;
        op->b = v3;
    } else if (r < 34) {
        op->opcode = AN_GETELEM;
        op->res = res;
        op->a = v2;
    } else if (r < 46) {
        op->opcode = AN_SETITEM;
        op->a = v2;
        op->b = v3;
        op->nargs = 1;
        op->args[0] = (uint16_t)rnd(s, (uint32_t)sink);
    } else if (r < 56) {
        op->opcode = AN_GETITEM;
        op->res = res;
        op->a = v2;
    } else if (r < 74) {
        op->opcode = AN_CALL;
        op->res = res;
        op->x = pick_local_callee(s, f, n);
        op->nargs = (uint8_t)(1 + rnd(s, 3));
        for (int i = 0; i < op->nargs; i++)
            op->args[i] = (uint16_t)rnd(s, (uint32_t)sink);
    } else if (r < 82) {
        op->opcode = AN_CALLIND;
        op->res = res;
        op->a = v2;
        op->nargs = (uint8_t)(1 + rnd(s, 3));
        for (int i = 0; i < op->nargs; i++)
            op->args[i] = (uint16_t)rnd(s, (uint32_t)sink);
    } else if (r < 92) {
        op->opcode = AN_COPY;
        op->res = res;
        op->a = v2;
    } else {
        op->opcode = AN_BINOP;
        op->res = res;
        op->a = v2;
        op->b = v3;
    }
}

/* Function f of n: its locals, the call into another module (constants in,
 * result to the sink), its uses, and the return. */
static void gen_function(an_program *p, uint64_t *s, int f, int n, size_t *conts_cap) {
    an_fn *fn = &p->fns[f];
    fn->nparams = 1 + (int)rnd(s, 3);
    int nlocals = 3 + (int)rnd(s, 6);
    fn->nvars = fn->nparams + nlocals + 1; /* the last variable is the sink */
    int sink = fn->nvars - 1;
    int extra = 4 + (int)rnd(s, 10);
    uint8_t is_prim[32] = {0};
    fn->ops = xcalloc((size_t)(nlocals + 1 + extra + 1), sizeof *fn->ops);
    /* Defines each local, in order, from earlier variables. */
    for (int l = fn->nparams; l < sink; l++)
        gen_local(p, s, &fn->ops[fn->nops++], l, f, n, is_prim, conts_cap);
    /* The call into another module: constants in, result to the sink. */
    {
        an_op *op = &fn->ops[fn->nops++];
        op->opcode = AN_CALL;
        op->res = (uint16_t)sink;
        op->x = rnd(s, (uint32_t)n);
        for (int v = 0; v < sink && op->nargs < 3; v++)
            if (is_prim[v] && rnd(s, 2))
                op->args[op->nargs++] = (uint16_t)v;
    }
    /* Then uses of containers, more calls and assignments; results never
     * go to a constant or the sink, operands never come from the sink. */
    for (int k = 0; k < extra; k++)
        gen_use(s, &fn->ops[fn->nops++], is_prim, sink, f, n);
    an_op *ret = &fn->ops[fn->nops++];
    ret->opcode = AN_RETURN;
    ret->a = (uint16_t)rnd(s, (uint32_t)sink);
}

/* The program of n functions from the seed 0x5eed0000 + n, one function at a
 * time. */
an_program *an_generate(int n) {
    an_program *p = xcalloc(1, sizeof *p);
    uint64_t s = 0x5eed0000u + (uint64_t)n;
    p->nfuncs = n;
    p->fns = xcalloc((size_t)n, sizeof *p->fns);
    size_t conts_cap = 1024;
    p->site_is_dict = xcalloc(conts_cap, 1);
    for (int f = 0; f < n; f++)
        gen_function(p, &s, f, n, &conts_cap);
    p->nsites = p->nconts + n;
    return p;
}

void an_free(an_program *p) {
    for (int f = 0; f < p->nfuncs; f++)
        free(p->fns[f].ops);
    free(p->fns);
    free(p->site_is_dict);
    free(p);
}
