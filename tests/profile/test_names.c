/* test_names.c - Criterion tests: function and type names with ';', spaces,
 * newlines, backslashes, control and non-UTF-8 bytes come out of folded,
 * speedscope and pprof as valid UTF-8, escaped one way
 * (runtime/sgcprof/sgcprof_names.h), and unescape to the original bytes. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include "profile.pb-c.h"
#include "sgc_internal.h"
#include "sgc_profile.h"

static char npath[256];

/* Names as a program could give them (sgc_func.name, sgc_type.name). */
static const char *const raw_names[] = {
    "semi;colon",        "with space",
    "new\nline",         "tab\there",
    "back\\slash\\x41",  "\xff\xfe bad bytes",
    "trunc\xc3",         "utf8 \xc3\xa9t\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80",
    "overlong \xc0\xaf", "surrogate \xed\xa0\x80",
    "ctl\x01\x1f\x7f",   "quote\"brace{",
    "\\n literal",
};
#define NNAMES (sizeof raw_names / sizeof raw_names[0])

/* The inverse of sgcprof_escape (written independently of it). */
static char *unescape(const char *s) {
    char *out = malloc(strlen(s) + 1), *o = out;
    while (*s) {
        if (*s != '\\') {
            *o++ = *s++;
            continue;
        }
        s++;
        cr_assert(*s, "a lone backslash at the end");
        char c = *s++;
        if (c == '\\')
            *o++ = '\\';
        else if (c == 'n')
            *o++ = '\n';
        else if (c == 't')
            *o++ = '\t';
        else if (c == 'r')
            *o++ = '\r';
        else if (c == 'x') {
            char hex[3] = {s[0], s[1], 0};
            cr_assert(s[0] && s[1], "\\x needs two digits");
            *o++ = (char)strtol(hex, NULL, 16);
            s += 2;
        } else
            cr_assert_fail("unknown escape \\%c", c);
    }
    *o = 0;
    return out;
}

/* Strict UTF-8 check (no overlongs, surrogates, > U+10FFFF) and no control
 * characters but the newlines allowed between lines (allow_nl). */
static void assert_utf8(const unsigned char *s, size_t n, int allow_nl, const char *what) {
    for (size_t i = 0; i < n;) {
        unsigned c = s[i];
        if (c < 0x80) {
            cr_assert(c >= 0x20 && c != 0x7f ? 1 : (allow_nl && c == '\n'), "%s: control byte 0x%02x at %zu", what, c,
                      i);
            i++;
            continue;
        }
        size_t k = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : 2;
        cr_assert(c >= 0xc2 && c <= 0xf4, "%s: bad lead byte 0x%02x at %zu", what, c, i);
        cr_assert_leq(i + k, n, "%s: cut sequence at %zu", what, i);
        uint32_t cp = c & (k == 2 ? 0x1f : k == 3 ? 0x0f : 0x07);
        for (size_t j = 1; j < k; j++) {
            cr_assert_eq(s[i + j] & 0xc0, 0x80, "%s: bad continuation at %zu", what, i + j);
            cp = cp << 6 | (s[i + j] & 0x3f);
        }
        cr_assert(!(k == 3 && cp < 0x800) && !(k == 4 && cp < 0x10000) && cp <= 0x10ffff &&
                      !(cp >= 0xd800 && cp <= 0xdfff),
                  "%s: invalid code point U+%X at %zu", what, cp, i);
        i += k;
    }
}

static int is_raw_name(const char *s) {
    for (size_t i = 0; i < NNAMES; i++)
        if (!strcmp(s, raw_names[i]))
            return 1;
    return 0;
}

