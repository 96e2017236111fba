/* ip_value.h - the value model of the interp language: every guest value and
 * environment is a runtime (sgc) object of a registered, named type.
 *
 * Invariants:
 *  - A guest value is an sgc_obj or NULL; NULL is nil.  Int, Float, Str and
 *    Bool objects are immutable once built; List, Dict and Env are mutable
 *    and every pointer store into them goes through the write barrier.
 *  - Raw sgc_obj values held in C locals are valid only until the next
 *    allocation (the nursery moves objects).  Anything that must survive an
 *    allocation lives in a root: the value stack (ip_stack, below), a frame
 *    root slot, or one of the registered globals.  Functions here that
 *    allocate say so; their arguments are read before they allocate or are
 *    taken from the value stack.
 *  - The value stack is a single runtime frame at the bottom of the shadow
 *    stack (named "<module>", so profiles show guest frames above it) whose
 *    root count is the stack depth: the collector scans exactly the live
 *    slots, and popping a slot needs no clearing.
 *  - Str objects carry their length and FNV-1a hash and a NUL after the
 *    bytes; equal strings have equal hashes.  Dict keys are Int, Str or Bool
 *    (hashing is by content, so iteration order is deterministic).
 */
#ifndef IP_VALUE_H
#define IP_VALUE_H

#include <stdint.h>
#include <stdio.h>
#include "sgc.h"

/* Type ids, registered by ip_value_init(). */
extern uint32_t ip_t_int, ip_t_float, ip_t_bool, ip_t_str, ip_t_list, ip_t_items, ip_t_dict, ip_t_keys, ip_t_vals,
    ip_t_func, ip_t_builtin, ip_t_env;

typedef struct ip_int {
    int64_t v;
} ip_int; /* "Int" */
typedef struct ip_float {
    double v;
} ip_float; /* "Float" */
typedef struct ip_bool {
    int64_t v;
} ip_bool;              /* "Bool" (two objects only) */
typedef struct ip_str { /* "Str" */
    int64_t len;        /* bytes, not counting the NUL */
    uint64_t hash;      /* FNV-1a of the bytes */
    char b[];           /* len bytes then NUL */
} ip_str;
typedef struct ip_items {
    sgc_obj v[1];
} ip_items;              /* "ListItems", "DictKeys", "DictValues" */
typedef struct ip_list { /* "List" */
    sgc_obj items;       /* ListItems, capacity = its payload words; NULL when empty */
    int64_t len;         /* elements in use */
} ip_list;
typedef struct ip_dict { /* "Dict" (open addressing) */
    sgc_obj keys;        /* DictKeys, cap slots, NULL slot = free */
    sgc_obj vals;        /* DictValues, cap slots */
    int64_t count;       /* keys present */
    int64_t cap;         /* power of two >= 8 */
} ip_dict;
typedef struct ip_func { /* "Function": a closure */
    sgc_obj env;         /* the Env it closes over */
    void *def;           /* struct ip_fndef * (C memory, lives forever) */
} ip_func;
typedef struct ip_builtin {
    int64_t index;
} ip_builtin;           /* "Builtin" */
typedef struct ip_env { /* "Env": a function activation */
    sgc_obj parent;     /* enclosing Env, NULL for the globals */
    sgc_obj slot[];     /* parameters and locals */
} ip_env;

/* ---- The value stack ------------------------------------------------------ */

#define IP_STACK_MAX 65536
extern sgc_obj ip_stack[IP_STACK_MAX];
extern sgc_frame ip_stack_frame; /* its nroots is the stack pointer */
#define IP_SP (ip_stack_frame.nroots)

__attribute__((noreturn)) void ip_stack_overflow(void);
static inline void ip_push(sgc_obj v) {
    if (__builtin_expect(IP_SP >= IP_STACK_MAX, 0))
        ip_stack_overflow();
    ip_stack[IP_SP++] = v;
}
static inline sgc_obj ip_pop(void) { return ip_stack[--IP_SP]; }
/* The i-th value from the top (0 = top). */
#define IP_TOP(i) (ip_stack[IP_SP - 1 - (i)])

/* Registers the types and pushes the value-stack frame.  Once, before any
 * other function here. */
void ip_value_init(void);

/* The two booleans (global roots). */
extern sgc_obj ip_true, ip_false;
static inline sgc_obj ip_bool_of(int b) { return b ? ip_true : ip_false; }

/* ---- Constructors (all allocate) ------------------------------------------ */

sgc_obj ip_int_new(int64_t v);
sgc_obj ip_float_new(double v);
/* A Str with a copy of len bytes from b.  b must not point into the heap. */
sgc_obj ip_str_new(const char *b, int64_t len);
/* A Str of len bytes, uninitialised content, hash not yet set: fill s->b
 * then call ip_str_seal(). */
sgc_obj ip_str_alloc(int64_t len);
void ip_str_seal(sgc_obj s);
sgc_obj ip_list_new(int64_t cap);
sgc_obj ip_dict_new(void);
sgc_obj ip_env_new(int64_t nslots);

/* ---- Type tests and access -------------------------------------------------- */

#define IP_IS(v, t) ((v) != NULL && SGC_TYPE_OF(v) == (t))
#define IP_INT(o) (((ip_int *)(o))->v)
#define IP_FLOAT(o) (((ip_float *)(o))->v)
#define IP_STR(v) ((ip_str *)(v))
#define IP_LIST(v) ((ip_list *)(v))
#define IP_DICT(v) ((ip_dict *)(v))
#define IP_ENV(v) ((ip_env *)(v))

/* The guest-level name of v's type ("Int", "nil", ...). */
const char *ip_type_name(sgc_obj v);
/* Truth: nil, false, 0, 0.0, "", [] and {} are false. */
int ip_truthy(sgc_obj v);
/* Value equality: numbers by value (Int and Float compare), strings by
 * content, everything else by identity. */
int ip_equal(sgc_obj a, sgc_obj b);

/* ---- Lists and dicts ------------------------------------------------------ */

/* Appends the top of the value stack to the list just below it, pops the
 * value (the list stays).  Allocates when the list grows. */
void ip_list_push_top(void);

/* Can v be a dict key? */
int ip_hashable(sgc_obj v);
/* The value for key, or *found = 0.  Does not allocate. */
sgc_obj ip_dict_get(sgc_obj dict, sgc_obj key, int *found);
/* dict[key] = value with dict, key, value the top three of the value stack
 * (value on top); pops all three.  Key must be hashable.  Allocates when
 * the table grows. */
void ip_dict_set_top(void);

/* ---- Text ------------------------------------------------------------------ */

/* Appends the text form of v to a malloc'd buffer (repr: strings quoted
 * inside containers).  Does not allocate on the heap. */
typedef struct ip_buf {
    char *b;
    size_t len, cap;
} ip_buf;
void ip_buf_add(ip_buf *buf, const char *s, size_t n);
void ip_format(ip_buf *buf, sgc_obj v, int repr);

#endif /* IP_VALUE_H */
