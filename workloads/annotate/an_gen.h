/* an_gen.h - the synthetic program annotate analyses: a deterministic,
 * generated whole program of functions with calls, assignments, arithmetic
 * and containers, as plain C data.
 *
 * Invariants:
 *  - an_generate(n) is a pure function of n: the same n gives the same
 *    program on every machine (its own PRNG, no libc randomness).
 *  - Variables of a function are numbered 0..nvars-1, parameters first.
 *    Every operand names a variable of its own function; every callee is a
 *    function id < nfuncs; every site id is < nsites.
 *  - Sites: container allocation sites (lists and dicts) are numbered first,
 *    in program order; then function f's site is nconts + f (what a
 *    function reference points to).
 *  - Abstract values: a kind mask (AN_K_*) and a set of sites.  All transfer
 *    functions are monotone unions, so the least fixpoint is unique and any
 *    fair iteration order reaches it: the heap worklist solver and the
 *    reference's round-robin solver must agree exactly.
 */
#ifndef AN_GEN_H
#define AN_GEN_H

#include <stdint.h>

enum { AN_K_INT = 1, AN_K_FLOAT = 2, AN_K_STR = 4, AN_K_BOOL = 8, AN_K_NONE = 16 };

typedef enum an_opcode {
    AN_CONST = 0, /* res <- constant of kind x */
    AN_COPY,      /* res <- a */
    AN_BINOP,     /* res <- a op b (an_binop_kinds) */
    AN_NEWLIST,   /* res <- new list at site x */
    AN_NEWDICT,   /* res <- new dict at site x */
    AN_SETELEM,   /* a[...] = b: element of every list in a gets b */
    AN_GETELEM,   /* res <- element of every list in a */
    AN_SETITEM,   /* a[b] = args[0]: keys of every dict in a get b, values args[0] */
    AN_GETITEM,   /* res <- value of every dict in a */
    AN_FUNCREF,   /* res <- function x */
    AN_CALL,      /* res <- x(args...) */
    AN_CALLIND,   /* res <- a(args...): every function in a */
    AN_RETURN,    /* the function's result gets a */
    AN_NOPCODES
} an_opcode;

typedef struct an_op {
    uint8_t opcode;   /* an_opcode */
    uint8_t nargs;    /* entries in args */
    uint16_t res;     /* result variable */
    uint16_t a, b;    /* operand variables */
    uint32_t x;       /* kind, site or callee */
    uint16_t args[4]; /* argument variables (calls; SETITEM's value) */
} an_op;

typedef struct an_fn {
    int nparams; /* variables 0..nparams-1 */
    int nvars;   /* parameters and locals */
    int nops;
    an_op *ops;
} an_fn;

typedef struct an_program {
    int nfuncs;
    int nconts;            /* container sites */
    int nsites;            /* nconts + nfuncs */
    uint8_t *site_is_dict; /* per container site: 1 dict, 0 list */
    an_fn *fns;
} an_program;

/* The kinds a binary operation yields for operands of kinds ka and kb
 * (Python-like: int+int int, int+float float, str+str str, str%int str,
 * bool+bool int; None with anything: nothing). Monotone in both. */
uint32_t an_binop_kinds(uint32_t ka, uint32_t kb);

/* Generates the program with n functions (n >= 1), in malloc'd memory
 * (exits 1 on out of memory).  an_free releases it. */
an_program *an_generate(int n);
void an_free(an_program *p);

#endif /* AN_GEN_H */
