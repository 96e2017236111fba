/* sgc_statsrec.c - the stats record's rules (sgc_statsrec.h). */
#include "sgc_statsrec.h"
#include "sgc_modes.h"
#include "sgc_stats_keys.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The table's keys by index, their types and names. */
#define SGC__REC_ENUM(key, type, value, what) SGC__REC_##key,
enum { SGC_STATS_KEYS(SGC__REC_ENUM) SGC__REC_NKEYS };
#undef SGC__REC_ENUM

enum { T_U64, T_INT, T_DEC3, T_WORD };
#define SGC__REC_TYPE(key, type, value, what) T_##type,
static const unsigned char key_type[SGC__REC_NKEYS] = {SGC_STATS_KEYS(SGC__REC_TYPE)};
#undef SGC__REC_TYPE
#define SGC__REC_NAME(key, type, value, what) #key,
static const char *const key_name[SGC__REC_NKEYS] = {SGC_STATS_KEYS(SGC__REC_NAME)};
#undef SGC__REC_NAME

/* The vocabulary of each WORD key.  A WORD key without one here is refused
 * by sgc_statsrec_check_value's self-check (tests/harness/test_plan.c
 * checks every WORD key of the table has one). */
static const struct {
    int key;
    int (*parse)(const char *);
    const char *(*name)(int);
} vocab[] = {
    {SGC__REC_alloc_mode, sgc_alloc_mode_parse, sgc_alloc_mode_name},
    {SGC__REC_time_clock, sgc_clock_parse, sgc_clock_name},
    {SGC__REC_time_mode, sgc_time_mode_parse, sgc_time_mode_name},
    {SGC__REC_sample_spin_clock, sgc_clock_parse, sgc_clock_name},
};

static int key_index(const char *key) {
    for (int k = 0; k < SGC__REC_NKEYS; k++)
        if (!strcmp(key, key_name[k]))
            return k;
    return -1;
}

static void set_error(sgc_statsrec_error *err, sgc_statsrec_kind kind, int line, const char *why, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static void set_error(sgc_statsrec_error *err, sgc_statsrec_kind kind, int line, const char *why, const char *fmt,
                      ...) {
    err->kind = kind;
    err->line = line;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->what, sizeof err->what, fmt, ap);
    va_end(ap);
    snprintf(err->why, sizeof err->why, "%s", why);
}

/* A printable copy of n bytes for a message, shortened to fit size (at
 * least 5) with "..."; bytes outside ASCII's printable range as \xNN. */
static void shown(char *out, size_t size, const char *s, size_t n) {
    size_t j = 0, i = 0;
    for (; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        char tmp[8];
        int w = c >= 0x20 && c < 0x7f ? (tmp[0] = (char)c, 1) : snprintf(tmp, sizeof tmp, "\\x%02x", c);
        if (j + (size_t)w + 4 > size)
            break; /* room left for "..." and the terminator */
        memcpy(out + j, tmp, (size_t)w);
        j += (size_t)w;
    }
    if (i < n) {
        memcpy(out + j, "...", 3);
        j += 3;
    }
    out[j] = '\0';
}

