/* annotate.c - the annotate workload: whole-program type inference over a
 * generated program, by a worklist fixpoint whose every set, map and queue
 * lives on the sgc heap.
 *
 * It models the annotation step of PyPy's translation toolchain, one of the
 * paper's four benchmarks: an abstract interpreter that flows "SomeValue"
 * annotations (a kind mask and a set of allocation sites: lists, dicts,
 * functions) through the flow graphs of a whole program, generalising them
 * monotonically and re-flowing a function whenever something it read
 * changed - a callee's result, a container's contents, its own parameters.
 * Like the annotator it allocates a fresh annotation at every step,
 * replaces bindings as they generalise (so the old ones die after living a
 * while), and keeps the program's graphs, the dependency sets and the
 * worklist alive throughout: many mid-lived objects and heavy promotion.
 *
 * The program (an_gen.c) is generated deterministically from --size (the
 * number of functions) and copied onto the heap as FlowFunction and
 * Operation objects.  The checksum covers the whole fixpoint: every
 * variable's annotation, every function's result, every container's
 * contents (order documented in an_ref.h).  --check recomputes the fixpoint
 * with a different algorithm outside the heap (an_ref.c).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../wl_common.h"
#include "an_gen.h"
#include "an_ref.h"

/* ---- Heap objects ---------------------------------------------------------- */

typedef struct an_value { /* "SomeValue": immutable once built */
    sgc_obj sites;        /* SiteSet (sorted ids), or NULL for none */
    int64_t kinds;        /* AN_K_* mask */
} an_value;

typedef struct an_words {
    uint64_t w[1];
} an_words; /* "SiteSet", "FuncSet", "ArgList", "WorkItems" */
typedef struct an_ptrs {
    sgc_obj p[1];
} an_ptrs; /* "OpList", "Bindings", "FuncTable", "SiteTable" */

typedef struct an_func { /* "FlowFunction" */
    sgc_obj ops;         /* OpList of Operation */
    sgc_obj bindings;    /* Bindings: SomeValue or NULL (nothing yet) per variable */
    int64_t nparams, nvars, nops;
} an_func;

typedef struct an_operation { /* "Operation" */
    sgc_obj args;             /* ArgList or NULL */
    int64_t opcode, res, a, b, x;
} an_operation;

typedef struct an_state { /* "Annotator": everything the fixpoint keeps */
    sgc_obj funcs;        /* FuncTable of FlowFunction */
    sgc_obj returns;      /* FuncTable of SomeValue: each function's result */
    sgc_obj callers;      /* FuncTable of FuncSet: who called each function */
    sgc_obj elems;        /* SiteTable of SomeValue: list elements */
    sgc_obj dkeys;        /* SiteTable of SomeValue: dict keys */
    sgc_obj dvals;        /* SiteTable of SomeValue: dict values */
    sgc_obj readers;      /* SiteTable of FuncSet: who read each container */
    sgc_obj queue;        /* WorkItems: ring of function ids */
    sgc_obj pending;      /* PendingFlags: 1 if the function is in the queue */
    sgc_obj site_is_dict; /* SiteKinds: 1 per dict site */
    int64_t head, count;  /* the ring's first item and length */
    int64_t nfuncs, nconts, nsites;
    int64_t flows; /* functions flowed (for --verbose) */
} an_state;

static uint32_t t_cells, t_value, t_siteset, t_funcset, t_args, t_items, t_oplist, t_bindings, t_functable, t_sitetable,
    t_func, t_operation, t_state, t_pending, t_sitekinds;

static sgc_obj an_st; /* the Annotator (global root) */
#define ST ((an_state *)an_st)

static int64_t set_len(sgc_obj s) { return s ? (int64_t)(SGC_PAYLOAD_BYTES(s) / 8) : 0; }
#define W(s) (((an_words *)(s))->w)
#define P(s) (((an_ptrs *)(s))->p)

