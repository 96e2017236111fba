/* st_util.h - small helpers shared by the statistics module: checked allocation, hashing.
 *
 * Invariants:
 *  - The st_x* allocators never return NULL: running out of memory prints
 *    "analyze: out of memory" and exits with status 1 (a failure, not bad
 *    input), since no analysis result could be trusted after it.
 *  - st_fnv1a64 is the 64-bit FNV-1a hash of a NUL-terminated string; it
 *    derives per-cell random seeds, so its values must never change (they
 *    make outputs reproducible across versions).
 */
#ifndef ST_UTIL_H
#define ST_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Prints "analyze: out of memory" and exits with status 1. */
void st_out_of_memory(void) __attribute__((noreturn));

void *st_xmalloc(size_t n);
void *st_xcalloc(size_t n, size_t size);
void *st_xrealloc(void *p, size_t n);
char *st_xstrdup(const char *s);

/* Writes s as one CSV field (RFC 4180): as it is, or in double quotes with
 * inner quotes doubled when it holds a comma, a quote or a line break.
 * NULL writes nothing (an empty field).  Shared by every CSV writer that
 * keeps text as it is (compare.csv, the sweep's runs.csv). */
void st_csv_field(FILE *f, const char *s);

/* 64-bit FNV-1a of s, continuing from h (start with ST_FNV_OFFSET). */
#define ST_FNV_OFFSET 0xcbf29ce484222325ULL
uint64_t st_fnv1a64(uint64_t h, const char *s);

#endif
