/* sw_util.c - errors, heap strings, sizes, clocks and the generator. */
#include "sw_util.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void (*exit_hook)(void);

static SW_NORETURN void out_of_memory(void) { sw_fatal("out of memory"); }

void sw_set_exit_hook(void (*hook)(void)) {
    exit_hook = hook;
    ct_set_out_of_memory(hook ? out_of_memory : NULL);
}

static SW_NORETURN void die(int status, const char *fmt, va_list ap) {
    void (*hook)(void) = exit_hook;
    exit_hook = NULL; /* a failure inside the hook must not recurse */
    fputs("sweep: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    if (hook)
        hook(); /* after the message: what it prints (a resume hint) follows the cause */
    exit(status);
}

void sw_usage_error(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    die(2, fmt, ap);
}

void sw_fatal(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    die(1, fmt, ap);
}

void sw_assert_fail(const char *file, int line, const char *cond, const char *why) {
    fprintf(stderr, "sweep: %s:%d: invariant broken: %s: %s\n", file, line, cond, why);
    abort();
}

char *sw_xasprintf(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *s = ct_xmalloc((size_t)n + 1);
    va_start(ap, fmt);
    vsnprintf(s, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return s;
}

/* Makes room for n more bytes plus the terminator. */
static void buf_reserve(sw_buf *b, size_t n) {
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 64;
        while (cap < b->len + n + 1)
            cap *= 2;
        b->data = ct_xrealloc(b->data, cap);
        b->cap = cap;
    }
}

void sw_buf_append(sw_buf *b, const char *s, size_t n) {
    buf_reserve(b, n);
    memcpy(b->data + b->len, s, n);
    b->len += n;
    b->data[b->len] = '\0';
}

void sw_buf_puts(sw_buf *b, const char *s) { sw_buf_append(b, s, strlen(s)); }

void sw_buf_printf(sw_buf *b, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    buf_reserve(b, (size_t)n);
    va_start(ap, fmt);
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

void sw_buf_free(sw_buf *b) {
    free(b->data);
    b->data = NULL;
    b->len = b->cap = 0;
}

int sw_parse_uint(const char *s, uint64_t max, uint64_t *out) {
    if (!s || *s < '0' || *s > '9')
        return -1;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end || v > max)
        return -1;
    *out = v;
    return 0;
}

int sw_parse_bytes(const char *s, uint64_t *out) {
    if (!s || *s < '0' || *s > '9')
        return -1;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno)
        return -1;
    unsigned shift = 0;
    switch (*end) {
    case 'k':
    case 'K':
        shift = 10;
        end++;
        break;
    case 'm':
    case 'M':
        shift = 20;
        end++;
        break;
    case 'g':
    case 'G':
        shift = 30;
        end++;
        break;
    case 't':
    case 'T':
        shift = 40;
        end++;
        break;
    default: break;
    }
    if (*end)
        return -1;
    if (shift && v > (UINT64_MAX >> shift))
        return -1;
    *out = (uint64_t)v << shift;
    return 0;
}

int sw_parse_seconds(const char *s, double *out) {
    if (!s || !*s)
        return -1;
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || *end || !isfinite(v) || v <= 0)
        return -1;
    *out = v;
    return 0;
}

char *sw_format_bytes(uint64_t bytes, char *buf, size_t size) {
    static const char units[] = "TGMK";
    for (int i = 0; i < 4; i++) {
        unsigned shift = (unsigned)(40 - 10 * i);
        uint64_t unit = (uint64_t)1 << shift;
        if (bytes >= unit && bytes % unit == 0) {
            snprintf(buf, size, "%llu%c", (unsigned long long)(bytes >> shift), units[i]);
            return buf;
        }
    }
    snprintf(buf, size, "%llu", (unsigned long long)bytes);
    return buf;
}

uint64_t sw_now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t sw_wallclock_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void sw_rng_seed(sw_rng *r, uint64_t seed) { r->state = seed; }

uint64_t sw_rng_next(sw_rng *r) {
    uint64_t z = (r->state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

uint64_t sw_rng_below(sw_rng *r, uint64_t n) {
    /* Rejecting the first (2^64 mod n) values removes the modulo bias. */
    uint64_t threshold = (0 - n) % n;
    uint64_t x;
    do
        x = sw_rng_next(r);
    while (x < threshold);
    return x % n;
}

uint64_t sw_mix64(uint64_t a, uint64_t b) {
    sw_rng r = {a ^ (b * 0xd6e8feb86659fd93ull)};
    return sw_rng_next(&r);
}

char *sw_read_file_max(const char *path, size_t max) {
    FILE *f = fopen(path, "re");
    if (!f)
        return NULL;
    sw_buf b = {0};
    char chunk[8192];
    size_t n;
    int big = 0;
    while (!big && (n = fread(chunk, 1, sizeof chunk, f)) > 0) {
        if (b.len + n > max)
            big = 1;
        else
            sw_buf_append(&b, chunk, n);
    }
    int err = ferror(f);
    fclose(f);
    if (err || big) {
        sw_buf_free(&b);
        errno = big ? EFBIG : EIO;
        return NULL;
    }
    /* A NUL byte would end the text early: a text file has none. */
    if (b.data && memchr(b.data, '\0', b.len)) {
        sw_buf_free(&b);
        errno = EILSEQ;
        return NULL;
    }
    if (!b.data)
        sw_buf_puts(&b, "");
    return b.data;
}

char *sw_read_file(const char *path) { return sw_read_file_max(path, SW_READ_MAX); }

const char *sw_read_error(int err) {
    return err == EFBIG    ? "longer than a text file the sweep reads (16 MiB)"
           : err == EILSEQ ? "it holds a NUL byte: not a text file"
                           : strerror(err);
}