/* ---- Sorted sets --------------------------------------------------------------- */

/* Is every element of a in b?  (Both sorted; NULL is empty.) */
static int set_subset(sgc_obj a, sgc_obj b) {
    int64_t na = set_len(a), nb = set_len(b), j = 0;
    for (int64_t i = 0; i < na; i++) {
        while (j < nb && W(b)[j] < W(a)[i])
            j++;
        if (j == nb || W(b)[j] != W(a)[i])
            return 0;
    }
    return 1;
}

/* A new set *a U *b of type tid (the slots are roots; reread after the
 * allocation). */
static sgc_obj set_union(sgc_obj *a, sgc_obj *b, uint32_t tid) {
    int64_t na = set_len(*a), nb = set_len(*b), i = 0, j = 0, n = 0;
    while (i < na || j < nb) {
        if (j == nb || (i < na && W(*a)[i] < W(*b)[j]))
            i++;
        else if (i == na || W(*b)[j] < W(*a)[i])
            j++;
        else
            i++, j++;
        n++;
    }
    sgc_obj r = sgc_alloc(tid, (size_t)n * 8);
    i = j = n = 0;
    while (i < na || j < nb) {
        if (j == nb || (i < na && W(*a)[i] < W(*b)[j]))
            W(r)[n++] = W(*a)[i++];
        else if (i == na || W(*b)[j] < W(*a)[i])
            W(r)[n++] = W(*b)[j++];
        else
            W(r)[n++] = W(*a)[i++], j++;
    }
    return r;
}

/* A one-element set. */
static sgc_obj set_of(uint64_t x, uint32_t tid) {
    sgc_obj s = sgc_alloc(tid, 8);
    W(s)[0] = x;
    return s;
}

/* table[i] := table[i] U {x} for a table of FuncSets; returns 1 if it grew. */
static int funcset_add(sgc_obj *table, int64_t i, uint64_t x) {
    sgc_obj old = NULL, one = NULL;
    SGC_FRAME(&old, &one);
    old = P(*table)[i];
    for (int64_t k = 0; k < set_len(old); k++)
        if (W(old)[k] == x)
            return 0;
    one = set_of(x, t_funcset);
    sgc_obj u = set_union(&old, &one, t_funcset);
    P(*table)[i] = u;
    sgc_write_barrier(*table);
    return 1;
}

/* ---- Annotations -------------------------------------------------------------- */

static sgc_obj value_new(int64_t kinds, sgc_obj *sites) {
    an_value *v = SGC_NEW(t_value, an_value);
    v->kinds = kinds;
    SGC_SET(v, sites, *sites);
    return v;
}

static sgc_obj value_of_kinds(int64_t kinds) {
    sgc_obj none = NULL;
    return value_new(kinds, &none);
}

static sgc_obj value_of_site(uint64_t site) {
    sgc_obj s = NULL;
    SGC_FRAME(&s);
    s = set_of(site, t_siteset);
    return value_new(0, &s);
}

/* table[i] := table[i] U *add (a Bindings, FuncTable or SiteTable of
 * SomeValue).  Returns 1 if the annotation grew.  Builds a new SomeValue
 * when it does: annotations are never changed in place. */
static int join_into(sgc_obj *table, int64_t i, sgc_obj *add) {
    if (*add == NULL)
        return 0;
    sgc_obj old = P(*table)[i];
    if (old == NULL) {
        P(*table)[i] = *add;
        sgc_write_barrier(*table);
        return 1;
    }
    an_value *o = old, *a = *add;
    int64_t kinds = o->kinds | a->kinds;
    int grow_sites = !set_subset(a->sites, o->sites);
    if (kinds == o->kinds && !grow_sites)
        return 0;
    sgc_obj sa = NULL, sb = NULL, ns = NULL;
    SGC_FRAME(&sa, &sb, &ns);
    sa = o->sites;
    sb = a->sites;
    ns = grow_sites ? set_union(&sa, &sb, t_siteset) : sa;
    sgc_obj v = value_new(kinds, &ns);
    P(*table)[i] = v;
    sgc_write_barrier(*table);
    return 1;
}

