/* st_json.c - summary.json from summary.csv: every column and row, numbers typed, units by column name. */
#include "st_json.h"
#include "st_util.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Units by column name: exact names first, then suffixes, then substrings
 * (docs/STATISTICS.md, "summary.json"). */
typedef struct unit_rule {
    int how; /* 0 exact, 1 suffix, 2 substring */
    const char *pat, *unit;
} unit_rule;

static const unit_rule rules[] = {
    {0, "alloc_period", "bytes"},
    {0, "bytes_allocated", "bytes"},
    {0, "size", "workload size (--size)"},
    {0, "depth", "stack frames"},
    {0, "time_hz", "Hz"},
    {0, "time_hz_achieved", "Hz"},
    {0, "runs", "runs"},
    {0, "runs_failed", "runs"},
    {0, "baseline_runs", "runs"},
    {0, "pairs", "blocks"},
    {0, "wall_outliers", "runs"},
    {0, "cpu_outliers", "runs"},
    {0, "exact_checked", "runs"},
    {0, "exact_mismatches", "runs"},
    {0, "alloc_samples", "samples per run"},
    {0, "alloc_sample_points", "sample points per run"},
    {0, "time_samples", "samples per run"},
    {0, "samples_ratio", "ratio (measured / expected samples)"},
    {0, "mw_u", "U statistic"},
    {0, "mw_p", "p-value"},
    {0, "aa_floor", "fraction"},
    {0, "paired_floor", "fraction"},
    {1, "_ns", "ns"},
    {2, "_us", "us"},
    {1, "_kb", "KiB"},
    {2, "sps", "samples/s"},
    {2, "norm", "ratio to the baseline, scaled to 1000 samples/s"},
    {2, "overhead", "ratio to the baseline"},
    {2, "aa_", "ratio (A/A)"},
    {2, "paired", "ratio to the baseline"},
};

const char *st_json_unit(const char *column) {
    size_t n = strlen(column);
    for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++) {
        const unit_rule *r = &rules[i];
        size_t k = strlen(r->pat);
        if ((r->how == 0 && strcmp(column, r->pat) == 0) ||
            (r->how == 1 && n >= k && strcmp(column + n - k, r->pat) == 0) || (r->how == 2 && strstr(column, r->pat)))
            return r->unit;
    }
    return NULL;
}

/* One parsed CSV: rows of fields (row 0 the header). */
typedef struct table {
    char ***rows;
    size_t *nf;
    size_t nrows, cap;
    char *comment;
} table;

static void add_row(table *t, char **fields, size_t nf) {
    if (t->nrows == t->cap) {
        t->cap = t->cap ? 2 * t->cap : 64;
        t->rows = st_xrealloc(t->rows, t->cap * sizeof *t->rows);
        t->nf = st_xrealloc(t->nf, t->cap * sizeof *t->nf);
    }
    t->rows[t->nrows] = fields;
    t->nf[t->nrows++] = nf;
}

/* Parses the text s into t: fields split at commas, rows at newlines (the
 * writer never quotes: it replaces commas and newlines inside text); a
 * first line starting with '#' is the comment. */
static void parse(char *s, table *t) {
    if (*s == '#') {
        char *nl = strchr(s, '\n');
        size_t len = nl ? (size_t)(nl - s) : strlen(s);
        t->comment = st_xmalloc(len + 1);
        memcpy(t->comment, s, len);
        t->comment[len] = 0;
        s += nl ? len + 1 : len;
    }
    while (*s) {
        size_t nf = 0, capf = 16;
        char **f = st_xmalloc(capf * sizeof *f);
        for (;;) {
            char *out = s, *start = s;
            while (*s && *s != ',' && *s != '\n')
                *out++ = *s++;
            char sep = *s;
            *out = 0;
            if (nf == capf)
                f = st_xrealloc(f, (capf *= 2) * sizeof *f);
            f[nf++] = start;
            if (sep)
                s++;
            if (sep != ',')
                break;
        }
        add_row(t, f, nf);
    }
}

