/* ip_value.c - interp's heap values: types, constructors, lists, dicts, text. */
#include "ip_value.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "../wl_common.h"

uint32_t ip_t_int, ip_t_float, ip_t_bool, ip_t_str, ip_t_list, ip_t_items, ip_t_dict, ip_t_keys, ip_t_vals, ip_t_func,
    ip_t_builtin, ip_t_env;

sgc_obj ip_stack[IP_STACK_MAX];
static void *ip_stack_slots[IP_STACK_MAX];
static sgc_func ip_module_func = {"<module>", 0};
sgc_frame ip_stack_frame;
sgc_obj ip_true, ip_false;

void ip_stack_overflow(void) {
    fprintf(stderr, "interp: value stack overflow (%d values)\n", IP_STACK_MAX);
    exit(1);
}

void ip_value_init(void) {
    ip_t_int = wl_type("Int", sizeof(ip_int), 0, SGC_VAR_NONE);
    ip_t_float = wl_type("Float", sizeof(ip_float), 0, SGC_VAR_NONE);
    ip_t_bool = wl_type("Bool", sizeof(ip_bool), 0, SGC_VAR_NONE);
    ip_t_str = wl_type("Str", sizeof(ip_str), 0, SGC_VAR_BYTES);
    ip_t_list = wl_type("List", sizeof(ip_list), WL_PTR(ip_list, items), SGC_VAR_NONE);
    ip_t_items = wl_type("ListItems", 0, 0, SGC_VAR_PTRS);
    ip_t_dict = wl_type("Dict", sizeof(ip_dict), WL_PTR(ip_dict, keys) | WL_PTR(ip_dict, vals), SGC_VAR_NONE);
    ip_t_keys = wl_type("DictKeys", 0, 0, SGC_VAR_PTRS);
    ip_t_vals = wl_type("DictValues", 0, 0, SGC_VAR_PTRS);
    ip_t_func = wl_type("Function", sizeof(ip_func), WL_PTR(ip_func, env), SGC_VAR_NONE);
    ip_t_builtin = wl_type("Builtin", sizeof(ip_builtin), 0, SGC_VAR_NONE);
    ip_t_env = wl_type("Env", sizeof(ip_env), WL_PTR(ip_env, parent), SGC_VAR_PTRS);

    for (int i = 0; i < IP_STACK_MAX; i++)
        ip_stack_slots[i] = &ip_stack[i];
    ip_stack_frame.func = &ip_module_func;
    ip_stack_frame.roots = ip_stack_slots;
    ip_stack_frame.nroots = 0;
    sgc_frame_push(&ip_stack_frame);

    sgc_global_root(&ip_true);
    sgc_global_root(&ip_false);
    ip_true = sgc_alloc(ip_t_bool, sizeof(ip_bool));
    ((ip_bool *)ip_true)->v = 1;
    ip_false = sgc_alloc(ip_t_bool, sizeof(ip_bool));
}

sgc_obj ip_int_new(int64_t v) {
    ip_int *o = SGC_NEW(ip_t_int, ip_int);
    o->v = v;
    return o;
}

sgc_obj ip_float_new(double v) {
    ip_float *o = SGC_NEW(ip_t_float, ip_float);
    o->v = v;
    return o;
}

sgc_obj ip_str_alloc(int64_t len) {
    ip_str *s = SGC_NEW_VAR(ip_t_str, sizeof(ip_str), len + 1, 1);
    s->len = len;
    return s;
}

void ip_str_seal(sgc_obj v) {
    ip_str *s = v;
    uint64_t h = 0xcbf29ce484222325ull;
    for (int64_t i = 0; i < s->len; i++)
        h = (h ^ (unsigned char)s->b[i]) * 0x100000001b3ull;
    s->b[s->len] = '\0';
    s->hash = h;
}

sgc_obj ip_str_new(const char *b, int64_t len) {
    ip_str *s = ip_str_alloc(len);
    memcpy(s->b, b, (size_t)len);
    ip_str_seal(s);
    return s;
}

sgc_obj ip_list_new(int64_t cap) {
    ip_push(NULL); /* a root slot for the list while its items are allocated */
    IP_TOP(0) = SGC_NEW(ip_t_list, ip_list);
    if (cap > 0) {
        sgc_obj items = SGC_NEW_VAR(ip_t_items, 0, cap, sizeof(sgc_obj));
        SGC_SET(IP_LIST(IP_TOP(0)), items, items);
    }
    return ip_pop();
}

sgc_obj ip_dict_new(void) {
    ip_push(SGC_NEW(ip_t_dict, ip_dict));
    sgc_obj keys = SGC_NEW_VAR(ip_t_keys, 0, 8, sizeof(sgc_obj));
    SGC_SET(IP_DICT(IP_TOP(0)), keys, keys);
    sgc_obj vals = SGC_NEW_VAR(ip_t_vals, 0, 8, sizeof(sgc_obj));
    SGC_SET(IP_DICT(IP_TOP(0)), vals, vals);
    IP_DICT(IP_TOP(0))->cap = 8;
    return ip_pop();
}