/* ---- The worklist ------------------------------------------------------------ */

static void schedule(int64_t f) {
    unsigned char *pend = (unsigned char *)ST->pending;
    if (pend[f])
        return;
    pend[f] = 1;
    W(ST->queue)[(ST->head + ST->count) % ST->nfuncs] = (uint64_t)f;
    ST->count++;
}

/* Schedules every function in the FuncSet set. */
static void schedule_all(sgc_obj set) {
    for (int64_t k = 0; k < set_len(set); k++)
        schedule((int64_t)W(set)[k]);
}

/* ---- Flowing one function ----------------------------------------------------- */

/* The flow of a call from function f (bindings *bind, operation *op whose
 * argument annotations are *cells) to function g.  Returns 1 if f's own
 * bindings grew. */
static int flow_call(int64_t f, sgc_obj *bind, sgc_obj *op, sgc_obj *cells, int64_t g) {
    sgc_obj callee = NULL, cb = NULL, val = NULL, tbl = NULL;
    SGC_FRAME(&callee, &cb, &val, &tbl);
    tbl = ST->callers;
    funcset_add(&tbl, g, (uint64_t)f);
    callee = P(ST->funcs)[g];
    cb = ((an_func *)callee)->bindings;
    an_operation *o = *op;
    int64_t n = set_len(o->args);
    if (n > ((an_func *)callee)->nparams)
        n = ((an_func *)callee)->nparams;
    int params_grew = 0;
    for (int64_t i = 0; i < n; i++) {
        val = P(*cells)[2 + i];
        params_grew |= join_into(&cb, i, &val);
    }
    if (params_grew)
        schedule(g);
    val = P(ST->returns)[g];
    return join_into(bind, ((an_operation *)*op)->res, &val);
}

/* The annotations of operation *op's operands, as the annotator gathers
 * them before each operation: [a, b, args...], a fresh ArgCells. */
static sgc_obj arg_cells(sgc_obj *bind, sgc_obj *op) {
    int64_t n = 2 + set_len(((an_operation *)*op)->args);
    sgc_obj c = sgc_alloc(t_cells, (size_t)n * sizeof(sgc_obj));
    an_operation *o = *op;
    P(c)[0] = P(*bind)[o->a];
    P(c)[1] = P(*bind)[o->b];
    for (int64_t i = 2; i < n; i++)
        P(c)[i] = P(*bind)[W(o->args)[i - 2]];
    sgc_write_barrier(c);
    return c;
}

/* Flows every operation of function f once, in order, notifying whoever
 * depends on what grew. */
