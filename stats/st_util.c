/* st_util.c - checked allocation and FNV-1a hashing for the statistics module. */
#include "st_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void st_out_of_memory(void) {
    fputs("analyze: out of memory\n", stderr);
    exit(1);
}

void *st_xmalloc(size_t n) {
    void *p = malloc(n ? n : 1);
    if (!p)
        st_out_of_memory();
    return p;
}

void *st_xcalloc(size_t n, size_t size) {
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p)
        st_out_of_memory();
    return p;
}

void *st_xrealloc(void *p, size_t n) {
    p = realloc(p, n ? n : 1);
    if (!p)
        st_out_of_memory();
    return p;
}

char *st_xstrdup(const char *s) {
    size_t n = strlen(s) + 1;
    char *d = st_xmalloc(n);
    memcpy(d, s, n);
    return d;
}

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
