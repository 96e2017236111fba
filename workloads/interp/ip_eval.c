/* ip_eval.c - interp's tree-walking evaluator, builtins and guest tracebacks. */
#include "ip_eval.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ip_value.h"

wl_checksum ip_sum = WL_CHECKSUM_INIT;
int64_t ip_size = 1;

/* One active guest call, for tracebacks (C memory, on the C stack). */
typedef struct ip_callinfo {
    ip_fndef *def;            /* the function running */
    int line;                 /* the statement it is running */
    struct ip_callinfo *prev; /* its caller */
} ip_callinfo;

static ip_callinfo *ip_calls;
static int ip_depth;
static const char *ip_file;
static sgc_obj ip_ret;     /* the value a return statement hands to the call (global root) */
static sgc_obj ip_globals; /* the top level's Env (global root) */

enum { CTL_NORMAL = 0, CTL_BREAK, CTL_CONTINUE, CTL_RETURN };

/* Prints the guest stack outermost first.  Like Python, a run of more than
 * three identical entries (deep recursion) prints three and a count. */
static void tb_print(ip_callinfo *innermost) {
    int n = 0;
    for (ip_callinfo *c = innermost; c; c = c->prev)
        n++;
    ip_callinfo **calls = malloc((size_t)(n ? n : 1) * sizeof *calls);
    if (!calls)
        return;
    int i = n;
    for (ip_callinfo *c = innermost; c; c = c->prev)
        calls[--i] = c;
    int same = 0;
    for (i = 0; i < n; i++) {
        if (i > 0 && calls[i]->def == calls[i - 1]->def && calls[i]->line == calls[i - 1]->line)
            same++;
        else
            same = 0;
        if (same < 3)
            fprintf(stderr, "  File \"%s\", line %d, in %s\n", ip_file, calls[i]->line, calls[i]->def->name);
        if (same >= 3 && (i + 1 == n || calls[i + 1]->def != calls[i]->def || calls[i + 1]->line != calls[i]->line))
            fprintf(stderr, "  [previous line repeated %d more times]\n", same - 2);
    }
    free(calls);
}

/* A runtime error at node n: traceback, message, exit 1. */
__attribute__((noreturn, format(printf, 2, 3), cold)) static void rt_error(const ip_node *n, const char *fmt, ...) {
    va_list ap;
    fflush(stdout);
    if (ip_calls)
        ip_calls->line = n->line;
    fprintf(stderr, "Traceback (most recent call last):\n");
    tb_print(ip_calls);
    fprintf(stderr, "error: %s:%d:%d: ", ip_file, n->line, n->col);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    exit(1);
}

static sgc_obj eval(ip_node *n, sgc_obj *envp);
static int exec(ip_node *n, sgc_obj *envp);

/* ---- Variables --------------------------------------------------------- */

static inline sgc_obj env_at(sgc_obj env, int depth) {
    while (depth-- > 0)
        env = IP_ENV(env)->parent;
    return env;
}

static inline void var_store(sgc_obj env, int depth, int index, sgc_obj v) {
    env = env_at(env, depth);
    IP_ENV(env)->slot[index] = v;
    sgc_write_barrier(env);
}

/* ---- Arithmetic ------------------------------------------------------------- */

static inline int is_num(sgc_obj v) { return v && (SGC_TYPE_OF(v) == ip_t_int || SGC_TYPE_OF(v) == ip_t_float); }

static inline double num(sgc_obj v) { return SGC_TYPE_OF(v) == ip_t_int ? (double)IP_INT(v) : IP_FLOAT(v); }

static const char *op_name(int op) {
    static const char *const names[] = {
        "?", "+", "-", "*", "/", "//", "%", "==", "!=", "<", "<=", ">", ">=", "&", "|", "^", "<<", ">>"};
    return names[op];
}

/* Python's floor division and modulo on 64-bit ints (wrapping). */
static int64_t floordiv(int64_t a, int64_t b) {
    if (a == INT64_MIN && b == -1)
        return INT64_MIN;
    int64_t q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0)))
        q--;
    return q;
}

static int64_t floormod(int64_t a, int64_t b) {
    if (b == -1)
        return 0;
    int64_t r = a % b;
    if (r != 0 && ((r < 0) != (b < 0)))
        r += b;
    return r;
}

/* A new Str: the concatenation of the two Strs on top of the stack (they
 * stay there). */
static sgc_obj str_concat_top(void) {
    int64_t la = IP_STR(IP_TOP(1))->len, lb = IP_STR(IP_TOP(0))->len;
    ip_str *s = ip_str_alloc(la + lb);
    memcpy(s->b, IP_STR(IP_TOP(1))->b, (size_t)la);
    memcpy(s->b + la, IP_STR(IP_TOP(0))->b, (size_t)lb);
    ip_str_seal(s);
    return s;
}

/* Applies op to the two values on top of the stack (left below right), pops
 * them, returns the result.  n is the operator's node, for errors. */
