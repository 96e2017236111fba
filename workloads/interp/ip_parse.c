/* ip_parse.c - interp's lexer, recursive-descent parser and name resolver. */
#include "ip_parse.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include "ip_value.h"

sgc_obj ip_consts;

/* ---- Lexer ------------------------------------------------------------------ */

enum {
    T_EOF = 0,
    T_INT,
    T_FLOAT,
    T_STR,
    T_NAME,
    /* keywords */
    T_LET,
    T_FN,
    T_IF,
    T_ELIF,
    T_ELSE,
    T_WHILE,
    T_FOR,
    T_IN,
    T_RETURN,
    T_BREAK,
    T_CONTINUE,
    T_AND,
    T_OR,
    T_NOT,
    T_NIL,
    T_TRUE,
    T_FALSE,
    /* punctuation */
    T_LP,
    T_RP,
    T_LB,
    T_RB,
    T_LC,
    T_RC,
    T_COMMA,
    T_DOT,
    T_DOTDOT,
    T_COLON,
    T_SEMI,
    T_ASSIGN,
    T_PLUSEQ,
    T_MINUSEQ,
    T_STAREQ,
    T_PLUS,
    T_MINUS,
    T_STAR,
    T_SLASH,
    T_SLASHSLASH,
    T_PERCENT,
    T_EQ,
    T_NE,
    T_LT,
    T_LE,
    T_GT,
    T_GE,
    T_AMP,
    T_PIPE,
    T_CARET,
    T_SHL,
    T_SHR
};

static const char *const kw[] = {"let",   "fn",       "if",  "elif", "else", "while", "for",  "in",   "return",
                                 "break", "continue", "and", "or",   "not",  "nil",   "true", "false"};

typedef struct tok {
    int t;
    int line, col;
    const char *s; /* start in the source */
    int len;       /* bytes in the source */
    int64_t i;     /* T_INT */
    double f;      /* T_FLOAT */
    char *str;     /* T_STR: decoded text; T_NAME: the name (both in the arena) */
    int slen;      /* T_STR: decoded length */
} tok;

typedef struct parser {
    const char *file;
    const char *src, *end, *p;
    int line;
    const char *line_start;
    tok cur, prev;
    ip_fndef *fn; /* function being parsed */
    int loops;    /* loops enclosing the current statement, within fn */
    int nest;     /* open expressions and blocks being parsed (recursion depth) */
} parser;

__attribute__((noreturn, format(printf, 4, 5))) static void perr(parser *ps, int line, int col, const char *fmt, ...) {
    va_list ap;
    fflush(stdout);
    fprintf(stderr, "%s:%d:%d: ", ps->file, line, col);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    exit(2);
}

/* The parser recurses once per level of nesting (parentheses, brackets,
 * unary operators, blocks): past IP_MAX_NESTING levels the program is
 * refused like any other error in its text, before the C stack runs out. */
static void nest_enter(parser *ps) {
    if (++ps->nest > IP_MAX_NESTING)
        perr(ps, ps->cur.line, ps->cur.col, "nested too deeply (more than %d levels of expressions and blocks)",
             IP_MAX_NESTING);
    if (ip_stack_spent())
        perr(ps, ps->cur.line, ps->cur.col,
             "nested too deeply for the C stack (%d levels use more than %zu KiB; see ulimit -s)", ps->nest,
             ip_stack_budget >> 10);
}

const char *ip_stack_base;
size_t ip_stack_budget;

