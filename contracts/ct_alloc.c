/* ct_alloc.c - checked allocation (invariants: ct_alloc.h). */
#define _GNU_SOURCE
#include "ct_alloc.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void (*oom_handler)(void) __attribute__((noreturn));

void ct_set_out_of_memory(void (*handler)(void) __attribute__((noreturn))) { oom_handler = handler; }

void ct_out_of_memory(void) {
    if (oom_handler)
        oom_handler();
    fprintf(stderr, "%s: out of memory\n", program_invocation_short_name);
    exit(1);
}

void *ct_xmalloc(size_t n) {
    void *p = malloc(n ? n : 1);
    if (!p)
        ct_out_of_memory();
    return p;
}

void *ct_xcalloc(size_t n, size_t size) {
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p)
        ct_out_of_memory();
    return p;
}

void *ct_xrealloc(void *p, size_t n) {
    p = realloc(p, n ? n : 1);
    if (!p)
        ct_out_of_memory();
    return p;
}

char *ct_xstrdup(const char *s) {
    size_t n = strlen(s) + 1;
    char *d = ct_xmalloc(n);
    memcpy(d, s, n);
    return d;
}
