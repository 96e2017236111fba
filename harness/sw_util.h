/* sw_util.h - small helpers shared by the harness modules: errors, heap strings,
 * growable strings, size parsing/formatting, clocks and the seeded generator.
 *
 * Invariants:
 *  - sw_usage_error() and sw_fatal() never return: the first is for bad input
 *    (arguments, settings, files; exit status 2), the second for failures of
 *    the machine or the harness itself (exit status 1).  Both print one line
 *    "sweep: <message>" on stderr.  After it they run the hook set with
 *    sw_set_exit_hook (the sweep uses it to remove its temporary files and
 *    leave results.db marked interrupted, with the --resume command).
 *  - Exit statuses of sweep (docs/HARNESS.md): 0 every planned run recorded
 *    and ok; 1 the sweep could not go on (interrupted, a database error);
 *    2 bad input; SW_EXIT_RUNS_FAILED every planned run recorded, some failed.
 *  - Allocation is ct_alloc.h's (contracts/): ct_xmalloc and friends never
 *    return NULL; out of memory is a failure (status 1), and once an exit
 *    hook is set it is reported as "sweep: out of memory" and runs the hook
 *    like any other failure.
 *  - An sw_buf's data is always NUL-terminated (after any append), so it can
 *    be used as a C string; len excludes the terminator.
 *  - The generator (splitmix64) is fully determined by its seed, so a stored
 *    seed replays the same shuffles on any machine.
 *  - SW_ASSERT(cond, why) checks an invariant a harness header states: with
 *    SGC_CHECKS nonzero (the test and sanitizer builds) a false cond prints
 *    "sweep: file:line: invariant broken: cond: why" on stderr and aborts;
 *    without it (the measured build) it compiles to nothing and cond is not
 *    evaluated.
 */
#ifndef SW_UTIL_H
#define SW_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdarg.h>

#include "../contracts/ct_alloc.h"

#define SW_NORETURN __attribute__((noreturn))
#define SW_EXIT_RUNS_FAILED 3
#define SW_PRINTF(a, b) __attribute__((format(printf, a, b)))

/* Prints "sweep: <message>" and exits with status 2 (bad input). */
SW_NORETURN void sw_usage_error(const char *fmt, ...) SW_PRINTF(1, 2);
/* Prints "sweep: <message>" and exits with status 1 (a failure). */
SW_NORETURN void sw_fatal(const char *fmt, ...) SW_PRINTF(1, 2);
/* Registers a function run once just before sw_usage_error/sw_fatal exit (and
 * before the exit for out of memory in ct_alloc.h's functions). */
void sw_set_exit_hook(void (*hook)(void));

#ifndef SGC_CHECKS
#define SGC_CHECKS 0
#endif
#if SGC_CHECKS
#define SW_ASSERT(cond, why) ((cond) ? (void)0 : sw_assert_fail(__FILE__, __LINE__, #cond, why))
#else
#define SW_ASSERT(cond, why) ((void)0)
#endif
/* SW_ASSERT's report and abort() (no exit hook: a broken invariant is a bug,
 * and the core shows where). */
SW_NORETURN void sw_assert_fail(const char *file, int line, const char *cond, const char *why);

/* printf into a fresh heap string. */
char *sw_xasprintf(const char *fmt, ...) SW_PRINTF(1, 2);

typedef struct sw_buf {
    char *data; /* NUL-terminated contents (NULL until the first append) */
    size_t len; /* bytes used, excluding the terminator */
    size_t cap; /* bytes allocated */
} sw_buf;

void sw_buf_append(sw_buf *b, const char *s, size_t n);
void sw_buf_puts(sw_buf *b, const char *s);
void sw_buf_printf(sw_buf *b, const char *fmt, ...) SW_PRINTF(2, 3);
void sw_buf_free(sw_buf *b);

/* Reads a whole text file of at most max bytes into a NUL-terminated
 * malloc'd string ("" for an empty file).  NULL with errno set if it cannot
 * be opened or read, EFBIG if it is longer than max (nothing past max is
 * read: /dev/zero is refused, not read forever), EILSEQ if it holds a NUL
 * byte (a text file has none, and the text would end there). */
char *sw_read_file_max(const char *path, size_t max);
/* sw_read_file_max with SW_READ_MAX: every text file the harness reads
 * whole (config files, workload lists) is far smaller. */
#define SW_READ_MAX (16 * 1024 * 1024)
char *sw_read_file(const char *path);
/* Why sw_read_file failed, in words, from its errno. */
const char *sw_read_error(int err);

/* Parses a byte count "N", "NK", "NM", "NG" or "NT" (powers of 1024, k/m/g/t too).
 * Returns 0 and stores it, or -1 if s is not exactly such a number or
 * overflows 64 bits. */
int sw_parse_bytes(const char *s, uint64_t *out);
/* Parses a non-negative decimal integer that fits in max; 0 or -1. */
int sw_parse_uint(const char *s, uint64_t max, uint64_t *out);
/* Parses a positive finite decimal number of seconds; 0 or -1. */
int sw_parse_seconds(const char *s, double *out);
/* Formats a byte count the way labels use it: "32K", "4M", "1G", "256T"
 * when it is a whole multiple, else the plain number.  Returns buf. */
char *sw_format_bytes(uint64_t bytes, char *buf, size_t size);

/* CLOCK_MONOTONIC / CLOCK_REALTIME in nanoseconds. */
uint64_t sw_now_ns(void);
uint64_t sw_wallclock_ns(void);

/* splitmix64: a tiny, well-mixed, seedable generator. */
typedef struct sw_rng {
    uint64_t state; /* advanced by a fixed odd constant per draw */
} sw_rng;

void sw_rng_seed(sw_rng *r, uint64_t seed);
uint64_t sw_rng_next(sw_rng *r);
/* Uniform in [0, n) without modulo bias; n > 0. */
uint64_t sw_rng_below(sw_rng *r, uint64_t n);
/* Mixes two values into one (used to derive per-run seeds from the sweep's). */
uint64_t sw_mix64(uint64_t a, uint64_t b);

#endif /* SW_UTIL_H */