static void flow_function(int64_t f) {
    sgc_obj fn = NULL, bind = NULL, op = NULL, val = NULL, sites = NULL, tbl = NULL, cells = NULL;
    SGC_FRAME(&fn, &bind, &op, &val, &sites, &tbl, &cells);
    fn = P(ST->funcs)[f];
    bind = ((an_func *)fn)->bindings;
    int64_t nops = ((an_func *)fn)->nops;
    int self_grew = 0;
    for (int64_t k = 0; k < nops; k++) {
        op = P(((an_func *)fn)->ops)[k];
        cells = arg_cells(&bind, &op);
        an_operation *o = op;
        int64_t res = o->res;
        switch (o->opcode) {
        case AN_CONST:
            val = value_of_kinds(o->x);
            self_grew |= join_into(&bind, res, &val);
            break;
        case AN_COPY:
            val = P(cells)[0];
            self_grew |= join_into(&bind, res, &val);
            break;
        case AN_BINOP: {
            an_value *a = P(cells)[0], *b = P(cells)[1];
            uint32_t kinds = an_binop_kinds(a ? (uint32_t)a->kinds : 0, b ? (uint32_t)b->kinds : 0);
            if (kinds) {
                val = value_of_kinds(kinds);
                self_grew |= join_into(&bind, res, &val);
            }
            break;
        }
        case AN_NEWLIST:
        case AN_NEWDICT:
            val = value_of_site(o->x);
            self_grew |= join_into(&bind, res, &val);
            break;
        case AN_FUNCREF:
            val = value_of_site((uint64_t)(ST->nconts + o->x));
            self_grew |= join_into(&bind, res, &val);
            break;
        case AN_RETURN:
            val = P(cells)[0];
            tbl = ST->returns;
            if (join_into(&tbl, f, &val))
                schedule_all(P(ST->callers)[f]);
            break;
        case AN_CALL: self_grew |= flow_call(f, &bind, &op, &cells, o->x); break;
        default: {
            /* the operations on every site the operand may hold: keep the
             * set in a root, it is immutable, so later growth of the
             * binding does not disturb this walk */
            an_value *a = P(cells)[0];
            sites = a ? a->sites : NULL;
            for (int64_t i = 0; i < set_len(sites); i++) {
                int64_t s = (int64_t)W(sites)[i];
                o = op;
                int is_func = s >= ST->nconts;
                int is_dict = !is_func && ((unsigned char *)ST->site_is_dict)[s];
                int is_list = !is_func && !is_dict;
                if (o->opcode == AN_SETELEM && is_list) {
                    val = P(cells)[1];
                    tbl = ST->elems;
                    if (join_into(&tbl, s, &val))
                        schedule_all(P(ST->readers)[s]);
                } else if (o->opcode == AN_GETELEM && is_list) {
                    tbl = ST->readers;
                    funcset_add(&tbl, s, (uint64_t)f);
                    val = P(ST->elems)[s];
                    self_grew |= join_into(&bind, ((an_operation *)op)->res, &val);
                } else if (o->opcode == AN_SETITEM && is_dict) {
                    val = P(cells)[1];
                    tbl = ST->dkeys;
                    int grew = join_into(&tbl, s, &val);
                    val = P(cells)[2];
                    tbl = ST->dvals;
                    grew |= join_into(&tbl, s, &val);
                    if (grew)
                        schedule_all(P(ST->readers)[s]);
                } else if (o->opcode == AN_GETITEM && is_dict) {
                    tbl = ST->readers;
                    funcset_add(&tbl, s, (uint64_t)f);
                    val = P(ST->dvals)[s];
                    self_grew |= join_into(&bind, ((an_operation *)op)->res, &val);
                } else if (o->opcode == AN_CALLIND && is_func) {
                    self_grew |= flow_call(f, &bind, &op, &cells, s - ST->nconts);
                }
            }
            break;
        }
        }
    }
    if (self_grew)
        schedule(f);
}

/* Runs the worklist until it is empty: the least fixpoint. */
static void annotate_all(void) {
    SGC_FRAME();
    for (int64_t f = 0; f < ST->nfuncs; f++)
        schedule(f);
    while (ST->count > 0) {
        int64_t f = (int64_t)W(ST->queue)[ST->head];
        ST->head = (ST->head + 1) % ST->nfuncs;
        ST->count--;
        ((unsigned char *)ST->pending)[f] = 0;
        ST->flows++;
        flow_function(f);
    }
}

/* ---- Building the heap program --------------------------------------------- */

static sgc_obj new_table(uint32_t tid, int64_t n) { return sgc_alloc(tid, (size_t)n * sizeof(sgc_obj)); }

/* Copies the generated program onto the heap: one FlowFunction per function
 * with its Operations, plus the empty tables of the fixpoint. */