void ip_stack_init(const void *base) {
    if (ip_stack_base)
        return;
    struct rlimit rl;
    size_t limit = (size_t)64 << 20;
    if (getrlimit(RLIMIT_STACK, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < limit)
        limit = (size_t)rl.rlim_cur;
    size_t keep = (size_t)512 << 10;
    ip_stack_base = base;
    ip_stack_budget = limit > 2 * keep ? limit - keep : limit / 2;
}

/* The tree, names and slot tables live in an arena that is never freed: the
 * program runs until exit, and the chain from ip_arena keeps every block
 * reachable (so leak checkers see no leak). */
typedef struct arena_block {
    struct arena_block *next;
    size_t used, cap;
    char mem[];
} arena_block;
static arena_block *ip_arena;

static void *xalloc(size_t n) {
    n = (n + 15) & ~(size_t)15;
    if (!ip_arena || ip_arena->used + n > ip_arena->cap) {
        size_t cap = n > 65536 ? n : 65536;
        arena_block *b = calloc(1, sizeof *b + cap);
        if (!b) {
            fprintf(stderr, "interp: out of memory while parsing\n");
            exit(1);
        }
        b->cap = cap;
        b->next = ip_arena;
        ip_arena = b;
    }
    void *p = ip_arena->mem + ip_arena->used;
    ip_arena->used += n;
    return p;
}

/* Grows an arena array of n elements of size elem to at least want. */
static void *xgrow(void *old, size_t n, size_t want, size_t elem) {
    void *p = xalloc(want * elem);
    if (n)
        memcpy(p, old, n * elem);
    return p;
}

static char *xstrndup(const char *s, size_t n) {
    char *d = xalloc(n + 1);
    memcpy(d, s, n);
    return d;
}

/* How a token reads in an error message. */
static const char *tok_desc(const tok *t, char *buf, size_t n) {
    if (t->t == T_EOF)
        return "end of input";
    snprintf(buf, n, "'%.*s'", t->len > 40 ? 40 : t->len, t->s);
    return buf;
}

static void lex(parser *ps) {
    const char *p = ps->p;
    for (;;) {
        while (p < ps->end && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')) {
            if (*p == '\n') {
                ps->line++;
                ps->line_start = p + 1;
            }
            p++;
        }
        if (p < ps->end && *p == '#') {
            while (p < ps->end && *p != '\n')
                p++;
            continue;
        }
        break;
    }
    tok *t = &ps->cur;
    memset(t, 0, sizeof *t);
    t->line = ps->line;
    t->col = (int)(p - ps->line_start) + 1;
    t->s = p;
    if (p >= ps->end) {
        t->t = T_EOF;
        ps->p = p;
        return;
    }
    char c = *p;
    if (c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) {
        const char *q = p;
        while (q < ps->end &&
               (*q == '_' || (*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z') || (*q >= '0' && *q <= '9')))
            q++;
        t->len = (int)(q - p);
        t->t = T_NAME;
        for (size_t k = 0; k < sizeof kw / sizeof kw[0]; k++)
            if (strlen(kw[k]) == (size_t)t->len && memcmp(kw[k], p, (size_t)t->len) == 0)
                t->t = T_LET + (int)k;
        if (t->t == T_NAME)
            t->str = xstrndup(p, (size_t)t->len);
        ps->p = q;
        return;
    }
    if (c >= '0' && c <= '9') {
        const char *q = p;
        int is_float = 0;
        if (c == '0' && q + 1 < ps->end && (q[1] == 'x' || q[1] == 'X')) {
            q += 2;
            while (q < ps->end && ((*q >= '0' && *q <= '9') || (*q >= 'a' && *q <= 'f') || (*q >= 'A' && *q <= 'F')))
                q++;
        } else {
            while (q < ps->end && *q >= '0' && *q <= '9')
                q++;
            /* "1..n" is a range, not the float "1." */
            if (q + 1 < ps->end && *q == '.' && q[1] >= '0' && q[1] <= '9') {
                is_float = 1;
                q++;
                while (q < ps->end && *q >= '0' && *q <= '9')
                    q++;
            }
            if (q < ps->end && (*q == 'e' || *q == 'E')) {
                is_float = 1;
                q++;
                if (q < ps->end && (*q == '+' || *q == '-'))
                    q++;
                if (q >= ps->end || *q < '0' || *q > '9')
                    perr(ps, t->line, t->col, "malformed number: exponent has no digits");
                while (q < ps->end && *q >= '0' && *q <= '9')
                    q++;
            }
        }
        if (q < ps->end && (*q == '_' || (*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z')))
            perr(ps, t->line, t->col, "malformed number: letter '%c' right after digits", *q);
        t->len = (int)(q - p);
        char *text = xstrndup(p, (size_t)t->len);
        errno = 0;
        if (is_float) {
            t->t = T_FLOAT;
            t->f = strtod(text, NULL);
        } else {
            t->t = T_INT;
            unsigned long long v = strtoull(text, NULL, 0);
            if (errno == ERANGE || v > (unsigned long long)INT64_MAX)
                perr(ps, t->line, t->col, "integer literal %s does not fit in 64 bits", text);
            t->i = (int64_t)v;
        }
        ps->p = q;
        return;
    }
    if (c == '"' || c == '\'') {
        const char *q = p + 1;
        /* a literal ends on its line, so the line bounds its decoded size */
        const char *eol = memchr(p, '\n', (size_t)(ps->end - p));
        char *out = xalloc((size_t)((eol ? eol : ps->end) - p) + 1);
        int n = 0;
        for (;;) {
            if (q >= ps->end || *q == '\n')
                perr(ps, t->line, t->col, "string literal is not closed on its line");
            if (*q == c)
                break;
            if (*q == '\\') {
                q++;
                if (q >= ps->end)
                    perr(ps, t->line, t->col, "string literal is not closed");
                int ecol = (int)(q - ps->line_start);
                switch (*q) {
                case 'n': out[n++] = '\n'; break;
                case 't': out[n++] = '\t'; break;
                case '0': out[n++] = '\0'; break;
                case '\\': out[n++] = '\\'; break;
                case '"': out[n++] = '"'; break;
                case '\'': out[n++] = '\''; break;
                default: perr(ps, t->line, ecol, "unknown escape '\\%c' in string literal", *q);
                }
                q++;
                continue;
            }
            out[n++] = *q++;
        }
        q++;
        t->t = T_STR;
        t->str = out;
        t->slen = n;
        t->len = (int)(q - p);
        ps->p = q;
        return;
    }
    static const struct {
        const char *s;
        int t;
    } punct[] = {{"..", T_DOTDOT}, {"<<", T_SHL},    {">>", T_SHR},  {"//", T_SLASHSLASH}, {"==", T_EQ},
                 {"!=", T_NE},     {"<=", T_LE},     {">=", T_GE},   {"+=", T_PLUSEQ},     {"-=", T_MINUSEQ},
                 {"*=", T_STAREQ}, {"(", T_LP},      {")", T_RP},    {"[", T_LB},          {"]", T_RB},
                 {"{", T_LC},      {"}", T_RC},      {",", T_COMMA}, {".", T_DOT},         {":", T_COLON},
                 {";", T_SEMI},    {"=", T_ASSIGN},  {"+", T_PLUS},  {"-", T_MINUS},       {"*", T_STAR},
                 {"/", T_SLASH},   {"%", T_PERCENT}, {"<", T_LT},    {">", T_GT},          {"&", T_AMP},
                 {"|", T_PIPE},    {"^", T_CARET}};
    for (size_t k = 0; k < sizeof punct / sizeof punct[0]; k++) {
        size_t l = strlen(punct[k].s);
        if ((size_t)(ps->end - p) >= l && memcmp(p, punct[k].s, l) == 0) {
            t->t = punct[k].t;
            t->len = (int)l;
            ps->p = p + l;
            return;
        }
    }
    if ((unsigned char)c < 32 || (unsigned char)c > 126)
        perr(ps, t->line, t->col, "unexpected byte 0x%02x", (unsigned char)c);
    perr(ps, t->line, t->col, "unexpected character '%c'", c);
}

static void next(parser *ps) {
    ps->prev = ps->cur;
    lex(ps);
}

static int accept(parser *ps, int t) {
    if (ps->cur.t != t)
        return 0;
    next(ps);
    return 1;
}

static void expect(parser *ps, int t, const char *what) {
    if (ps->cur.t != t) {
        char b[64];
        perr(ps, ps->cur.line, ps->cur.col, "expected %s, found %s", what, tok_desc(&ps->cur, b, sizeof b));
    }
    next(ps);
}

/* ---- Tree building ------------------------------------------------------------ */

static ip_node *mk(int kind, const tok *at) {
    ip_node *n = xalloc(sizeof *n);
    n->kind = (uint8_t)kind;
    n->line = at->line;
    n->col = at->col;
    return n;
}

static void add_kid(ip_node *n, ip_node *k) {
    if ((n->nkids & (n->nkids - 1)) == 0) /* 0, 1, 2, 4 ...: full */
        n->kids = xgrow(n->kids, (size_t)n->nkids, n->nkids ? (size_t)n->nkids * 2 : 1, sizeof *n->kids);
    n->kids[n->nkids++] = k;
}

/* Appends a constant to ip_consts; returns its index.  v is a fresh object
 * (it is pushed before anything else allocates). */
static int add_const(sgc_obj v) {
    ip_push(ip_consts);
    ip_push(v);
    ip_list_push_top();
    (void)ip_pop();
    return (int)(IP_LIST(ip_consts)->len - 1);
}

/* The constant index of string s (one constant per distinct text, so field
 * names hash once). */
static int str_const(const char *s, int len) {
    ip_list *l = ip_consts;
    for (int64_t i = 0; i < l->len; i++) {
        sgc_obj v = ((ip_items *)l->items)->v[i];
        if (IP_IS(v, ip_t_str) && IP_STR(v)->len == len && memcmp(IP_STR(v)->b, s, (size_t)len) == 0)
            return (int)i;
    }
    return add_const(ip_str_new(s, len));
}

/* Declares name as a slot of fn (once); returns the slot. */
static int declare(ip_fndef *fn, const char *name) {
    for (int i = 0; i < fn->nslots; i++)
        if (strcmp(fn->slots[i], name) == 0)
            return i;
    fn->slots = xgrow(fn->slots, (size_t)fn->nslots, (size_t)fn->nslots + 1, sizeof *fn->slots);
    fn->slots[fn->nslots] = xstrndup(name, strlen(name));
    return fn->nslots++;
}

static ip_node *expr(parser *ps);
static ip_node *block(parser *ps);

static ip_fndef *fn_new(parser *ps, const char *name, int line) {
    ip_fndef *f = xalloc(sizeof *f);
    f->name = xstrndup(name, strlen(name));
    f->func.name = f->name;
    f->line = line;
    f->parent = ps->fn;
    return f;
}

/* Parses "(params) { body }" after "fn [NAME]". */
static ip_fndef *fn_rest(parser *ps, const char *name, int line) {
    ip_fndef *f = fn_new(ps, name, line);
    expect(ps, T_LP, "'(' before the parameters");
    if (ps->cur.t != T_RP) {
        do {
            if (ps->cur.t != T_NAME) {
                char b[64];
                perr(ps, ps->cur.line, ps->cur.col, "expected a parameter name, found %s",
                     tok_desc(&ps->cur, b, sizeof b));
            }
            for (int i = 0; i < f->nslots; i++)
                if (strcmp(f->slots[i], ps->cur.str) == 0)
                    perr(ps, ps->cur.line, ps->cur.col, "parameter '%s' appears twice", ps->cur.str);
            declare(f, ps->cur.str);
            next(ps);
        } while (accept(ps, T_COMMA));
    }
    f->nparams = f->nslots;
    expect(ps, T_RP, "')' after the parameters");
    ip_fndef *outer = ps->fn;
    int loops = ps->loops;
    ps->fn = f;
    ps->loops = 0;
    f->body = block(ps);
    ps->fn = outer;
    ps->loops = loops;
    return f;
}

static ip_node *primary(parser *ps) {
    tok t = ps->cur;
    char b[64];
    switch (t.t) {
    case T_INT: {
        next(ps);
        ip_node *n = mk(N_CONST, &t);
        n->index = add_const(ip_int_new(t.i));
        return n;
    }
    case T_FLOAT: {
        next(ps);
        ip_node *n = mk(N_CONST, &t);
        n->index = add_const(ip_float_new(t.f));
        return n;
    }
    case T_STR: {
        next(ps);
        ip_node *n = mk(N_CONST, &t);
        n->index = str_const(t.str, t.slen);
        return n;
    }
    case T_NIL: next(ps); return mk(N_NIL, &t);
    case T_TRUE: next(ps); return mk(N_TRUE, &t);
    case T_FALSE: next(ps); return mk(N_FALSE, &t);
    case T_NAME: {
        next(ps);
        ip_node *n = mk(N_VAR, &t);
        n->name = t.str;
        return n;
    }
    case T_LP: {
        next(ps);
        ip_node *n = expr(ps);
        expect(ps, T_RP, "')' to close the parenthesis");
        return n;
    }
    case T_LB: {
        next(ps);
        ip_node *n = mk(N_LIST, &t);
        if (ps->cur.t != T_RB) {
            do {
                if (ps->cur.t == T_RB)
                    break; /* trailing comma */
                add_kid(n, expr(ps));
            } while (accept(ps, T_COMMA));
        }
        expect(ps, T_RB, "',' or ']' in the list");
        return n;
    }
    case T_LC: {
        next(ps);
        ip_node *n = mk(N_DICT, &t);
        if (ps->cur.t != T_RC) {
            do {
                if (ps->cur.t == T_RC)
                    break;
                ip_node *k;
                if (ps->cur.t == T_NAME) { /* {name: v} means {"name": v} */
                    k = mk(N_CONST, &ps->cur);
                    k->index = str_const(ps->cur.str, ps->cur.len);
                    next(ps);
                } else {
                    k = expr(ps);
                }
                add_kid(n, k);
                expect(ps, T_COLON, "':' after the dict key");
                add_kid(n, expr(ps));
            } while (accept(ps, T_COMMA));
        }
        expect(ps, T_RC, "',' or '}' in the dict");
        return n;
    }
    case T_FN: {
        next(ps);
        char name[64];
        snprintf(name, sizeof name, "<fn@%d>", t.line);
        ip_node *n = mk(N_FN, &t);
        n->fn = fn_rest(ps, name, t.line);
        return n;
    }
    default: perr(ps, t.line, t.col, "expected an expression, found %s", tok_desc(&t, b, sizeof b));
    }
}

/* Calls and indexing must open on the line where their operand ends, so a
 * statement that starts with '(' or '[' is never glued to the one before. */
static ip_node *postfix(parser *ps) {
    ip_node *n = primary(ps);
    for (;;) {
        tok t = ps->cur;
        if (t.t == T_LP && t.line == ps->prev.line) {
            next(ps);
            ip_node *c = mk(N_CALL, &t);
            c->a = n;
            if (ps->cur.t != T_RP) {
                do
                    add_kid(c, expr(ps));
                while (accept(ps, T_COMMA));
            }
            expect(ps, T_RP, "',' or ')' in the arguments");
            n = c;
        } else if (t.t == T_LB && t.line == ps->prev.line) {
            next(ps);
            ip_node *c = mk(N_INDEX, &t);
            c->a = n;
            c->b = expr(ps);
            expect(ps, T_RB, "']' after the index");
            n = c;
        } else if (t.t == T_DOT) {
            next(ps);
            if (ps->cur.t != T_NAME) {
                char b[64];
                perr(ps, ps->cur.line, ps->cur.col, "expected a field name after '.', found %s",
                     tok_desc(&ps->cur, b, sizeof b));
            }
            ip_node *c = mk(N_FIELD, &t);
            c->a = n;
            c->name = ps->cur.str;
            c->index = str_const(ps->cur.str, ps->cur.len);
            next(ps);
            n = c;
        } else {
            return n;
        }
    }
}

static ip_node *unary(parser *ps) {
    tok t = ps->cur;
    if (accept(ps, T_MINUS)) {
        ip_node *n = mk(N_NEG, &t);
        nest_enter(ps);
        n->a = unary(ps);
        ps->nest--;
        return n;
    }
    return postfix(ps);
}

static ip_node *binop(int op, const tok *t, ip_node *a, ip_node *b) {
    ip_node *n = mk(N_BINOP, t);
    n->op = (uint8_t)op;
    n->a = a;
    n->b = b;
    return n;
}

static ip_node *mul(parser *ps) {
    ip_node *n = unary(ps);
    for (;;) {
        tok t = ps->cur;
        int op = t.t == T_STAR         ? OP_MUL
                 : t.t == T_SLASH      ? OP_DIV
                 : t.t == T_SLASHSLASH ? OP_FDIV
                 : t.t == T_PERCENT    ? OP_MOD
                                       : 0;
        if (!op)
            return n;
        next(ps);
        n = binop(op, &t, n, unary(ps));
    }
}

static ip_node *add(parser *ps) {
    ip_node *n = mul(ps);
    for (;;) {
        tok t = ps->cur;
        int op = t.t == T_PLUS ? OP_ADD : t.t == T_MINUS ? OP_SUB : 0;
        if (!op)
            return n;
        next(ps);
        n = binop(op, &t, n, mul(ps));
    }
}

static ip_node *shift(parser *ps) {
    ip_node *n = add(ps);
    for (;;) {
        tok t = ps->cur;
        int op = t.t == T_SHL ? OP_SHL : t.t == T_SHR ? OP_SHR : 0;
        if (!op)
            return n;
        next(ps);
        n = binop(op, &t, n, add(ps));
    }
}

/* One level of a left-associative bitwise operator: band > bxor > bor. */
static ip_node *bitlevel(parser *ps, int level) {
    static const int toks[] = {T_PIPE, T_CARET, T_AMP};
    static const int ops[] = {OP_BOR, OP_BXOR, OP_BAND};
    ip_node *n = level == 2 ? shift(ps) : bitlevel(ps, level + 1);
    while (ps->cur.t == toks[level]) {
        tok t = ps->cur;
        next(ps);
        n = binop(ops[level], &t, n, level == 2 ? shift(ps) : bitlevel(ps, level + 1));
    }
    return n;
}

static ip_node *cmp(parser *ps) {
    ip_node *n = bitlevel(ps, 0);
    tok t = ps->cur;
    int op = t.t == T_EQ   ? OP_EQ
             : t.t == T_NE ? OP_NE
             : t.t == T_LT ? OP_LT
             : t.t == T_LE ? OP_LE
             : t.t == T_GT ? OP_GT
             : t.t == T_GE ? OP_GE
                           : 0;
    if (!op)
        return n;
    next(ps);
    n = binop(op, &t, n, bitlevel(ps, 0));
    int c = ps->cur.t;
    if (c == T_EQ || c == T_NE || c == T_LT || c == T_LE || c == T_GT || c == T_GE)
        perr(ps, ps->cur.line, ps->cur.col, "comparisons do not chain; write 'a < b and b < c' instead");
    return n;
}

static ip_node *not_(parser *ps) {
    tok t = ps->cur;
    if (accept(ps, T_NOT)) {
        ip_node *n = mk(N_NOT, &t);
        nest_enter(ps);
        n->a = not_(ps);
        ps->nest--;
        return n;
    }
    return cmp(ps);
}

static ip_node *and_(parser *ps) {
    ip_node *n = not_(ps);
    while (ps->cur.t == T_AND) {
        tok t = ps->cur;
        next(ps);
        ip_node *a = mk(N_AND, &t);
        a->a = n;
        a->b = not_(ps);
        n = a;
    }
    return n;
}

static ip_node *expr(parser *ps) {
    nest_enter(ps);
    ip_node *n = and_(ps);
    while (ps->cur.t == T_OR) {
        tok t = ps->cur;
        next(ps);
        ip_node *o = mk(N_OR, &t);
        o->a = n;
        o->b = and_(ps);
        n = o;
    }
    ps->nest--;
    return n;
}

static ip_node *var_node(const tok *t, const char *name) {
    ip_node *n = mk(N_VAR, t);
    n->name = name;
    return n;
}

static ip_node *stmt(parser *ps) {
    tok t = ps->cur;
    char b[64];
    switch (t.t) {
    case T_LET: {
        next(ps);
        if (ps->cur.t != T_NAME)
            perr(ps, ps->cur.line, ps->cur.col, "expected a variable name after 'let', found %s",
                 tok_desc(&ps->cur, b, sizeof b));
        tok nt = ps->cur;
        declare(ps->fn, nt.str);
        next(ps);
        ip_node *n = mk(S_ASSIGN, &t);
        n->a = var_node(&nt, nt.str);
        n->b = accept(ps, T_ASSIGN) ? expr(ps) : mk(N_NIL, &nt);
        return n;
    }
    case T_FN: {
        next(ps);
        if (ps->cur.t != T_NAME) /* "fn (...)" as an expression statement is useless */
            perr(ps, ps->cur.line, ps->cur.col, "expected a function name after 'fn', found %s",
                 tok_desc(&ps->cur, b, sizeof b));
        tok nt = ps->cur;
        declare(ps->fn, nt.str);
        next(ps);
        ip_node *n = mk(S_ASSIGN, &t);
        n->a = var_node(&nt, nt.str);
        n->b = mk(N_FN, &t);
        n->b->fn = fn_rest(ps, nt.str, t.line);
        return n;
    }
    case T_IF: {
        next(ps);
        ip_node *n = mk(S_IF, &t);
        n->a = expr(ps);
        n->b = block(ps);
        ip_node *last = n; /* elif chains nest as "else if" */
        for (;;) {
            tok e = ps->cur;
            if (accept(ps, T_ELIF)) {
                ip_node *k = mk(S_IF, &e);
                k->a = expr(ps);
                k->b = block(ps);
                last->c = k;
                last = k;
            } else if (accept(ps, T_ELSE)) {
                last->c = block(ps);
                break;
            } else {
                break;
            }
        }
        return n;
    }
    case T_WHILE: {
        next(ps);
        ip_node *n = mk(S_WHILE, &t);
        n->a = expr(ps);
        ps->loops++;
        n->b = block(ps);
        ps->loops--;
        return n;
    }
    case T_FOR: {
        next(ps);
        if (ps->cur.t != T_NAME)
            perr(ps, ps->cur.line, ps->cur.col, "expected a loop variable after 'for', found %s",
                 tok_desc(&ps->cur, b, sizeof b));
        tok nt = ps->cur;
        declare(ps->fn, nt.str);
        next(ps);
        expect(ps, T_IN, "'in' after the loop variable");
        ip_node *n = mk(S_FOR_IN, &t);
        n->name = nt.str;
        n->a = expr(ps);
        if (accept(ps, T_DOTDOT)) {
            n->kind = S_FOR_RANGE;
            n->b = expr(ps);
        }
        ps->loops++;
        n->c = block(ps);
        ps->loops--;
        return n;
    }
    case T_RETURN: {
        next(ps);
        ip_node *n = mk(S_RETURN, &t);
        if (ps->fn->parent == NULL)
            perr(ps, t.line, t.col, "'return' outside a function");
        /* A value must start on the return's own line. */
        if (ps->cur.line == t.line && ps->cur.t != T_RC && ps->cur.t != T_SEMI && ps->cur.t != T_EOF)
            n->a = expr(ps);
        return n;
    }
    case T_BREAK:
    case T_CONTINUE:
        if (ps->loops == 0)
            perr(ps, t.line, t.col, "'%s' outside a loop", t.t == T_BREAK ? "break" : "continue");
        next(ps);
        return mk(t.t == T_BREAK ? S_BREAK : S_CONTINUE, &t);
    case T_LC: return block(ps);
    default: {
        ip_node *e = expr(ps);
        tok at = ps->cur;
        int op = at.t == T_ASSIGN    ? -1
                 : at.t == T_PLUSEQ  ? OP_ADD
                 : at.t == T_MINUSEQ ? OP_SUB
                 : at.t == T_STAREQ  ? OP_MUL
                                     : 0;
        if (op) {
            if (e->kind != N_VAR && e->kind != N_INDEX && e->kind != N_FIELD)
                perr(ps, at.line, at.col,
                     "cannot assign to this expression (only to a name, "
                     "x[i] or x.field)");
            next(ps);
            ip_node *n = mk(S_ASSIGN, &t);
            n->op = (uint8_t)(op < 0 ? 0 : op);
            n->a = e;
            n->b = expr(ps);
            return n;
        }
        if (e->kind != N_CALL)
            perr(ps, t.line, t.col,
                 "this expression does nothing: a statement is a call, an "
                 "assignment, or a keyword statement");
        ip_node *n = mk(S_EXPR, &t);
        n->a = e;
        return n;
    }
    }
}

static ip_node *block(parser *ps) {
    tok t = ps->cur;
    expect(ps, T_LC, "'{' to open a block");
    ip_node *n = mk(S_BLOCK, &t);
    nest_enter(ps);
    while (ps->cur.t != T_RC) {
        if (ps->cur.t == T_EOF)
            perr(ps, t.line, t.col, "this '{' is never closed");
        if (accept(ps, T_SEMI))
            continue;
        add_kid(n, stmt(ps));
    }
    ps->nest--;
    next(ps);
    return n;
}

/* ---- Resolution ------------------------------------------------------------ */

static void resolve(parser *ps, ip_node *n, ip_fndef *fn);

static void resolve_var(parser *ps, ip_node *n, ip_fndef *fn) {
    int depth = 0;
    for (ip_fndef *f = fn; f; f = f->parent, depth++) {
        for (int i = 0; i < f->nslots; i++) {
            if (strcmp(f->slots[i], n->name) == 0) {
                n->depth = depth;
                n->index = i;
                return;
            }
        }
    }
    for (int i = 0; i < ip_nbuiltins; i++) {
        if (strcmp(ip_builtins[i].name, n->name) == 0) {
            n->kind = N_BUILTIN;
            n->index = i;
            return;
        }
    }
    perr(ps, n->line, n->col, "undefined name '%s' (declare it with let)", n->name);
}

static void resolve(parser *ps, ip_node *n, ip_fndef *fn) {
    if (!n)
        return;
    switch (n->kind) {
    case N_VAR: resolve_var(ps, n, fn); return;
    case N_FN: resolve(ps, n->fn->body, n->fn); return;
    case S_FOR_IN:
    case S_FOR_RANGE: {
        ip_node v = {.kind = N_VAR, .line = n->line, .col = n->col, .name = n->name};
        resolve_var(ps, &v, fn);
        n->depth = v.depth;
        n->index = v.index;
        break;
    }
    case S_ASSIGN:
        if (n->a->kind == N_VAR) {
            resolve_var(ps, n->a, fn);
            if (n->a->kind == N_BUILTIN)
                perr(ps, n->a->line, n->a->col,
                     "cannot assign to builtin '%s' (declare a "
                     "variable with let to shadow it)",
                     n->a->name);
        }
        break;
    default: break;
    }
    resolve(ps, n->a, fn);
    resolve(ps, n->b, fn);
    resolve(ps, n->c, fn);
    for (int i = 0; i < n->nkids; i++)
        resolve(ps, n->kids[i], fn);
    if (n->kind == N_CALL && n->a->kind == N_BUILTIN) {
        int ar = ip_builtins[n->a->index].arity;
        if (ar >= 0 && ar != n->nkids)
            perr(ps, n->line, n->col, "%s() takes %d argument%s, %d given", n->a->name, ar, ar == 1 ? "" : "s",
                 n->nkids);
        n->kind = N_CALLB;
        n->index = n->a->index;
        n->name = n->a->name;
    }
}

/* The resolver and the evaluator recurse once per level of the tree, and a
 * chain such as 1+1+...+1 is parsed by a loop but is as deep as it is long:
 * refuses a tree deeper than IP_MAX_NESTING, walking it with an explicit
 * stack (so this check cannot run out of C stack itself). */
static void check_depth(parser *ps, ip_node *root) {
    typedef struct {
        ip_node *n;
        int depth;
    } item;
    size_t cap = 256, len = 0;
    item *st = malloc(cap * sizeof *st);
    if (!st) {
        fprintf(stderr, "interp: out of memory checking the program\n");
        exit(1);
    }
    st[len++] = (item){root, 1};
    while (len > 0) {
        item it = st[--len];
        ip_node *n = it.n;
        if (it.depth > IP_MAX_NESTING) {
            free(st);
            perr(ps, n->line, n->col, "nested too deeply (more than %d levels of expressions and blocks)",
                 IP_MAX_NESTING);
        }
        ip_node *kids[4] = {n->a, n->b, n->c, n->kind == N_FN ? n->fn->body : NULL};
        size_t need = len + 4 + (size_t)n->nkids;
        if (need > cap) {
            while (cap < need)
                cap *= 2;
            item *g = realloc(st, cap * sizeof *st);
            if (!g) {
                fprintf(stderr, "interp: out of memory checking the program\n");
                exit(1);
            }
            st = g;
        }
        for (int i = 0; i < 4; i++)
            if (kids[i])
                st[len++] = (item){kids[i], it.depth + 1};
        for (int i = 0; i < n->nkids; i++)
            if (n->kids[i])
                st[len++] = (item){n->kids[i], it.depth + 1};
    }
    free(st);
}

ip_fndef *ip_parse(const char *file, const char *source, size_t len) {
    ip_stack_init(__builtin_frame_address(0));
    if (ip_consts == NULL) {
        sgc_global_root(&ip_consts);
        ip_consts = ip_list_new(16);
    }
    parser ps = {0};
    ps.file = file;
    ps.src = ps.p = ps.line_start = source;
    ps.end = source + len;
    ps.line = 1;
    for (size_t i = 0; i < len; i++)
        if (source[i] == '\0')
            perr(&ps, 1, 1, "the program contains a NUL byte at offset %zu; is it a text file?", i);
    ip_fndef *top = fn_new(&ps, "<module>", 1);
    ps.fn = top;
    lex(&ps);
    tok t = ps.cur;
    top->body = mk(S_BLOCK, &t);
    while (ps.cur.t != T_EOF) {
        if (accept(&ps, T_SEMI))
            continue;
        if (ps.cur.t == T_RC)
            perr(&ps, ps.cur.line, ps.cur.col, "'}' without a matching '{'");
        add_kid(top->body, stmt(&ps));
    }
    check_depth(&ps, top->body);
    resolve(&ps, top->body, top);
    return top;
}