int sgc_statsrec_split(const char *text, size_t len, sgc_statsrec_line *lines, int max, sgc_statsrec_error *err) {
    static const char header[] = "sgc-stats ";
    char buf[96];
    memset(err, 0, sizeof *err);
    if (len > SGC_STATSREC_MAX_BYTES) {
        set_error(err, SGC_STATSREC_FORM, 0, "a stats record is a few kilobytes; this is not one",
                  "%zu bytes (more than %d)", len, SGC_STATSREC_MAX_BYTES);
        return -1;
    }
    const char *end = text + len, *nl = memchr(text, '\n', len);
    size_t first = nl ? (size_t)(nl - text) : len;
    if (first < sizeof header - 1 || memcmp(text, header, sizeof header - 1)) {
        shown(buf, 40, text, first);
        set_error(err, SGC_STATSREC_FORM, 1, "its first line is not 'sgc-stats <version>'", "'%s'", buf);
        return -1;
    }
    if (first && text[first - 1] == '\r') {
        shown(buf, 40, text, first - 1);
        set_error(err, SGC_STATSREC_FORM, 1,
                  "it ends with a carriage return (CRLF line ends): a record's lines end with \\n alone", "'%s'", buf);
        return -1;
    }
    const char *v = text + sizeof header - 1;
    size_t vlen = first - (sizeof header - 1);
    if (!(vlen == 1 && v[0] == '0' + SGC_STATSREC_VERSION)) {
        shown(buf, 40, v, vlen);
        set_error(err, SGC_STATSREC_FORM, 1, "this build reads version 1 only (docs/FORMATS.md)", "version '%s'", buf);
        return -1;
    }
    if (!nl) {
        set_error(err, SGC_STATSREC_FORM, 1, "the file ends without a line end: a record is written whole",
                  "the first line");
        return -1;
    }
    int n = 0, lineno = 1;
    for (const char *p = nl + 1; p < end;) {
        lineno++;
        const char *e = memchr(p, '\n', (size_t)(end - p));
        if (!e) {
            shown(buf, 60, p, (size_t)(end - p));
            set_error(err, SGC_STATSREC_FORM, lineno,
                      "the file ends in the middle of a line: a record is written whole (truncated?)", "'%s'", buf);
            return -1;
        }
        size_t l = (size_t)(e - p);
        if (l && p[l - 1] == '\r') {
            shown(buf, 60, p, l - 1);
            set_error(err, SGC_STATSREC_FORM, lineno,
                      "it ends with a carriage return (CRLF line ends): a record's lines end with \\n alone", "'%s'",
                      buf);
            return -1;
        }
        if (!l) {
            set_error(err, SGC_STATSREC_FORM, lineno, "a record has no blank lines", "a blank line");
            return -1;
        }
        const char *sp = memchr(p, ' ', l);
        size_t klen = sp ? (size_t)(sp - p) : l;
        int ok = sp && klen > 0 && l > klen + 1;
        for (size_t i = 0; ok && i < klen; i++)
            ok = (p[i] >= 'a' && p[i] <= 'z') || (p[i] >= '0' && p[i] <= '9') || p[i] == '_';
        for (size_t i = klen + 1; ok && i < l; i++)
            ok = (unsigned char)p[i] > 0x20 && (unsigned char)p[i] < 0x7f;
        if (!ok) {
            shown(buf, 60, p, l);
            set_error(err, SGC_STATSREC_FORM, lineno,
                      "a line is 'key value': a key of a-z, 0-9 and _, one space, a value without spaces", "'%s'", buf);
            return -1;
        }
        for (int i = 0; i < n; i++)
            if (lines[i].key_len == klen && !memcmp(lines[i].key, p, klen)) {
                shown(buf, 48, p, klen);
                char why[96];
                snprintf(why, sizeof why, "every key appears once (first on line %d)", lines[i].line);
                set_error(err, SGC_STATSREC_FORM, lineno, why, "key %s again", buf);
                return -1;
            }
        if (n == max || n == SGC_STATSREC_MAX_KEYS) {
            set_error(err, SGC_STATSREC_FORM, lineno, "a stats record has fewer keys", "more than %d keys",
                      n < SGC_STATSREC_MAX_KEYS ? n : SGC_STATSREC_MAX_KEYS);
            return -1;
        }
        lines[n++] =
            (sgc_statsrec_line){.key = p, .key_len = klen, .value = sp + 1, .value_len = l - klen - 1, .line = lineno};
        p = e + 1;
    }
    return n;
}

static int all_digits(const char *s) {
    if (!*s)
        return 0;
    for (; *s; s++)
        if (*s < '0' || *s > '9')
            return 0;
    return 1;
}

/* A U64 value: digits only, below 2^64. */
static int u64_value(const char *s, uint64_t *out) {
    if (!all_digits(s))
        return -1;
    errno = 0;
    unsigned long long v = strtoull(s, NULL, 10);
    if (errno)
        return -1;
    *out = v;
    return 0;
}

int sgc_statsrec_check_value(const char *key, const char *value, const char **why) {
    int k = key_index(key);
    if (k < 0)
        return 0;
    uint64_t u;
    switch (key_type[k]) {
    case T_U64:
        if (u64_value(value, &u) == 0)
            return 0;
        *why = "a whole number from 0 to 18446744073709551615, decimal digits only (type U64)";
        return -1;
    case T_INT: {
        const char *d = value[0] == '-' ? value + 1 : value;
        if (all_digits(d)) {
            errno = 0;
            long long v = strtoll(value, NULL, 10);
            if (!errno && v >= INT_MIN && v <= INT_MAX)
                return 0;
        }
        *why = "a whole number within an int, decimal digits with an optional '-' (type INT)";
        return -1;
    }
    case T_DEC3: {
        const char *dot = strchr(value, '.');
        if (dot && dot > value && strlen(dot) == 4 && all_digits(dot + 1)) {
            int ok = 1;
            for (const char *p = value; p < dot; p++)
                ok &= *p >= '0' && *p <= '9';
            if (ok)
                return 0;
        }
        *why = "a decimal of 0 or more with three places, such as 2.000 (type DEC3)";
        return -1;
    }
    case T_WORD:
        for (size_t i = 0; i < sizeof vocab / sizeof *vocab; i++)
            if (vocab[i].key == k) {
                if (vocab[i].parse(value) >= 0)
                    return 0;
                *why = vocab[i].name == sgc_alloc_mode_name ? "an allocation sampling mode of runtime/sgc_modes.h"
                       : vocab[i].name == sgc_clock_name    ? "a clock of runtime/sgc_modes.h"
                                                            : "a time sampling mode of runtime/sgc_modes.h";
                return -1;
            }
        *why = "a word key without a vocabulary in runtime/sgc_statsrec.c (add its row there)";
        return -1;
    }
    *why = "a key of an unknown type";
    return -1;
}