static char *run_output(const char *args, size_t *n) {
    char cmd[1024], out[300];
    snprintf(out, sizeof out, "%s.out", npath);
    snprintf(cmd, sizeof cmd, "%s %s '%s' > '%s'", SGCPROF_BIN, args, npath, out);
    int st = system(cmd);
    cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "sgcprof %s failed", args);
    FILE *f = fopen(out, "rb");
    cr_assert_not_null(f);
    fseek(f, 0, SEEK_END);
    *n = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = malloc(*n + 1);
    cr_assert_eq(fread(b, 1, *n, f), *n);
    b[*n] = 0;
    fclose(f);
    unlink(out);
    return b;
}

/* A profile whose every frame and type has one of raw_names: one alloc and
 * one time sample per name, at stack "with space" / name. */
static void make_named_profile(void) {
    snprintf(npath, sizeof npath, "%s/sgc-test-names-%d.prof", P_tmpdir, (int)getpid());
    setenv("SGC_PROFILE", npath, 1);
    unsetenv("SGC_ALLOC_PERIOD");
    unsetenv("SGC_TIME_HZ");
    unsetenv("SGC_STATS");
    sgc_init();
    static sgc_func fns[NNAMES];
    static sgc_type types[NNAMES];
    uint32_t tids[NNAMES];
    for (size_t i = 0; i < NNAMES; i++) {
        fns[i] = (sgc_func){raw_names[i], 0};
        types[i] = (sgc_type){raw_names[i], 8, 0, SGC_VAR_NONE};
        tids[i] = sgc_type_register(&types[i]);
    }
    uint64_t t0 = sgc__now_ns();
    sgc__profile_sampling_config(t0, 1000, 0);
    sgc__profile_time_config(t0, 1000, 0);
    SGC_FRAME_FN(&fns[1]);
    for (size_t i = 0; i < NNAMES; i++) {
        SGC_FRAME_FN(&fns[i]);
        uint32_t node = sgc__profile_stack_current();
        sgc__profile_alloc_sample(&(sgc_alloc_sample){t0 + i, 8, node, tids[i], 1, SGC_DIED, 0});
        sgc__profile_time_sample(t0 + i, node, 0);
    }
    sgc_shutdown();
}

Test(names, folded_escapes_and_round_trips) {
    make_named_profile();
    size_t n;
    char *out = run_output("folded --alloc", &n);
    assert_utf8((const unsigned char *)out, n, 1, "folded");
    size_t lines = 0;
    for (char *line = strtok(out, "\n"); line; line = strtok(NULL, "\n"), lines++) {
        char *sp = strrchr(line, ' ');
        cr_assert_not_null(sp, "%s", line);
        cr_assert_str_eq(sp + 1, "1000");
        *sp = 0;
        cr_assert_null(strchr(line, ' '), "a space left in a folded stack: %s", line);
        char *semi = strchr(line, ';');
        cr_assert_not_null(semi, "two frames: %s", line);
        cr_assert_null(strchr(semi + 1, ';'), "a ';' left in a name: %s", line);
        *semi = 0;
        char *root = unescape(line), *leaf = unescape(semi + 1);
        cr_assert_str_eq(root, "with space");
        cr_assert(is_raw_name(leaf), "'%s' unescapes to a name not in the profile", semi + 1);
        free(root);
        free(leaf);
    }
    cr_assert_eq(lines, NNAMES, "one line per leaf name");
    free(out);
    out = run_output("folded --alloc", &n);
    cr_assert(strstr(out, ";utf8\\x20\xc3\xa9t\xc3\xa9\\x20\xe2\x82\xac\\x20\xf0\x9f\x98\x80 1000\n"),
              "valid UTF-8 as it is, spaces escaped: %s", out);
    free(out);
    unlink(npath);
}

/* The JSON string starting at *p (after its opening quote): decoded, *p
 * moved past the closing quote. */
static char *json_string(const char **p) {
    const char *s = *p;
    char *out = malloc(strlen(s) + 1), *o = out;
    while (*s != '"') {
        cr_assert(*s, "unterminated JSON string");
        if (*s == '\\') {
            s++;
            if (*s == 'u') {
                cr_assert_fail("the names need no \\u escapes: %.12s", s - 1);
            }
            *o++ = *s++; /* \" and \\ only */
        } else {
            *o++ = *s++;
        }
    }
    *o = 0;
    *p = s + 1;
    return out;
}

