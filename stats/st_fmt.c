/* st_fmt.c - number and text formatting of the statistics outputs (st_fmt.h). */
#include "st_fmt.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

const char *st_fmt_num(char *b, double v, int digits, const char *missing) {
    if (!isfinite(v))
        return missing;
    snprintf(b, 32, "%.*g", digits, v);
    return b;
}

static char bufs[ST_FMT_NBUF][ST_FMT_BUFLEN];
static int nextbuf;
char *st_fmt_buf(void) {
    nextbuf = (nextbuf + 1) % ST_FMT_NBUF;
    return bufs[nextbuf];
}

const char *st_fmt_csv(double v, int digits) { return st_fmt_num(st_fmt_buf(), v, digits, ""); }

void st_fmt_human(char *b, size_t size, double v, int digits) {
    if (fabs(v) >= pow(10, digits) && fabs(v) < 1e15)
        snprintf(b, size, "%.0f", v);
    else
        snprintf(b, size, "%.*g", digits, v);
}

void st_fmt_plain(char *b, size_t size, double v, int digits) {
    double a = fabs(v);
    if (a < 5e-7) {
        snprintf(b, size, "0");
        return;
    }
    st_fmt_human(b, size, v, digits);
    if (!strchr(b, 'e') || a >= 1e15)
        return;
    if (a >= 1) { /* %g rounded up to 10^digits */
        snprintf(b, size, "%.0f", v);
        return;
    }
    int dec = digits - 1 - (int)floor(log10(a));
    snprintf(b, size, "%.*f", dec > 6 ? 6 : dec, v);
}

const char *st_fmt_md(double v, int digits) {
    if (!isfinite(v))
        return "n/a";
    char *b = st_fmt_buf();
    st_fmt_plain(b, ST_FMT_BUFLEN, v, digits);
    return b;
}

void st_fmt_csv_text(FILE *f, const char *s) {
    for (; *s; s++)
        fputc(*s == ',' ? ';' : (*s == '\n' || *s == '\r') ? ' ' : *s, f);
}

void st_fmt_dat_word(FILE *f, const char *s) {
    if (!*s) {
        fputc('-', f);
        return;
    }
    for (; *s; s++)
        fputc((*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r') ? '_' : *s, f);
}

const char *st_fmt_period(int64_t p) {
    char *b = st_fmt_buf();
    if (p <= 0)
        snprintf(b, ST_FMT_BUFLEN, "0");
    else if (p % (1LL << 30) == 0)
        snprintf(b, ST_FMT_BUFLEN, "%lldG", (long long)(p >> 30));
    else if (p % (1LL << 20) == 0)
        snprintf(b, ST_FMT_BUFLEN, "%lldM", (long long)(p >> 20));
    else if (p % (1LL << 10) == 0)
        snprintf(b, ST_FMT_BUFLEN, "%lldK", (long long)(p >> 10));
    else
        snprintf(b, ST_FMT_BUFLEN, "%lld", (long long)p);
    return b;
}

const char *st_fmt_ci(const st_interval *iv, int digits) {
    char *b = st_fmt_buf(), e[24], l[24], h[24];
    if (!isfinite(iv->est)) {
        snprintf(b, ST_FMT_BUFLEN, "n/a");
        return b;
    }
    st_fmt_plain(e, sizeof e, iv->est, digits);
    if (iv->method == ST_CI_NONE) {
        snprintf(b, ST_FMT_BUFLEN, "%s (no CI)", e);
        return b;
    }
    st_fmt_plain(l, sizeof l, iv->lo, digits);
    st_fmt_plain(h, sizeof h, iv->hi, digits);
    snprintf(b, ST_FMT_BUFLEN, "%s [%s, %s]%s", e, l, h, iv->method == ST_CI_PERCENTILE ? "*" : "");
    return b;
}