__attribute__((noinline)) static sgc_obj binop_slow(ip_node *n, int op) {
    sgc_obj a = IP_TOP(1), b = IP_TOP(0), r;
    uint32_t ta = a ? SGC_TYPE_OF(a) : 0, tb = b ? SGC_TYPE_OF(b) : 0;
    if (op == OP_EQ || op == OP_NE) {
        int e = ip_equal(a, b);
        IP_SP -= 2;
        return ip_bool_of(op == OP_EQ ? e : !e);
    }
    if (is_num(a) && is_num(b)) {
        double x = num(a), y = num(b);
        IP_SP -= 2;
        switch (op) {
        case OP_ADD: return ip_float_new(x + y);
        case OP_SUB: return ip_float_new(x - y);
        case OP_MUL: return ip_float_new(x * y);
        case OP_DIV:
            if (y == 0.0)
                rt_error(n, "division by zero");
            return ip_float_new(x / y);
        case OP_FDIV:
            if (y == 0.0)
                rt_error(n, "division by zero");
            return ip_float_new(floor(x / y));
        case OP_MOD: {
            if (y == 0.0)
                rt_error(n, "modulo by zero");
            double m = fmod(x, y);
            if (m != 0.0 && ((m < 0) != (y < 0)))
                m += y;
            return ip_float_new(m);
        }
        case OP_LT: return ip_bool_of(x < y);
        case OP_LE: return ip_bool_of(x <= y);
        case OP_GT: return ip_bool_of(x > y);
        case OP_GE: return ip_bool_of(x >= y);
        default: break;
        }
        IP_SP += 2; /* restore for the error path below */
    }
    if (ta == ip_t_str && tb == ip_t_str) {
        if (op == OP_ADD) {
            r = str_concat_top();
            IP_SP -= 2;
            return r;
        }
        if (op >= OP_LT && op <= OP_GE) {
            ip_str *x = a, *y = b;
            int64_t m = x->len < y->len ? x->len : y->len;
            int c = memcmp(x->b, y->b, (size_t)m);
            if (c == 0)
                c = x->len < y->len ? -1 : x->len > y->len;
            IP_SP -= 2;
            return ip_bool_of(op == OP_LT ? c < 0 : op == OP_LE ? c <= 0 : op == OP_GT ? c > 0 : c >= 0);
        }
    }
    if (op == OP_MUL && (ta == ip_t_str || ta == ip_t_list) && tb == ip_t_int) {
        int64_t k = IP_INT(b) < 0 ? 0 : IP_INT(b);
        if (ta == ip_t_str) {
            int64_t l = IP_STR(a)->len;
            if (k > 0 && l > (INT64_C(1) << 40) / k)
                rt_error(n, "string repetition too large");
            ip_str *s = ip_str_alloc(l * k);
            for (int64_t i = 0; i < k; i++)
                memcpy(s->b + i * l, IP_STR(IP_TOP(1))->b, (size_t)l);
            ip_str_seal(s);
            IP_SP -= 2;
            return s;
        }
        int64_t l = IP_LIST(a)->len;
        if (k > 0 && l > (INT64_C(1) << 28) / k)
            rt_error(n, "list repetition too large");
        ip_push(ip_list_new(l * k));
        for (int64_t i = 0; i < k; i++)
            for (int64_t j = 0; j < l; j++) {
                ip_push(((ip_items *)IP_LIST(IP_TOP(2))->items)->v[j]);
                ip_list_push_top();
            }
        r = ip_pop();
        IP_SP -= 2;
        return r;
    }
    if (op == OP_ADD && ta == ip_t_list && tb == ip_t_list) {
        ip_push(ip_list_new(IP_LIST(a)->len + IP_LIST(b)->len));
        for (int s = 2; s >= 1; s--)
            for (int64_t j = 0; j < IP_LIST(IP_TOP(s))->len; j++) {
                ip_push(((ip_items *)IP_LIST(IP_TOP(s))->items)->v[j]);
                ip_list_push_top();
            }
        r = ip_pop();
        IP_SP -= 2;
        return r;
    }
    rt_error(n, "unsupported operand types for %s: %s and %s", op_name(op), ip_type_name(a), ip_type_name(b));
}