Test(names, speedscope_escapes_and_round_trips) {
    make_named_profile();
    size_t n;
    char *out = run_output("speedscope", &n);
    assert_utf8((const unsigned char *)out, n, 1, "speedscope");
    const char *p = strstr(out, "\"frames\":[");
    cr_assert_not_null(p);
    size_t found = 0;
    while ((p = strstr(p, "{\"name\":\"")) != NULL) {
        p += 9;
        char *js = json_string(&p);
        char *raw = unescape(js);
        if (is_raw_name(raw))
            found++;
        else
            cr_assert(!strcmp(js, "[minor GC]") || !strcmp(js, "[major GC]") || !strcmp(js, "(no frame)"),
                      "frame '%s' is not a name of the profile", js);
        free(js);
        free(raw);
    }
    cr_assert_eq(found, NNAMES, "every name once (functions and types share the string table)");
    cr_assert(strstr(out, "{\"name\":\"utf8 \xc3\xa9t\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"}"),
              "valid UTF-8 is written as it is");
    free(out);
    unlink(npath);
}

Test(names, pprof_escapes_and_round_trips) {
    make_named_profile();
    char cmd[1024], pb[300];
    snprintf(pb, sizeof pb, "%s.pb.gz", npath);
    snprintf(cmd, sizeof cmd, "%s pprof '%s' -o '%s'", SGCPROF_BIN, npath, pb);
    int st = system(cmd);
    cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    gzFile g = gzopen(pb, "rb");
    cr_assert_not_null(g);
    size_t cap = 1 << 16, n = 0;
    uint8_t *buf = malloc(cap);
    int k;
    while ((k = gzread(g, buf + n, (unsigned)(cap - n))) > 0) {
        n += (size_t)k;
        if (n == cap)
            buf = realloc(buf, cap *= 2);
    }
    cr_assert_eq(k, 0, "gzip stream ends cleanly");
    gzclose(g);
    Perftools__Profiles__Profile *p = perftools__profiles__profile__unpack(NULL, n, buf);
    cr_assert_not_null(p, "a valid profile.proto message");
    cr_assert_str_eq(p->string_table[0], "");
    for (size_t i = 0; i < p->n_string_table; i++)
        assert_utf8((const unsigned char *)p->string_table[i], strlen(p->string_table[i]), 0, p->string_table[i]);
    /* Every function is a name of the profile (or a pseudo-frame); every
     * name is a function; every type label unescapes to a name. */
    size_t funcs = 0, types = 0;
    for (size_t i = 0; i < p->n_function; i++) {
        const char *name = p->string_table[p->function[i]->name];
        char *raw = unescape(name);
        cr_assert(is_raw_name(raw), "function '%s' is not a name of the profile", name);
        funcs++;
        free(raw);
    }
    cr_assert_eq(funcs, NNAMES);
    int verbatim = 0;
    for (size_t i = 0; i < p->n_string_table; i++)
        verbatim |= !strcmp(p->string_table[i], "utf8 \xc3\xa9t\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80");
    cr_assert(verbatim, "valid UTF-8 is written as it is");
    for (size_t i = 0; i < p->n_sample; i++)
        for (size_t j = 0; j < p->sample[i]->n_label; j++) {
            const Perftools__Profiles__Label *l = p->sample[i]->label[j];
            if (strcmp(p->string_table[l->key], "type"))
                continue;
            char *raw = unescape(p->string_table[l->str]);
            cr_assert(is_raw_name(raw), "type label '%s'", p->string_table[l->str]);
            types++;
            free(raw);
        }
    cr_assert_eq(types, NNAMES, "one allocation sample per type");
    perftools__profiles__profile__free_unpacked(p, NULL);
    free(buf);
    unlink(pb);
    unlink(npath);
}
