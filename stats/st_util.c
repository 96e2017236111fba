/* st_util.c - checked allocation and FNV-1a hashing for the statistics module. */
#include "st_util.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

uint64_t st_fnv1a64(uint64_t h, const char *s) {
    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 0x100000001b3ULL;
    }
    return h;
}

void st_csv_field(FILE *f, const char *s) {
    if (!s)
        return;
    if (!strpbrk(s, ",\"\n\r")) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

const char *st_opt_value(int argc, char **argv, int *i, const char *name) {
    size_t n = strlen(name);
    if (strncmp(argv[*i], name, n) == 0 && argv[*i][n] == '=')
        return argv[*i] + n + 1;
    if (strcmp(argv[*i], name) == 0)
        return *i + 1 < argc ? argv[++*i] : "";
    return NULL;
}

int st_opt_u64(const char *v, unsigned long long lo, unsigned long long hi, unsigned long long *out) {
    char *end;
    errno = 0;
    unsigned long long x = strtoull(v, &end, 10);
    if (!*v || *end || errno || *v == '-' || x < lo || x > hi)
        return -1;
    *out = x;
    return 0;
}

int st_opt_real(const char *v, double lo, double hi, double *out) {
    char *end;
    errno = 0;
    double x = strtod(v, &end);
    if (!*v || *end || errno || !(x > lo && x < hi))
        return -1;
    *out = x;
    return 0;
}

int st_opt_percent(const char *v, double lo, double hi, double *out) {
    char *end;
    errno = 0;
    double x = strtod(v, &end) / 100.0;
    if (!*v || errno || (*end && strcmp(end, "%")) || !(x >= lo && x < hi))
        return -1;
    *out = x;
    return 0;
}

void st_note_add(char *note, size_t size, const char *fmt, va_list ap) {
    size_t len = strlen(note);
    if (len + 3 >= size)
        return;
    if (len) {
        strcpy(note + len, "; ");
        len += 2;
    }
    vsnprintf(note + len, size - len, fmt, ap);
}

int st_opt_boot(int argc, char **argv, int *i, unsigned long long *seed, unsigned long long *resamples,
                double *confidence, const char **why, const char **value) {
    const char *v;
    int bad;
    if ((v = st_opt_value(argc, argv, i, "--seed"))) {
        bad = st_opt_u64(v, 0, ULLONG_MAX, seed);
        *why = "--seed: '%s' is not a decimal 64-bit unsigned integer";
    } else if ((v = st_opt_value(argc, argv, i, "--resamples"))) {
        bad = st_opt_u64(v, 1000, 1000000, resamples);
        *why = "--resamples: '%s' is not an integer from 1000 to 1000000";
    } else if ((v = st_opt_value(argc, argv, i, "--confidence"))) {
        bad = st_opt_real(v, 0.5, 1.0, confidence);
        *why = "--confidence: '%s' is not a number between 0.5 and 1 (exclusive)";
    } else {
        return 0;
    }
    *value = v;
    return bad ? -1 : 1;
}

FILE *st_open_regular(const char *path, unsigned long long max, const char **why) {
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        *why = strerror(errno);
        if (fd >= 0)
            close(fd);
        return NULL;
    }
    if (!S_ISREG(st.st_mode) || (unsigned long long)st.st_size > max) {
        *why = S_ISREG(st.st_mode) ? "larger than the limit" : "not a regular file";
        close(fd);
        return NULL;
    }
    FILE *f = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) == 0 ? fdopen(fd, "r") : NULL;
    if (!f) {
        *why = strerror(errno);
        close(fd);
    }
    return f;
}

void st_assert_fail(const char *file, int line, const char *cond, const char *reason) {
    fprintf(stderr, "%s:%d: check failed: %s: %s\n", file, line, cond, reason);
    abort();
}