int sgc_statsrec_judge(const char *const *keys, const char *const *values, const int *lines, int n, unsigned flags,
                       sgc_statsrec_error *err) {
    memset(err, 0, sizeof *err);
    const char *val[SGC__REC_NKEYS] = {0};
    int line_of[SGC__REC_NKEYS] = {0};
    for (int i = 0; i < n; i++) {
        const char *why;
        if (sgc_statsrec_check_value(keys[i], values[i], &why) != 0) {
            char buf[96];
            shown(buf, sizeof buf, values[i], strlen(values[i]));
            set_error(err, SGC_STATSREC_VALUE, lines ? lines[i] : 0, why, "%s = %s", keys[i], buf);
            return -1;
        }
        int k = key_index(keys[i]);
        if (k >= 0) {
            val[k] = values[i];
            line_of[k] = lines ? lines[i] : 0;
        }
    }
    if (flags & SGC_STATSREC_ALL_KEYS) {
        for (int k = 0; k < SGC__REC_NKEYS; k++)
            if (!val[k]) {
                set_error(err, SGC_STATSREC_MISSING, 0,
                          "a record of this runtime has every key of runtime/sgc_stats_keys.h (docs/FORMATS.md)",
                          "no key %s", key_name[k]);
                return -1;
            }
    } else if (flags & SGC_STATSREC_REQUIRE_CORE) {
#define SGC__REC_CORE(key)                                                                                         \
    if (!val[SGC__REC_##key]) {                                                                                    \
        set_error(err, SGC_STATSREC_MISSING, 0,                                                                    \
                  "every stats record has run_ns, bytes_allocated, alloc_period and alloc_mode (docs/FORMATS.md)", \
                  "no key %s", #key);                                                                              \
        return -1;                                                                                                 \
    }
        SGC_STATSREC_CORE(SGC__REC_CORE)
#undef SGC__REC_CORE
    }
    /* The table's sums, and the sample counts' order (sgc_statsrec.h). */
    static const struct {
        int total, a, b;
    } sums[] = {
        {SGC__REC_bytes_allocated, SGC__REC_nursery_bytes, SGC__REC_large_bytes},
        {SGC__REC_objects_allocated, SGC__REC_nursery_objects, SGC__REC_large_objects},
        {SGC__REC_gc_ns, SGC__REC_minor_ns, SGC__REC_major_ns},
    };
    for (size_t i = 0; i < sizeof sums / sizeof *sums; i++) {
        uint64_t t, a, b;
        if (!val[sums[i].total] || !val[sums[i].a] || !val[sums[i].b])
            continue;
        u64_value(val[sums[i].total], &t), u64_value(val[sums[i].a], &a), u64_value(val[sums[i].b], &b);
        if (a + b < a || t != a + b) {
            char why[128];
            snprintf(why, sizeof why, "%s is %s + %s (runtime/sgc_stats_keys.h)", key_name[sums[i].total],
                     key_name[sums[i].a], key_name[sums[i].b]);
            set_error(err, SGC_STATSREC_CONSISTENCY, line_of[sums[i].total], why, "%s %s with %s %s and %s %s",
                      key_name[sums[i].total], val[sums[i].total], key_name[sums[i].a], val[sums[i].a],
                      key_name[sums[i].b], val[sums[i].b]);
            return -1;
        }
    }
    const char *samples = val[SGC__REC_alloc_samples], *points = val[SGC__REC_alloc_sample_points],
               *bytes = val[SGC__REC_bytes_allocated];
    uint64_t s, p, by;
    if (samples && points && (u64_value(samples, &s), u64_value(points, &p), s > p)) {
        set_error(err, SGC_STATSREC_CONSISTENCY, line_of[SGC__REC_alloc_samples],
                  "an object is sampled only when it hits a sample point",
                  "%s allocation samples from %s sample points", samples, points);
        return -1;
    }
    if (points && bytes && (u64_value(points, &p), u64_value(bytes, &by), p > by)) {
        set_error(err, SGC_STATSREC_CONSISTENCY, line_of[SGC__REC_alloc_sample_points],
                  "a sample point is at least one byte apart from the last", "%s sample points in %s bytes allocated",
                  points, bytes);
        return -1;
    }
    return 0;
}

void sgc_statsrec_describe(const sgc_statsrec_error *err, char *buf, size_t size) {
    if (err->line)
        snprintf(buf, size, "line %d: %s: %s", err->line, err->what, err->why);
    else
        snprintf(buf, size, "%s: %s", err->what, err->why);
}