/* The fast path for Int op Int; everything else goes to binop_slow. */
static inline sgc_obj binop_top(ip_node *n, int op) {
    sgc_obj a = IP_TOP(1), b = IP_TOP(0);
    if (a && b && SGC_TYPE_OF(a) == ip_t_int && SGC_TYPE_OF(b) == ip_t_int) {
        int64_t x = IP_INT(a), y = IP_INT(b);
        switch (op) {
        case OP_ADD: IP_SP -= 2; return ip_int_new((int64_t)((uint64_t)x + (uint64_t)y));
        case OP_SUB: IP_SP -= 2; return ip_int_new((int64_t)((uint64_t)x - (uint64_t)y));
        case OP_MUL: IP_SP -= 2; return ip_int_new((int64_t)((uint64_t)x * (uint64_t)y));
        case OP_FDIV:
            if (y == 0)
                rt_error(n, "integer division by zero");
            IP_SP -= 2;
            return ip_int_new(floordiv(x, y));
        case OP_MOD:
            if (y == 0)
                rt_error(n, "integer modulo by zero");
            IP_SP -= 2;
            return ip_int_new(floormod(x, y));
        case OP_EQ: IP_SP -= 2; return ip_bool_of(x == y);
        case OP_NE: IP_SP -= 2; return ip_bool_of(x != y);
        case OP_LT: IP_SP -= 2; return ip_bool_of(x < y);
        case OP_LE: IP_SP -= 2; return ip_bool_of(x <= y);
        case OP_GT: IP_SP -= 2; return ip_bool_of(x > y);
        case OP_GE: IP_SP -= 2; return ip_bool_of(x >= y);
        case OP_BAND: IP_SP -= 2; return ip_int_new(x & y);
        case OP_BOR: IP_SP -= 2; return ip_int_new(x | y);
        case OP_BXOR: IP_SP -= 2; return ip_int_new(x ^ y);
        case OP_SHL:
        case OP_SHR:
            if (y < 0 || y > 63)
                rt_error(n, "shift count %" PRId64 " out of range 0..63", y);
            IP_SP -= 2;
            return ip_int_new(op == OP_SHL ? (int64_t)((uint64_t)x << y) : x >> y);
        default: break; /* "/" is float division */
        }
    }
    return binop_slow(n, op);
}

/* ---- Containers ---------------------------------------------------------- */

static int64_t index_of(ip_node *n, sgc_obj idx, int64_t len, const char *what) {
    if (!IP_IS(idx, ip_t_int))
        rt_error(n, "%s index must be an Int, not %s", what, ip_type_name(idx));
    int64_t i = IP_INT(idx);
    if (i < 0)
        i += len;
    if (i < 0 || i >= len)
        rt_error(n, "%s index %" PRId64 " out of range (length %" PRId64 ")", what, IP_INT(idx), len);
    return i;
}

/* container[key] with both on top of the stack; pops them. */
static sgc_obj index_top(ip_node *n) {
    sgc_obj c = IP_TOP(1), k = IP_TOP(0);
    uint32_t t = c ? SGC_TYPE_OF(c) : 0;
    if (t == ip_t_list) {
        int64_t i = index_of(n, k, IP_LIST(c)->len, "list");
        IP_SP -= 2;
        return ((ip_items *)IP_LIST(c)->items)->v[i];
    }
    if (t == ip_t_dict) {
        if (!ip_hashable(k))
            rt_error(n, "%s cannot be a dict key", ip_type_name(k));
        int found;
        sgc_obj v = ip_dict_get(c, k, &found);
        if (!found) {
            ip_buf b = {0};
            ip_format(&b, k, 1);
            rt_error(n, "key %s not in dict", b.b);
        }
        IP_SP -= 2;
        return v;
    }
    if (t == ip_t_str) {
        int64_t i = index_of(n, k, IP_STR(c)->len, "string");
        sgc_obj s = ip_str_alloc(1);
        IP_STR(s)->b[0] = IP_STR(IP_TOP(1))->b[i];
        ip_str_seal(s);
        IP_SP -= 2;
        return s;
    }
    rt_error(n, "%s cannot be indexed", ip_type_name(c));
}

/* container[key] = value, the three on top of the stack; pops them. */
static void store_top(ip_node *n) {
    sgc_obj c = IP_TOP(2);
    uint32_t t = c ? SGC_TYPE_OF(c) : 0;
    if (t == ip_t_list) {
        int64_t i = index_of(n, IP_TOP(1), IP_LIST(c)->len, "list");
        ip_items *it = IP_LIST(c)->items;
        it->v[i] = IP_TOP(0);
        sgc_write_barrier(it);
        IP_SP -= 3;
        return;
    }
    if (t == ip_t_dict) {
        if (!ip_hashable(IP_TOP(1)))
            rt_error(n, "%s cannot be a dict key", ip_type_name(IP_TOP(1)));
        ip_dict_set_top();
        return;
    }
    rt_error(n, "%s does not support item assignment", ip_type_name(c));
}

/* obj.name with obj on top of the stack; pops it. */
static sgc_obj field_top(ip_node *n) {
    sgc_obj c = IP_TOP(0);
    if (!IP_IS(c, ip_t_dict))
        rt_error(n, "%s has no field '%s' (fields belong to dicts)", ip_type_name(c), n->name);
    int found;
    sgc_obj key = ((ip_items *)IP_LIST(ip_consts)->items)->v[n->index];
    sgc_obj v = ip_dict_get(c, key, &found);
    if (!found)
        rt_error(n, "dict has no field '%s'", n->name);
    IP_SP -= 1;
    return v;
}

/* ---- Calls ------------------------------------------------------------------- */

static sgc_obj call_builtin(ip_node *n, int b, int base, int argc);

/* Calls the value at ip_stack[base] with the argc values above it.  The
 * caller pops them.  Returns the raw result. */