static void build_state(const an_program *p) {
    sgc_obj fn = NULL, ops = NULL, op = NULL, args = NULL, t = NULL;
    SGC_FRAME(&fn, &ops, &op, &args, &t);
    an_st = SGC_NEW(t_state, an_state);
    ST->nfuncs = p->nfuncs;
    ST->nconts = p->nconts;
    ST->nsites = p->nsites;
#define FIELD_TABLE(field, tid, n) \
    t = new_table(tid, n);         \
    SGC_SET(ST, field, t)
    FIELD_TABLE(funcs, t_functable, p->nfuncs);
    FIELD_TABLE(returns, t_functable, p->nfuncs);
    FIELD_TABLE(callers, t_functable, p->nfuncs);
    FIELD_TABLE(elems, t_sitetable, p->nconts);
    FIELD_TABLE(dkeys, t_sitetable, p->nconts);
    FIELD_TABLE(dvals, t_sitetable, p->nconts);
    FIELD_TABLE(readers, t_sitetable, p->nconts);
#undef FIELD_TABLE
    t = sgc_alloc(t_items, (size_t)p->nfuncs * 8);
    SGC_SET(ST, queue, t);
    t = sgc_alloc(t_pending, (size_t)p->nfuncs);
    SGC_SET(ST, pending, t);
    t = sgc_alloc(t_sitekinds, (size_t)p->nconts);
    memcpy(t, p->site_is_dict, (size_t)p->nconts);
    SGC_SET(ST, site_is_dict, t);

    for (int f = 0; f < p->nfuncs; f++) {
        const an_fn *g = &p->fns[f];
        fn = SGC_NEW(t_func, an_func);
        ((an_func *)fn)->nparams = g->nparams;
        ((an_func *)fn)->nvars = g->nvars;
        ((an_func *)fn)->nops = g->nops;
        t = new_table(t_bindings, g->nvars);
        SGC_SET((an_func *)fn, bindings, t);
        ops = new_table(t_oplist, g->nops);
        SGC_SET((an_func *)fn, ops, ops);
        for (int k = 0; k < g->nops; k++) {
            const an_op *s = &g->ops[k];
            args = NULL;
            if (s->nargs) {
                args = sgc_alloc(t_args, (size_t)s->nargs * 8);
                for (int i = 0; i < s->nargs; i++)
                    W(args)[i] = s->args[i];
            }
            an_operation *o = SGC_NEW(t_operation, an_operation);
            o->opcode = s->opcode;
            o->res = s->res;
            o->a = s->a;
            o->b = s->b;
            o->x = s->x;
            SGC_SET(o, args, args);
            P(ops)[k] = o;
            sgc_write_barrier(ops);
        }
        P(ST->funcs)[f] = fn;
        sgc_write_barrier(ST->funcs);
    }
}

/* ---- Checksum ------------------------------------------------------------------- */

static void mix_value(wl_checksum *c, sgc_obj v) {
    an_value *a = v;
    sgc_obj s = a ? a->sites : NULL;
    wl_mix(c, a ? (uint64_t)a->kinds : 0);
    wl_mix(c, (uint64_t)set_len(s));
    for (int64_t i = 0; i < set_len(s); i++)
        wl_mix(c, W(s)[i]);
}

static void checksum_state(wl_checksum *c) {
    for (int64_t f = 0; f < ST->nfuncs; f++) {
        an_func *fn = P(ST->funcs)[f];
        for (int64_t v = 0; v < fn->nvars; v++)
            mix_value(c, P(fn->bindings)[v]);
        mix_value(c, P(ST->returns)[f]);
    }
    for (int64_t s = 0; s < ST->nconts; s++) {
        mix_value(c, P(ST->elems)[s]);
        mix_value(c, P(ST->dkeys)[s]);
        mix_value(c, P(ST->dvals)[s]);
    }
}

static uint64_t annotate_expected(const wl_run *run) {
    an_program *p = an_generate((int)run->size);
    uint64_t r = an_ref_checksum(p);
    an_free(p);
    return r;
}

