/* st_util.h - small helpers shared by the statistics module: checked allocation, hashing.
 *
 * Invariants:
 *  - Allocation is ct_alloc.h's (contracts/): never NULL; out of memory
 *    prints "<program>: out of memory" and exits with status 1.
 *  - st_fnv1a64 is the 64-bit FNV-1a hash of a NUL-terminated string; it
 *    derives per-cell random seeds, so its values must never change (they
 *    make outputs reproducible across versions).
 */
#ifndef ST_UTIL_H
#define ST_UTIL_H

#include "../contracts/ct_alloc.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Checked invariants: ST_ASSERT(cond, reason) is active when the
 * compile-time define SGC_CHECKS is nonzero (make test and the sanitizer
 * builds) and compiled out of the measured build.  A failed check prints
 * file:line, the condition and the reason on stderr and aborts: it is a bug
 * in the statistics, never bad input (bad input gets a message and exit 2). */
#if SGC_CHECKS
#define ST_ASSERT(cond, reason) ((cond) ? (void)0 : st_assert_fail(__FILE__, __LINE__, #cond, reason))
#else
#define ST_ASSERT(cond, reason) ((void)0)
#endif
void st_assert_fail(const char *file, int line, const char *cond, const char *reason) __attribute__((noreturn));

/* Checked allocation: ct_xmalloc, ct_xcalloc, ct_xrealloc, ct_xstrdup and
 * ct_out_of_memory (contracts/ct_alloc.h), the one family the programs share. */

/* Writes s as one CSV field (RFC 4180): as it is, or in double quotes with
 * inner quotes doubled when it holds a comma, a quote or a line break.
 * NULL writes nothing (an empty field).  Shared by every CSV writer that
 * keeps text as it is (compare.csv, the sweep's runs.csv). */
void st_csv_field(FILE *f, const char *s);

/* Command-line helpers shared by analyze and compare.
 * st_opt_value: the value of option `name` at argv[*i], given as "--name V"
 * (advancing *i) or "--name=V"; "" when V is missing; NULL when argv[*i] is
 * not that option.
 * st_opt_u64: v as a decimal integer in [lo, hi]; 0, or -1 if it is not one.
 * st_opt_real: v as a number strictly between lo and hi; 0 or -1.
 * st_opt_percent: v as a percentage ("2" or "2%"), returned as a fraction,
 * in [lo, hi) (fractions); 0 or -1. */
const char *st_opt_value(int argc, char **argv, int *i, const char *name);
int st_opt_u64(const char *v, unsigned long long lo, unsigned long long hi, unsigned long long *out);
int st_opt_real(const char *v, double lo, double hi, double *out);
int st_opt_percent(const char *v, double lo, double hi, double *out);

/* st_opt_boot: the bootstrap options analyze and compare share, at argv[*i]:
 * --seed (any 64-bit unsigned), --resamples (1000 to 1000000) and
 * --confidence (strictly between 0.5 and 1).  0 when argv[*i] is none of
 * them; 1 when it was one and its value is stored in *seed, *resamples or
 * *confidence; -1 when its value is bad, with *why a message naming the
 * option (a format with one %s) and *value the value given. */
int st_opt_boot(int argc, char **argv, int *i, unsigned long long *seed, unsigned long long *resamples,
                double *confidence, const char **why, const char **value);

/* Opens path for reading only if it is a regular file of at most max bytes,
 * without waiting on a FIFO or reading a device: the bound on an input is
 * checked before any of it is read.  Returns the stream, or NULL with
 * *why "not a regular file", "larger than the limit" or strerror's text. */
FILE *st_open_regular(const char *path, unsigned long long max, const char **why);

/* Appends a "; "-separated reason to the note buffer (size bytes), cut short
 * rather than overflowing. */
void st_note_add(char *note, size_t size, const char *fmt, va_list ap);

/* 64-bit FNV-1a of s, continuing from h (start with ST_FNV_OFFSET). */
#define ST_FNV_OFFSET 0xcbf29ce484222325ULL
uint64_t st_fnv1a64(uint64_t h, const char *s);

#endif