static sgc_obj call_value(ip_node *n, int base, int argc) {
    sgc_obj f = ip_stack[base];
    if (IP_IS(f, ip_t_builtin)) {
        int b = (int)((ip_builtin *)f)->index;
        int arity = ip_builtins[b].arity;
        if (arity >= 0 && arity != argc)
            rt_error(n, "%s() takes %d argument%s, %d given", ip_builtins[b].name, arity, arity == 1 ? "" : "s", argc);
        return call_builtin(n, b, base + 1, argc);
    }
    if (!IP_IS(f, ip_t_func))
        rt_error(n, "%s is not callable", ip_type_name(f));
    ip_fndef *def = ((ip_func *)f)->def;
    if (argc != def->nparams)
        rt_error(n, "%s() takes %d argument%s, %d given", def->name, def->nparams, def->nparams == 1 ? "" : "s", argc);
    if (ip_depth >= IP_MAX_DEPTH)
        rt_error(n, "recursion too deep (%d nested calls)", ip_depth);
    if (ip_calls)
        ip_calls->line = n->line;

    sgc_obj env = NULL;
    SGC_FRAME_FN(&def->func, &env);
    env = ip_env_new(def->nslots);
    IP_ENV(env)->parent = ((ip_func *)ip_stack[base])->env;
    for (int i = 0; i < argc; i++)
        IP_ENV(env)->slot[i] = ip_stack[base + 1 + i];
    sgc_write_barrier(env);

    ip_callinfo ci = {def, def->line, ip_calls};
    ip_calls = &ci;
    ip_depth++;
    ip_ret = NULL;
    if (exec(def->body, &env) != CTL_RETURN)
        ip_ret = NULL;
    ip_depth--;
    ip_calls = ci.prev;
    return ip_ret;
}

/* ---- Builtins ---------------------------------------------------------------- */

#define ARG(i) (ip_stack[base + (i)])

static sgc_obj builtin_str(sgc_obj v) {
    if (IP_IS(v, ip_t_str))
        return v;
    ip_buf b = {0};
    ip_format(&b, v, 0);
    sgc_obj s = ip_str_new(b.b, (int64_t)b.len);
    free(b.b);
    return s;
}

/* The argument a builtin does not accept: "NAME() does not accept TYPE". */
__attribute__((noreturn)) static void reject(ip_node *n, int self, sgc_obj a) {
    rt_error(n, "%s() does not accept %s", ip_builtins[self].name, ip_type_name(a));
}

/* Each builtin gets its call's node (for errors), its own index in
 * ip_builtins and its argc arguments at ip_stack[base ...]; the arity is
 * checked before. */
#define BUILTIN(fname) static sgc_obj fname(ip_node *n, int self, int base, int argc)
#define A0 (argc > 0 ? ARG(0) : NULL)
#define TA (argc > 0 && ARG(0) ? SGC_TYPE_OF(ARG(0)) : 0)

BUILTIN(bi_print) {
    ip_buf buf = {0};
    for (int i = 0; i < argc; i++) {
        if (i)
            ip_buf_add(&buf, " ", 1);
        ip_format(&buf, ARG(i), 0);
    }
    ip_buf_add(&buf, "\n", 1);
    fwrite(buf.b, 1, buf.len, stdout);
    free(buf.b);
    return NULL;
}

BUILTIN(bi_len) {
    sgc_obj a = A0;
    uint32_t ta = TA;
    if (ta == ip_t_str)
        return ip_int_new(IP_STR(a)->len);
    if (ta == ip_t_list)
        return ip_int_new(IP_LIST(a)->len);
    if (ta == ip_t_dict)
        return ip_int_new(IP_DICT(a)->count);
    reject(n, self, a);
}

BUILTIN(bi_str) { return builtin_str(A0); }

BUILTIN(bi_int) {
    sgc_obj a = A0;
    uint32_t ta = TA;
    if (ta == ip_t_int)
        return a;
    if (ta == ip_t_float) {
        double d = IP_FLOAT(a);
        if (!(d > -9.2e18 && d < 9.2e18))
            rt_error(n, "int(): %g does not fit in an Int", d);
        return ip_int_new((int64_t)d);
    }
    if (ta == ip_t_str) {
        int64_t v;
        if (wl_parse_int(IP_STR(a)->b, &v) != 0)
            rt_error(n, "int(): \"%s\" is not a whole number", IP_STR(a)->b);
        return ip_int_new(v);
    }
    reject(n, self, a);
}

BUILTIN(bi_float) {
    sgc_obj a = A0;
    uint32_t ta = TA;
    if (ta == ip_t_int || ta == ip_t_float)
        return ip_float_new(num(a));
    reject(n, self, a);
}

BUILTIN(bi_chr) {
    sgc_obj a = A0;
    if (TA == ip_t_int) {
        if (IP_INT(a) < 0 || IP_INT(a) > 255)
            rt_error(n, "chr(): %" PRId64 " is not a byte (0..255)", IP_INT(a));
        char c = (char)IP_INT(a);
        return ip_str_new(&c, 1);
    }
    reject(n, self, a);
}