sgc_obj ip_env_new(int64_t nslots) { return SGC_NEW_VAR(ip_t_env, sizeof(ip_env), nslots, sizeof(sgc_obj)); }

const char *ip_type_name(sgc_obj v) {
    if (v == NULL)
        return "nil";
    uint32_t t = SGC_TYPE_OF(v);
    if (t == ip_t_builtin)
        return "Function";
    return sgc_type_name(t);
}

int ip_truthy(sgc_obj v) {
    if (v == NULL)
        return 0;
    uint32_t t = SGC_TYPE_OF(v);
    if (t == ip_t_bool)
        return ((ip_bool *)v)->v != 0;
    if (t == ip_t_int)
        return IP_INT(v) != 0;
    if (t == ip_t_float)
        return IP_FLOAT(v) != 0.0;
    if (t == ip_t_str)
        return IP_STR(v)->len != 0;
    if (t == ip_t_list)
        return IP_LIST(v)->len != 0;
    if (t == ip_t_dict)
        return IP_DICT(v)->count != 0;
    return 1;
}

int ip_equal(sgc_obj a, sgc_obj b) {
    if (a == b)
        return 1;
    if (a == NULL || b == NULL)
        return 0;
    uint32_t ta = SGC_TYPE_OF(a), tb = SGC_TYPE_OF(b);
    if (ta == ip_t_int && tb == ip_t_int)
        return IP_INT(a) == IP_INT(b);
    if ((ta == ip_t_int || ta == ip_t_float) && (tb == ip_t_int || tb == ip_t_float)) {
        double x = ta == ip_t_int ? (double)IP_INT(a) : IP_FLOAT(a);
        double y = tb == ip_t_int ? (double)IP_INT(b) : IP_FLOAT(b);
        return x == y;
    }
    if (ta == ip_t_str && tb == ip_t_str) {
        ip_str *x = a, *y = b;
        return x->len == y->len && x->hash == y->hash && memcmp(x->b, y->b, (size_t)x->len) == 0;
    }
    return 0;
}

void ip_list_push_top(void) {
    ip_list *l = IP_TOP(1);
    int64_t cap = l->items ? (int64_t)(SGC_PAYLOAD_BYTES(l->items) / sizeof(sgc_obj)) : 0;
    if (l->len == cap) {
        int64_t ncap = cap < 4 ? 4 : cap * 2;
        ip_items *n = SGC_NEW_VAR(ip_t_items, 0, ncap, sizeof(sgc_obj));
        l = IP_TOP(1); /* reload: the allocation may have moved the list */
        if (l->len)
            memcpy(n->v, ((ip_items *)l->items)->v, (size_t)l->len * sizeof(sgc_obj));
        SGC_SET(l, items, n);
    }
    ip_items *it = l->items;
    it->v[l->len++] = IP_TOP(0);
    sgc_write_barrier(it);
    (void)ip_pop();
}

int ip_hashable(sgc_obj v) {
    if (v == NULL)
        return 0;
    uint32_t t = SGC_TYPE_OF(v);
    return t == ip_t_int || t == ip_t_str || t == ip_t_bool;
}

static uint64_t ip_hash(sgc_obj k) {
    uint32_t t = SGC_TYPE_OF(k);
    if (t == ip_t_str)
        return IP_STR(k)->hash;
    uint64_t x = t == ip_t_int ? (uint64_t)IP_INT(k) : (uint64_t)((ip_bool *)k)->v + 0x51ed27;
    x ^= x >> 31;
    x *= 0x7fb5d329728ea185ull;
    x ^= x >> 27;
    return x;
}

/* Keys are equal when same type and same content (1 and true differ). */
static int ip_key_equal(sgc_obj a, sgc_obj b) {
    if (a == b)
        return 1;
    if (SGC_TYPE_OF(a) != SGC_TYPE_OF(b))
        return 0;
    return ip_equal(a, b);
}

/* The slot of key in d, or the free slot where it would go. */
static int64_t ip_dict_find(ip_dict *d, sgc_obj key) {
    uint64_t mask = (uint64_t)d->cap - 1;
    uint64_t i = ip_hash(key) & mask;
    ip_items *keys = d->keys;
    for (;;) {
        sgc_obj k = keys->v[i];
        if (k == NULL || ip_key_equal(k, key))
            return (int64_t)i;
        i = (i + 1) & mask;
    }
}

sgc_obj ip_dict_get(sgc_obj dict, sgc_obj key, int *found) {
    ip_dict *d = dict;
    int64_t i = ip_dict_find(d, key);
    sgc_obj k = ((ip_items *)d->keys)->v[i];
    *found = k != NULL;
    return k ? ((ip_items *)d->vals)->v[i] : NULL;
}

