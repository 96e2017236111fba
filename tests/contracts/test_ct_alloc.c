/* test_ct_alloc.c - the checked allocation (contracts/ct_alloc.h): a size of 0
 * gives a pointer, not NULL; calloc'd memory is zero; a copy is equal and
 * apart; out of memory prints exactly "<program>: out of memory" and exits
 * with status 1, or runs the handler given to ct_set_out_of_memory instead
 * (and the default again once it is reset to NULL).
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../contracts/ct_alloc.h"

Test(ct_alloc, size_zero_gives_a_pointer) {
    void *a = ct_xmalloc(0), *b = ct_xcalloc(0, 0), *c = ct_xrealloc(NULL, 0);
    cr_assert(a && b && c);
    free(a), free(b), free(c);
}

Test(ct_alloc, calloc_zeroes_and_strdup_copies) {
    unsigned char *z = ct_xcalloc(1000, 3);
    for (int i = 0; i < 3000; i++)
        cr_assert_eq(z[i], 0, "byte %d", i);
    free(z);
    const char *s = "sweep: out of memory";
    char *d = ct_xstrdup(s);
    cr_assert_str_eq(d, s);
    cr_assert_neq(d, s);
    free(d);
}

static __attribute__((noreturn)) void handler(void) {
    fputs("the handler ran\n", stderr);
    exit(7);
}

/* Runs an allocation of SIZE_MAX bytes (always refused) in a child, with
 * handler installed per mode (0 none, 1 handler, 2 handler then NULL); the
 * child's stderr into err, its exit status returned. */
static int fail_in_child(int mode, char *err, size_t size) {
    int fds[2];
    cr_assert_eq(pipe(fds), 0);
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) {
        dup2(fds[1], 2);
        close(fds[0]);
        if (mode >= 1)
            ct_set_out_of_memory(handler);
        if (mode == 2)
            ct_set_out_of_memory(NULL);
        volatile size_t n = SIZE_MAX;
        void *p = ct_xmalloc(n);
        fprintf(stderr, "ct_xmalloc returned %p\n", p);
        _exit(0);
    }
    close(fds[1]);
    size_t len = 0;
    ssize_t k;
    while (len + 1 < size && (k = read(fds[0], err + len, size - 1 - len)) > 0)
        len += (size_t)k;
    err[len] = '\0';
    close(fds[0]);
    int st;
    cr_assert_eq(waitpid(pid, &st, 0), pid);
    cr_assert(WIFEXITED(st));
    return WEXITSTATUS(st);
}

Test(ct_alloc, out_of_memory_prints_one_line_and_exits_1) {
    char err[256], want[128];
    cr_assert_eq(fail_in_child(0, err, sizeof err), 1);
    snprintf(want, sizeof want, "%s: out of memory\n", program_invocation_short_name);
    cr_assert_str_eq(err, want);
}

Test(ct_alloc, out_of_memory_runs_the_handler_given) {
    char err[256];
    cr_assert_eq(fail_in_child(1, err, sizeof err), 7);
    cr_assert_str_eq(err, "the handler ran\n");
}

Test(ct_alloc, a_null_handler_restores_the_default) {
    char err[256], want[128];
    cr_assert_eq(fail_in_child(2, err, sizeof err), 1);
    snprintf(want, sizeof want, "%s: out of memory\n", program_invocation_short_name);
    cr_assert_str_eq(err, want);
}