BUILTIN(bi_ord) {
    sgc_obj a = A0;
    if (TA == ip_t_str) {
        if (IP_STR(a)->len != 1)
            rt_error(n, "ord() needs a string of length 1, not %" PRId64, IP_STR(a)->len);
        return ip_int_new((unsigned char)IP_STR(a)->b[0]);
    }
    reject(n, self, a);
}

BUILTIN(bi_push) {
    if (TA == ip_t_list) {
        ip_push(ARG(0));
        ip_push(ARG(1));
        ip_list_push_top();
        (void)ip_pop();
        return NULL;
    }
    reject(n, self, A0);
}

BUILTIN(bi_pop) {
    sgc_obj a = A0;
    if (TA == ip_t_list) {
        if (IP_LIST(a)->len == 0)
            rt_error(n, "pop() from an empty list");
        ip_items *it = IP_LIST(a)->items;
        sgc_obj v = it->v[--IP_LIST(a)->len];
        it->v[IP_LIST(a)->len] = NULL;
        return v;
    }
    reject(n, self, a);
}

/* A new List of the keys of the Dict at ip_stack[base]. */
static sgc_obj dict_keys(int base) {
    ip_push(ip_list_new(IP_DICT(ARG(0))->count));
    for (int64_t i = 0; i < IP_DICT(ARG(0))->cap; i++) {
        sgc_obj k = ((ip_items *)IP_DICT(ARG(0))->keys)->v[i];
        if (k) {
            ip_push(k);
            ip_list_push_top();
        }
    }
    return ip_pop();
}

BUILTIN(bi_keys) {
    if (TA == ip_t_dict)
        return dict_keys(base);
    reject(n, self, A0);
}

BUILTIN(bi_has) {
    sgc_obj a = A0;
    if (TA == ip_t_dict) {
        if (!ip_hashable(ARG(1)))
            return ip_false;
        int found;
        (void)ip_dict_get(a, ARG(1), &found);
        return ip_bool_of(found);
    }
    reject(n, self, a);
}

BUILTIN(bi_type) {
    const char *t = ip_type_name(A0);
    return ip_str_new(t, (int64_t)strlen(t));
}

BUILTIN(bi_error) {
    ip_buf buf = {0};
    ip_format(&buf, A0, 0);
    rt_error(n, "%s", buf.b);
}

BUILTIN(bi_sqrt) {
    sgc_obj a = A0;
    if (is_num(a))
        return ip_float_new(sqrt(num(a)));
    reject(n, self, a);
}

BUILTIN(bi_floor) {
    sgc_obj a = A0;
    uint32_t ta = TA;
    if (ta == ip_t_int)
        return a;
    if (ta == ip_t_float) {
        double d = floor(IP_FLOAT(a));
        if (!(d > -9.2e18 && d < 9.2e18))
            rt_error(n, "floor(): %g does not fit in an Int", d);
        return ip_int_new((int64_t)d);
    }
    reject(n, self, a);
}

BUILTIN(bi_abs) {
    sgc_obj a = A0;
    uint32_t ta = TA;
    if (ta == ip_t_int)
        return IP_INT(a) < 0 ? ip_int_new((int64_t)(0 - (uint64_t)IP_INT(a))) : a;
    if (ta == ip_t_float)
        return ip_float_new(fabs(IP_FLOAT(a)));
    reject(n, self, a);
}

/* min and max: the first argument when it is the smaller (min) or not the
 * smaller (max), else the second. */
static sgc_obj min_max(ip_node *n, int self, int base, int want_less) {
    sgc_obj a = ARG(0);
    if (is_num(a) && is_num(ARG(1))) {
        int less = (SGC_TYPE_OF(a) == ip_t_int && SGC_TYPE_OF(ARG(1)) == ip_t_int) ? IP_INT(a) < IP_INT(ARG(1))
                                                                                   : num(a) < num(ARG(1));
        return want_less == less ? a : ARG(1);
    }
    rt_error(n, "%s() needs two numbers, not %s and %s", ip_builtins[self].name, ip_type_name(a), ip_type_name(ARG(1)));
}

BUILTIN(bi_min) { return min_max(n, self, base, 1); }
BUILTIN(bi_max) { return min_max(n, self, base, 0); }

BUILTIN(bi_mix) {
    sgc_obj a = A0;
    uint32_t ta = TA;
    if (ta == ip_t_int) {
        wl_mix(&ip_sum, (uint64_t)IP_INT(a));
        return NULL;
    }
    if (ta == ip_t_float) {
        wl_mix_double(&ip_sum, IP_FLOAT(a));
        return NULL;
    }
    if (ta == ip_t_str) {
        wl_mix(&ip_sum, (uint64_t)IP_STR(a)->len);
        wl_mix(&ip_sum, IP_STR(a)->hash);
        return NULL;
    }
    if (ta == ip_t_bool) {
        wl_mix(&ip_sum, (uint64_t)((ip_bool *)a)->v);
        return NULL;
    }
    reject(n, self, a);
}