static void json_str(FILE *f, const char *s) {
    fputc('"', f);
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\')
            fprintf(f, "\\%c", ch);
        else if (ch == '\n')
            fputs("\\n", f);
        else if (ch == '\r')
            fputs("\\r", f);
        else if (ch == '\t')
            fputs("\\t", f);
        else if (ch < 0x20)
            fprintf(f, "\\u%04x", ch);
        else
            fputc(ch, f);
    }
    fputc('"', f);
}

static int is_number(const char *s) {
    if (!*s)
        return 0;
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    /* JSON numbers: no leading '+', '.', hex or inf/nan words. */
    return !*end && !errno && isfinite(v) && (s[0] == '-' || (s[0] >= '0' && s[0] <= '9')) && !strpbrk(s, "xXpP") &&
           s[strlen(s) - 1] != '.';
}

int st_csv_to_json(const char *csv_path, FILE *f, char *err, size_t errlen) {
    FILE *in = fopen(csv_path, "r");
    if (!in) {
        snprintf(err, errlen, "cannot read %s for summary.json: %s", csv_path, strerror(errno));
        return 1;
    }
    size_t len = 0, cap = 1 << 16;
    char *text = st_xmalloc(cap);
    size_t got;
    while ((got = fread(text + len, 1, cap - len - 1, in)) > 0) {
        len += got;
        if (cap - len < 2)
            text = st_xrealloc(text, cap *= 2);
    }
    int rerr = ferror(in);
    fclose(in);
    text[len] = 0;
    if (rerr) {
        snprintf(err, errlen, "cannot read %s for summary.json", csv_path);
        free(text);
        return 1;
    }
    table t = {0};
    parse(text, &t);
    int rc = 0;
    if (t.nrows == 0) {
        snprintf(err, errlen, "%s has no header: cannot write summary.json", csv_path);
        rc = 1;
        goto out;
    }
    size_t ncol = t.nf[0];
    for (size_t r = 1; r < t.nrows; r++)
        if (t.nf[r] != ncol) {
            snprintf(err, errlen, "%s: row %zu has %zu fields, the header %zu: cannot write summary.json", csv_path, r,
                     t.nf[r], ncol);
            rc = 1;
            goto out;
        }
    int *numeric = st_xmalloc((ncol ? ncol : 1) * sizeof *numeric);
    for (size_t c = 0; c < ncol; c++) {
        numeric[c] = 1;
        for (size_t r = 1; r < t.nrows && numeric[c]; r++)
            if (t.rows[r][c][0] && !is_number(t.rows[r][c]))
                numeric[c] = 0;
    }
    fputs("{\n  \"format\": \"freecheck-summary-1\",\n  \"source\": \"summary.csv\",\n  \"comment\": ", f);
    if (t.comment)
        json_str(f, t.comment);
    else
        fputs("null", f);
    fputs(",\n  \"columns\": [", f);
    for (size_t c = 0; c < ncol; c++) {
        const char *u = numeric[c] ? st_json_unit(t.rows[0][c]) : NULL;
        fputs(c ? ",\n    {\"name\": " : "\n    {\"name\": ", f);
        json_str(f, t.rows[0][c]);
        fprintf(f, ", \"type\": \"%s\", \"unit\": ", numeric[c] ? "number" : "text");
        if (u)
            json_str(f, u);
        else
            fputs("null", f);
        fputc('}', f);
    }
    fputs("\n  ],\n  \"cells\": [", f);
    for (size_t r = 1; r < t.nrows; r++) {
        fputs(r > 1 ? ",\n    {" : "\n    {", f);
        for (size_t c = 0; c < ncol; c++) {
            if (c)
                fputs(", ", f);
            json_str(f, t.rows[0][c]);
            fputs(": ", f);
            const char *v = t.rows[r][c];
            if (!*v)
                fputs("null", f);
            else if (numeric[c])
                fputs(v, f);
            else
                json_str(f, v);
        }
        fputc('}', f);
    }
    fputs(t.nrows > 1 ? "\n  ]\n}\n" : "]\n}\n", f);
    free(numeric);
out:
    for (size_t r = 0; r < t.nrows; r++)
        free(t.rows[r]);
    free(t.rows);
    free(t.nf);
    free(t.comment);
    free(text);
    return rc;
}
