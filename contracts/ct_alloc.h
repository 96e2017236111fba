/* ct_alloc.h - checked allocation, the one family every stage's programs share (the statistics
 * programs, the harness, sgcprof; docs/ARCHITECTURE.md, "Where each contract is defined").
 *
 * Invariants:
 *  - ct_x* never return NULL, and never return NULL for a size of 0 either
 *    (they allocate 1 byte then), so a caller need not tell "empty" from
 *    "failed".
 *  - Running out of memory is a failure, not bad input: ct_out_of_memory
 *    prints "<program>: out of memory" on stderr (the program's own name)
 *    and exits with status 1, since no result computed after it could be
 *    trusted.  Nothing is printed on success.
 *  - A program that must clean up first installs its own handler with
 *    ct_set_out_of_memory (the harness: "sweep: out of memory", then its exit
 *    hook, status 1); the handler must not return.
 */
#ifndef CT_ALLOC_H
#define CT_ALLOC_H

#include <stddef.h>

/* Prints "<program>: out of memory" and exits with status 1. */
void ct_out_of_memory(void) __attribute__((noreturn));
/* Makes ct_out_of_memory call handler instead (NULL: the default again). */
void ct_set_out_of_memory(void (*handler)(void) __attribute__((noreturn)));

void *ct_xmalloc(size_t n);
void *ct_xcalloc(size_t n, size_t size);
void *ct_xrealloc(void *p, size_t n);
char *ct_xstrdup(const char *s);

#endif