BUILTIN(bi_copy) {
    sgc_obj a = A0;
    uint32_t ta = TA;
    if (ta == ip_t_list) {
        ip_push(ip_list_new(IP_LIST(a)->len));
        for (int64_t i = 0; i < IP_LIST(ARG(0))->len; i++) {
            ip_push(((ip_items *)IP_LIST(ARG(0))->items)->v[i]);
            ip_list_push_top();
        }
        return ip_pop();
    }
    if (ta == ip_t_dict) {
        ip_push(ip_dict_new());
        for (int64_t i = 0; i < IP_DICT(ARG(0))->cap; i++) {
            sgc_obj k = ((ip_items *)IP_DICT(ARG(0))->keys)->v[i];
            if (!k)
                continue;
            ip_push(IP_TOP(0));
            ip_push(k);
            ip_push(((ip_items *)IP_DICT(ARG(0))->vals)->v[i]);
            ip_dict_set_top();
        }
        return ip_pop();
    }
    reject(n, self, a);
}

/* slice(x, lo, hi) */
BUILTIN(bi_slice) {
    sgc_obj a = A0;
    uint32_t ta = TA;
    if (!IP_IS(ARG(1), ip_t_int) || !IP_IS(ARG(2), ip_t_int))
        rt_error(n, "slice() bounds must be Ints");
    int64_t len = ta == ip_t_str ? IP_STR(a)->len : ta == ip_t_list ? IP_LIST(a)->len : -1;
    if (len < 0)
        reject(n, self, a);
    int64_t lo = IP_INT(ARG(1)), hi = IP_INT(ARG(2));
    lo = lo < 0 ? 0 : lo > len ? len : lo;
    hi = hi < lo ? lo : hi > len ? len : hi;
    if (ta == ip_t_str) {
        ip_str *s = ip_str_alloc(hi - lo);
        memcpy(s->b, IP_STR(ARG(0))->b + lo, (size_t)(hi - lo));
        ip_str_seal(s);
        return s;
    }
    ip_push(ip_list_new(hi - lo));
    for (int64_t i = lo; i < hi; i++) {
        ip_push(((ip_items *)IP_LIST(ARG(0))->items)->v[i]);
        ip_list_push_top();
    }
    return ip_pop();
}

/* join(list, sep) */
BUILTIN(bi_join) {
    sgc_obj a = A0;
    if (TA != ip_t_list || !IP_IS(ARG(1), ip_t_str))
        rt_error(n, "join() needs a List and a Str, not %s and %s", ip_type_name(a), ip_type_name(ARG(1)));
    ip_buf buf = {0};
    for (int64_t i = 0; i < IP_LIST(a)->len; i++) {
        if (i)
            ip_buf_add(&buf, IP_STR(ARG(1))->b, (size_t)IP_STR(ARG(1))->len);
        ip_format(&buf, ((ip_items *)IP_LIST(a)->items)->v[i], 0);
    }
    sgc_obj s = ip_str_new(buf.b ? buf.b : "", (int64_t)buf.len);
    free(buf.b);
    return s;
}

/* list(n, v) */
BUILTIN(bi_list) {
    sgc_obj a = A0;
    if (TA == ip_t_int) {
        int64_t k = IP_INT(a);
        if (k < 0 || k > (INT64_C(1) << 28))
            rt_error(n, "list(): length %" PRId64 " out of range", k);
        ip_push(ip_list_new(k));
        for (int64_t i = 0; i < k; i++) {
            ip_push(ARG(1));
            ip_list_push_top();
        }
        return ip_pop();
    }
    reject(n, self, a);
}

BUILTIN(bi_size) { return ip_int_new(ip_size); }

#undef BUILTIN
#undef A0
#undef TA

/* The builtins: name, arity (-1: any number), function.  A builtin's index
 * here is the number a resolved name or call carries (ip_parse.h). */
/* clang-format off */
const ip_builtin_def ip_builtins[] = {
    {"print",  -1, bi_print},
    {"len",     1, bi_len},
    {"str",     1, bi_str},
    {"int",     1, bi_int},
    {"float",   1, bi_float},
    {"chr",     1, bi_chr},
    {"ord",     1, bi_ord},
    {"push",    2, bi_push},
    {"pop",     1, bi_pop},
    {"keys",    1, bi_keys},
    {"has",     2, bi_has},
    {"type",    1, bi_type},
    {"error",   1, bi_error},
    {"sqrt",    1, bi_sqrt},
    {"floor",   1, bi_floor},
    {"abs",     1, bi_abs},
    {"min",     2, bi_min},
    {"max",     2, bi_max},
    {"mix",     1, bi_mix},
    {"copy",    1, bi_copy},
    {"slice",   3, bi_slice},
    {"join",    2, bi_join},
    {"list",    2, bi_list},
    {"size",    0, bi_size},
};
/* clang-format on */
const int ip_nbuiltins = (int)(sizeof ip_builtins / sizeof ip_builtins[0]);