/* Doubles the table of the dict at IP_TOP(2). */
static void ip_dict_grow(void) {
    int64_t ncap = IP_DICT(IP_TOP(2))->cap * 2;
    ip_push(SGC_NEW_VAR(ip_t_keys, 0, ncap, sizeof(sgc_obj)));
    ip_push(SGC_NEW_VAR(ip_t_vals, 0, ncap, sizeof(sgc_obj)));
    ip_dict *d = IP_TOP(4);
    ip_items *ok = d->keys, *ov = d->vals, *nk = IP_TOP(1), *nv = IP_TOP(0);
    uint64_t mask = (uint64_t)ncap - 1;
    for (int64_t j = 0; j < d->cap; j++) {
        if (!ok->v[j])
            continue;
        uint64_t i = ip_hash(ok->v[j]) & mask;
        while (nk->v[i])
            i = (i + 1) & mask;
        nk->v[i] = ok->v[j];
        nv->v[i] = ov->v[j];
    }
    sgc_write_barrier(nk);
    sgc_write_barrier(nv);
    SGC_SET(d, keys, (sgc_obj)nk);
    SGC_SET(d, vals, (sgc_obj)nv);
    d->cap = ncap;
    IP_SP -= 2;
}

void ip_dict_set_top(void) {
    ip_dict *d = IP_TOP(2);
    int64_t i = ip_dict_find(d, IP_TOP(1));
    if (((ip_items *)d->keys)->v[i] == NULL) {
        if ((d->count + 1) * 3 > d->cap * 2) {
            ip_dict_grow();
            d = IP_TOP(2);
            i = ip_dict_find(d, IP_TOP(1));
        }
        ip_items *keys = d->keys;
        keys->v[i] = IP_TOP(1);
        sgc_write_barrier(keys);
        d->count++;
    }
    ip_items *vals = d->vals;
    vals->v[i] = IP_TOP(0);
    sgc_write_barrier(vals);
    IP_SP -= 3;
}

void ip_buf_add(ip_buf *buf, const char *s, size_t n) {
    if (buf->len + n + 1 > buf->cap) {
        size_t cap = buf->cap ? buf->cap : 64;
        while (buf->len + n + 1 > cap)
            cap *= 2;
        char *b = realloc(buf->b, cap);
        if (!b) {
            fprintf(stderr, "interp: out of memory formatting a value\n");
            exit(1);
        }
        buf->b = b;
        buf->cap = cap;
    }
    memcpy(buf->b + buf->len, s, n);
    buf->len += n;
    buf->b[buf->len] = '\0';
}

static void ip_buf_str(ip_buf *buf, const char *s) { ip_buf_add(buf, s, strlen(s)); }

void ip_format(ip_buf *buf, sgc_obj v, int repr) {
    char tmp[64];
    if (v == NULL) {
        ip_buf_str(buf, "nil");
        return;
    }
    uint32_t t = SGC_TYPE_OF(v);
    if (t == ip_t_int) {
        snprintf(tmp, sizeof tmp, "%" PRId64, IP_INT(v));
        ip_buf_str(buf, tmp);
    } else if (t == ip_t_float) {
        double d = IP_FLOAT(v);
        snprintf(tmp, sizeof tmp, "%.17g", d);
        if (isfinite(d) && !strpbrk(tmp, ".e"))
            strcat(tmp, ".0");
        ip_buf_str(buf, tmp);
    } else if (t == ip_t_bool) {
        ip_buf_str(buf, ((ip_bool *)v)->v ? "true" : "false");
    } else if (t == ip_t_str) {
        if (repr)
            ip_buf_add(buf, "\"", 1);
        ip_buf_add(buf, IP_STR(v)->b, (size_t)IP_STR(v)->len);
        if (repr)
            ip_buf_add(buf, "\"", 1);
    } else if (t == ip_t_list) {
        ip_buf_add(buf, "[", 1);
        for (int64_t i = 0; i < IP_LIST(v)->len; i++) {
            if (i)
                ip_buf_add(buf, ", ", 2);
            ip_format(buf, ((ip_items *)IP_LIST(v)->items)->v[i], 1);
        }
        ip_buf_add(buf, "]", 1);
    } else if (t == ip_t_dict) {
        ip_dict *d = v;
        int first = 1;
        ip_buf_add(buf, "{", 1);
        for (int64_t i = 0; i < d->cap; i++) {
            sgc_obj k = ((ip_items *)d->keys)->v[i];
            if (!k)
                continue;
            if (!first)
                ip_buf_add(buf, ", ", 2);
            first = 0;
            ip_format(buf, k, 1);
            ip_buf_add(buf, ": ", 2);
            ip_format(buf, ((ip_items *)d->vals)->v[i], 1);
        }
        ip_buf_add(buf, "}", 1);
    } else {
        snprintf(tmp, sizeof tmp, "<%s>", ip_type_name(v));
        ip_buf_str(buf, tmp);
    }
}