int main(int argc, char **argv) {
    int verbose = 0;
    wl_option opts[] = {{"--verbose", WL_OPT_FLAG, &verbose, 0, 0, "print program and fixpoint statistics on stderr"},
                        {NULL, 0, NULL, 0, 0, NULL}};
    wl_spec spec = {"annotate",
                    "whole-program type inference on the sgc heap (the paper's PyPy "
                    "annotator benchmark)",
                    6500,
                    1,
                    60000,
                    "functions in the generated program",
                    opts};
    wl_run run = wl_start(&spec, argc, argv);

    t_cells = wl_type("ArgCells", 0, 0, SGC_VAR_PTRS);
    t_value = wl_type("SomeValue", sizeof(an_value), WL_PTR(an_value, sites), SGC_VAR_NONE);
    t_siteset = wl_type("SiteSet", 0, 0, SGC_VAR_WORDS);
    t_funcset = wl_type("FuncSet", 0, 0, SGC_VAR_WORDS);
    t_args = wl_type("ArgList", 0, 0, SGC_VAR_WORDS);
    t_items = wl_type("WorkItems", 0, 0, SGC_VAR_WORDS);
    t_pending = wl_type("PendingFlags", 0, 0, SGC_VAR_BYTES);
    t_sitekinds = wl_type("SiteKinds", 0, 0, SGC_VAR_BYTES);
    t_oplist = wl_type("OpList", 0, 0, SGC_VAR_PTRS);
    t_bindings = wl_type("Bindings", 0, 0, SGC_VAR_PTRS);
    t_functable = wl_type("FuncTable", 0, 0, SGC_VAR_PTRS);
    t_sitetable = wl_type("SiteTable", 0, 0, SGC_VAR_PTRS);
    t_func = wl_type("FlowFunction", sizeof(an_func), WL_PTR(an_func, ops) | WL_PTR(an_func, bindings), SGC_VAR_NONE);
    t_operation = wl_type("Operation", sizeof(an_operation), WL_PTR(an_operation, args), SGC_VAR_NONE);
    t_state = wl_type("Annotator", sizeof(an_state),
                      WL_PTR(an_state, funcs) | WL_PTR(an_state, returns) | WL_PTR(an_state, callers) |
                          WL_PTR(an_state, elems) | WL_PTR(an_state, dkeys) | WL_PTR(an_state, dvals) |
                          WL_PTR(an_state, readers) | WL_PTR(an_state, queue) | WL_PTR(an_state, pending) |
                          WL_PTR(an_state, site_is_dict),
                      SGC_VAR_NONE);
    sgc_global_root(&an_st);

    an_program *p = an_generate((int)run.size);
    build_state(p);
    int64_t nops = 0;
    for (int f = 0; f < p->nfuncs; f++)
        nops += p->fns[f].nops;
    an_free(p); /* from here on the program exists only on the heap */

    annotate_all();

    wl_checksum sum = WL_CHECKSUM_INIT;
    checksum_state(&sum);
    if (verbose) {
        int64_t nvals = 0, nsites = 0, maxsites = 0;
        for (int64_t f = 0; f < ST->nfuncs; f++) {
            an_func *fn = P(ST->funcs)[f];
            for (int64_t v = 0; v < fn->nvars; v++) {
                an_value *a = P(fn->bindings)[v];
                int64_t n = a ? set_len(a->sites) : 0;
                nvals++;
                nsites += n;
                maxsites = n > maxsites ? n : maxsites;
            }
        }
        fprintf(stderr,
                "annotate: %" PRId64 " functions, %" PRId64 " operations, %" PRId64 " container sites, %" PRId64
                " function flows, %.1f sites per variable (max %" PRId64 ")\n",
                ST->nfuncs, nops, ST->nconts, ST->flows, nvals ? (double)nsites / (double)nvals : 0.0, maxsites);
    }
    return wl_finish(&run, &sum, annotate_expected);
}