static sgc_obj call_builtin(ip_node *n, int b, int base, int argc) { return ip_builtins[b].fn(n, b, base, argc); }

/* ---- Expressions --------------------------------------------------------------- */

/* The C stack is nearly used up (ip_stack_spent): a guest error, not a crash. */
__attribute__((noreturn, cold, noinline)) static void stack_spent(const ip_node *n) {
    rt_error(n, "recursion too deep for the C stack (%d nested calls, %zu KiB of stack; see ulimit -s)", ip_depth,
             ip_stack_budget >> 10);
}

static sgc_obj eval(ip_node *n, sgc_obj *envp) {
    if (__builtin_expect(ip_stack_spent(), 0))
        stack_spent(n);
    switch (n->kind) {
    case N_CONST: return ((ip_items *)IP_LIST(ip_consts)->items)->v[n->index];
    case N_NIL: return NULL;
    case N_TRUE: return ip_true;
    case N_FALSE: return ip_false;
    case N_VAR: return IP_ENV(env_at(*envp, n->depth))->slot[n->index];
    case N_BUILTIN: {
        ip_builtin *b = SGC_NEW(ip_t_builtin, ip_builtin);
        b->index = n->index;
        return b;
    }
    case N_LIST: {
        ip_push(ip_list_new(n->nkids));
        for (int i = 0; i < n->nkids; i++) {
            ip_push(eval(n->kids[i], envp));
            ip_list_push_top();
        }
        return ip_pop();
    }
    case N_DICT: {
        ip_push(ip_dict_new());
        for (int i = 0; i + 1 < n->nkids; i += 2) {
            ip_push(IP_TOP(0));
            ip_push(eval(n->kids[i], envp));
            if (!ip_hashable(IP_TOP(0)))
                rt_error(n->kids[i], "%s cannot be a dict key", ip_type_name(IP_TOP(0)));
            ip_push(eval(n->kids[i + 1], envp));
            ip_dict_set_top();
        }
        return ip_pop();
    }
    case N_FN: {
        ip_func *f = SGC_NEW(ip_t_func, ip_func);
        f->def = n->fn;
        SGC_SET(f, env, *envp);
        return f;
    }
    case N_CALL: {
        int base = (int)IP_SP;
        ip_push(eval(n->a, envp));
        for (int i = 0; i < n->nkids; i++)
            ip_push(eval(n->kids[i], envp));
        sgc_obj r = call_value(n, base, n->nkids);
        IP_SP = (uint32_t)base;
        return r;
    }
    case N_CALLB: {
        int base = (int)IP_SP;
        for (int i = 0; i < n->nkids; i++)
            ip_push(eval(n->kids[i], envp));
        if (ip_calls)
            ip_calls->line = n->line;
        sgc_obj r = call_builtin(n, n->index, base, n->nkids);
        IP_SP = (uint32_t)base;
        return r;
    }
    case N_INDEX:
        ip_push(eval(n->a, envp));
        ip_push(eval(n->b, envp));
        return index_top(n);
    case N_FIELD: ip_push(eval(n->a, envp)); return field_top(n);
    case N_NEG: {
        sgc_obj v = eval(n->a, envp);
        if (IP_IS(v, ip_t_int))
            return ip_int_new((int64_t)(0 - (uint64_t)IP_INT(v)));
        if (IP_IS(v, ip_t_float))
            return ip_float_new(-IP_FLOAT(v));
        rt_error(n, "cannot negate %s", ip_type_name(v));
    }
    case N_NOT: return ip_bool_of(!ip_truthy(eval(n->a, envp)));
    case N_BINOP:
        ip_push(eval(n->a, envp));
        ip_push(eval(n->b, envp));
        return binop_top(n, n->op);
    case N_AND: {
        sgc_obj v = eval(n->a, envp);
        return ip_truthy(v) ? eval(n->b, envp) : v;
    }
    case N_OR: {
        sgc_obj v = eval(n->a, envp);
        return ip_truthy(v) ? v : eval(n->b, envp);
    }
    default: rt_error(n, "internal error: node kind %d is not an expression", n->kind);
    }
}

/* ---- Statements ----------------------------------------------------------- */

static int exec_assign(ip_node *n, sgc_obj *envp) {
    ip_node *t = n->a;
    if (t->kind == N_VAR) {
        sgc_obj v;
        if (n->op) {
            ip_push(IP_ENV(env_at(*envp, t->depth))->slot[t->index]);
            ip_push(eval(n->b, envp));
            v = binop_top(n, n->op);
        } else {
            v = eval(n->b, envp);
        }
        var_store(*envp, t->depth, t->index, v);
        return CTL_NORMAL;
    }
    /* x[i] = v and x.f = v: container and key on the stack, then the value */
    ip_push(eval(t->a, envp));
    if (t->kind == N_INDEX)
        ip_push(eval(t->b, envp));
    else
        ip_push(((ip_items *)IP_LIST(ip_consts)->items)->v[t->index]);
    if (n->op) {
        ip_push(IP_TOP(1));
        ip_push(IP_TOP(1));
        ip_push(index_top(t));
        ip_push(eval(n->b, envp));
        ip_push(binop_top(n, n->op));
    } else {
        ip_push(eval(n->b, envp));
    }
    if (t->kind == N_FIELD && !IP_IS(IP_TOP(2), ip_t_dict))
        rt_error(t, "%s has no field '%s' (fields belong to dicts)", ip_type_name(IP_TOP(2)), t->name);
    store_top(t);
    return CTL_NORMAL;
}

