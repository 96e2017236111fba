/* ip_parse.h - interp's front end: lexer, parser and name resolver, producing
 * the syntax tree the evaluator walks (LANGUAGE.md is the reference).
 *
 * Invariants:
 *  - The tree lives in C memory for the whole run; it never points into the
 *    heap.  Literal numbers and strings are heap objects in the constant
 *    table ip_consts (a List registered as a global root); nodes refer to
 *    them by index.
 *  - After ip_parse() returns, every name is resolved: a variable is
 *    (depth, index) = how many Env parents to follow from the current Env,
 *    then which slot; a builtin is its index in ip_builtins.  Variables
 *    are function-scoped (let declares for the whole function, like var in
 *    JavaScript), so each call allocates one Env with every slot nil.
 *  - Errors in the program text (syntax, undefined names, nesting deeper
 *    than IP_MAX_NESTING) print
 *    "<file>:<line>:<col>: <message>" on stderr and exit with status 2; no
 *    code runs.
 */
#ifndef IP_PARSE_H
#define IP_PARSE_H

#include <stdint.h>
#include "sgc.h"

typedef enum ip_kind {
    /* expressions */
    N_CONST, /* ip_consts[index] */
    N_NIL,
    N_TRUE,
    N_FALSE,
    N_VAR,     /* variable at (depth, index) */
    N_BUILTIN, /* builtin number index, as a value */
    N_LIST,    /* [kids...] */
    N_DICT,    /* {kids[0]: kids[1], ...} */
    N_FN,      /* a closure of fn */
    N_CALL,    /* a(kids...) */
    N_CALLB,   /* builtin index applied to kids */
    N_INDEX,   /* a[b] */
    N_FIELD,   /* a.name, with the name's Str at ip_consts[index] */
    N_NEG,     /* -a */
    N_NOT,     /* not a */
    N_BINOP,   /* a op b */
    N_AND,
    N_OR,
    /* statements */
    S_EXPR,      /* a, value dropped */
    S_ASSIGN,    /* a = b (a is N_VAR, N_INDEX or N_FIELD); op != 0: a op= b */
    S_IF,        /* if a then b else c (c: NULL, a block, or another S_IF) */
    S_WHILE,     /* while a do b */
    S_FOR_RANGE, /* for var (depth,index) in a .. b do c */
    S_FOR_IN,    /* for var (depth,index) in a do c */
    S_RETURN,    /* return a (a may be NULL) */
    S_BREAK,
    S_CONTINUE,
    S_BLOCK /* kids in order */
} ip_kind;

/* Binary operators (ip_node.op). */
enum {
    OP_ADD = 1,
    OP_SUB,
    OP_MUL,
    OP_DIV,
    OP_FDIV,
    OP_MOD,
    OP_EQ,
    OP_NE,
    OP_LT,
    OP_LE,
    OP_GT,
    OP_GE,
    OP_BAND,
    OP_BOR,
    OP_BXOR,
    OP_SHL,
    OP_SHR
};

struct ip_fndef;

typedef struct ip_node {
    uint8_t kind;         /* ip_kind */
    uint8_t op;           /* operator for N_BINOP and compound S_ASSIGN */
    int line, col;        /* where it starts in the source */
    int32_t depth, index; /* resolved variable, constant or builtin */
    const char *name;     /* variable / field / builtin name (for messages) */
    struct ip_node *a, *b, *c;
    struct ip_node **kids;
    int nkids;
    struct ip_fndef *fn; /* N_FN */
} ip_node;

/* A guest function (or the top level, "<module>"). */
typedef struct ip_fndef {
    sgc_func func;           /* names this function's runtime frames in profiles */
    char *name;              /* guest name, or "<fn@LINE>" for a fn expression */
    int line;                /* where it is defined */
    int nparams;             /* the first nparams slots are the parameters */
    int nslots;              /* parameters + locals */
    char **slots;            /* slot names */
    ip_node *body;           /* S_BLOCK */
    struct ip_fndef *parent; /* lexically enclosing function, NULL for the top level */
} ip_fndef;

extern sgc_obj ip_consts; /* List of literal constants (global root) */

/* The builtins, one table (defined with their functions in ip_eval.c): a
 * builtin's index in it is the number its resolved name or call carries.
 * The function gets the call's node (for errors), its own index and its
 * argc arguments at ip_stack[base ...], the arity already checked. */
typedef sgc_obj (*ip_builtin_fn)(ip_node *n, int self, int base, int argc);
typedef struct ip_builtin_def {
    const char *name;
    int arity; /* -1: any number */
    ip_builtin_fn fn;
} ip_builtin_def;
extern const ip_builtin_def ip_builtins[];
extern const int ip_nbuiltins;

/* The deepest nesting of expressions and blocks a program may have (its
 * syntax tree's depth, and the parser's recursion); deeper is an error in
 * the program text, so the parser, resolver and evaluator cannot exhaust the
 * C stack on any program. */
#define IP_MAX_NESTING 1000

/* The C stack the parser and the evaluator may use: from ip_stack_base
 * (set by the first ip_stack_init: ip_parse's frame) down ip_stack_budget
 * bytes, the stack limit (ulimit -s, at most 64 MiB) less 512 KiB kept for
 * the collector, the samplers' signal handlers and an error's traceback.
 * Both check it at every level they recurse, so no program and no stack
 * size or build (a sanitizer's frames are several times larger) makes them
 * crash: the parser reports "nested too deeply", the evaluator "recursion
 * too deep". */
extern const char *ip_stack_base;
extern size_t ip_stack_budget;
void ip_stack_init(const void *base);
static inline int ip_stack_spent(void) {
    return (size_t)(ip_stack_base - (const char *)__builtin_frame_address(0)) > ip_stack_budget;
}

/* Parses and resolves source (len bytes, named file in messages).  Returns
 * the top level, whose slots are the global variables.  Exits 2 with a
 * message on any error in the text. */
ip_fndef *ip_parse(const char *file, const char *source, size_t len);

#endif /* IP_PARSE_H */