static int exec_for(ip_node *n, sgc_obj *envp) {
    int base = (int)IP_SP;
    int ctl = CTL_NORMAL;
    if (n->kind == S_FOR_RANGE) {
        sgc_obj lo = eval(n->a, envp);
        if (!IP_IS(lo, ip_t_int))
            rt_error(n->a, "range start must be an Int, not %s", ip_type_name(lo));
        int64_t i = IP_INT(lo);
        sgc_obj hi = eval(n->b, envp);
        if (!IP_IS(hi, ip_t_int))
            rt_error(n->b, "range end must be an Int, not %s", ip_type_name(hi));
        int64_t end = IP_INT(hi);
        for (; i < end; i++) {
            sgc_obj v = ip_int_new(i); /* before reading *envp: the allocation may move the Env */
            var_store(*envp, n->depth, n->index, v);
            ctl = exec(n->c, envp);
            if (ctl == CTL_BREAK || ctl == CTL_RETURN)
                break;
        }
        return ctl == CTL_RETURN ? CTL_RETURN : CTL_NORMAL;
    }
    sgc_obj seq = eval(n->a, envp);
    if (IP_IS(seq, ip_t_dict)) { /* iterate over a snapshot of the keys */
        ip_push(seq);
        seq = dict_keys(base);
        IP_SP = (uint32_t)base;
    }
    if (!IP_IS(seq, ip_t_list) && !IP_IS(seq, ip_t_str))
        rt_error(n->a, "cannot iterate over %s", ip_type_name(seq));
    ip_push(seq);
    for (int64_t i = 0;; i++) {
        sgc_obj s = ip_stack[base];
        sgc_obj v;
        if (SGC_TYPE_OF(s) == ip_t_list) {
            if (i >= IP_LIST(s)->len)
                break;
            v = ((ip_items *)IP_LIST(s)->items)->v[i];
        } else {
            if (i >= IP_STR(s)->len)
                break;
            v = ip_str_alloc(1);
            IP_STR(v)->b[0] = IP_STR(ip_stack[base])->b[i];
            ip_str_seal(v);
        }
        var_store(*envp, n->depth, n->index, v);
        ctl = exec(n->c, envp);
        if (ctl == CTL_BREAK || ctl == CTL_RETURN)
            break;
    }
    IP_SP = (uint32_t)base;
    return ctl == CTL_RETURN ? CTL_RETURN : CTL_NORMAL;
}

static int exec(ip_node *n, sgc_obj *envp) {
    switch (n->kind) {
    case S_BLOCK:
        for (int i = 0; i < n->nkids; i++) {
            int c = exec(n->kids[i], envp);
            if (c != CTL_NORMAL)
                return c;
        }
        return CTL_NORMAL;
    case S_EXPR:
        ip_calls->line = n->line;
        (void)eval(n->a, envp);
        return CTL_NORMAL;
    case S_ASSIGN: ip_calls->line = n->line; return exec_assign(n, envp);
    case S_IF:
        ip_calls->line = n->line;
        if (ip_truthy(eval(n->a, envp)))
            return exec(n->b, envp);
        return n->c ? exec(n->c, envp) : CTL_NORMAL;
    case S_WHILE:
        for (;;) {
            ip_calls->line = n->line;
            if (!ip_truthy(eval(n->a, envp)))
                return CTL_NORMAL;
            int c = exec(n->b, envp);
            if (c == CTL_BREAK)
                return CTL_NORMAL;
            if (c == CTL_RETURN)
                return c;
        }
    case S_FOR_RANGE:
    case S_FOR_IN: ip_calls->line = n->line; return exec_for(n, envp);
    case S_RETURN:
        ip_calls->line = n->line;
        ip_ret = n->a ? eval(n->a, envp) : NULL;
        return CTL_RETURN;
    case S_BREAK: return CTL_BREAK;
    case S_CONTINUE: return CTL_CONTINUE;
    default: rt_error(n, "internal error: node kind %d is not a statement", n->kind);
    }
}

void ip_run(const char *file, ip_fndef *top) {
    ip_stack_init(__builtin_frame_address(0));
    ip_file = file;
    sgc_global_root(&ip_ret);
    sgc_global_root(&ip_globals);
    ip_globals = ip_env_new(top->nslots);
    ip_callinfo ci = {top, 1, NULL};
    ip_calls = &ci;
    int c = exec(top->body, &ip_globals);
    (void)c; /* the parser rejects return/break outside their context at top level */
    ip_calls = NULL;
}
