/* interp.c - the interp workload: a small dynamic language interpreter whose
 * values, environments and containers all live on the sgc heap, running a
 * guest program (pystone by default).
 *
 * It models a dynamic-language virtual machine running a program: the
 * paper's "pystone on an interpreted PyPy" benchmark.  Every guest call
 * pushes a runtime frame named after the guest function, so allocation and
 * time profiles show Proc0 ... Proc8, Func1 ... Func3 the way vmprof shows
 * Python functions.  Arithmetic allocates boxed numbers, calls allocate
 * environments, records are dicts: the allocation pattern of an interpreter
 * without a JIT.
 *
 * The guest programs (programs/NAME.sgl) are compiled into the binary, so it
 * runs from any directory; --program FILE runs any other program.  The
 * guest feeds its checksum through the builtin mix(); --check compares it
 * with a closed form of what the built-in program computes (ip_ref.c),
 * derived independently of the interpreter.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../wl_common.h"
#include "ip_eval.h"
#include "ip_parse.h"
#include "ip_ref.h"
#include "ip_value.h"

/* Generated at build time from programs/<name>.sgl (see module.mk). */
extern const char ip_src_pystone[], ip_src_richards[], ip_src_nbody[];
extern const size_t ip_src_pystone_len, ip_src_richards_len, ip_src_nbody_len;

typedef struct program {
    const char *name;                   /* --program NAME */
    const char *file;                   /* the name in messages */
    const char *src;                    /* embedded source */
    const size_t *len;                  /* its length */
    int64_t default_size;               /* about 0.3 s here */
    uint64_t (*expected)(int64_t size); /* the reference checksum */
} program;

static const program programs[] = {
    {"pystone", "pystone.sgl", ip_src_pystone, &ip_src_pystone_len, 90000, ip_ref_pystone},
    {"richards", "richards.sgl", ip_src_richards, &ip_src_richards_len, 4, ip_ref_richards},
    {"nbody", "nbody.sgl", ip_src_nbody, &ip_src_nbody_len, 22000, ip_ref_nbody},
};
#define NPROGRAMS (sizeof programs / sizeof programs[0])

static const program *chosen;

static uint64_t interp_expected(const wl_run *run) { return chosen->expected(run->size); }

#define IP_MAX_PROGRAM_BYTES (64 << 20)

/* Reads a whole file; exits 2 naming it if it cannot (or if it is larger
 * than IP_MAX_PROGRAM_BYTES). */
static char *read_file(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr,
                "interp: cannot open program '%s': %s (built-in programs: pystone, "
                "richards, nbody)\n",
                path, strerror(errno));
        exit(2);
    }
    size_t cap = 4096, n = 0;
    char *b = malloc(cap);
    for (;;) {
        if (!b) {
            fprintf(stderr, "interp: out of memory reading '%s'\n", path);
            exit(1);
        }
        n += fread(b + n, 1, cap - n, f);
        if (n < cap)
            break;
        /* A program is text a person wrote: a bound, so that /dev/zero or
         * a runaway generator is an error instead of all the memory. */
        if (cap >= IP_MAX_PROGRAM_BYTES) {
            fprintf(stderr, "interp: program '%s' is larger than %d MiB; is it a program?\n", path,
                    IP_MAX_PROGRAM_BYTES >> 20);
            exit(2);
        }
        cap *= 2;
        b = realloc(b, cap);
    }
    if (ferror(f)) {
        fprintf(stderr, "interp: cannot read program '%s'\n", path);
        exit(2);
    }
    fclose(f);
    *len = n;
    return b;
}

int main(int argc, char **argv) {
    const char *prog = "pystone";
    wl_option opts[] = {
        {"--program", WL_OPT_STRING, &prog, 0, 0, "guest program: pystone (default), richards, nbody, or a file path"},
        {NULL, 0, NULL, 0, 0, NULL}};
    wl_spec spec = {"interp",
                    "a dynamic-language interpreter on the sgc heap running a guest "
                    "program (the paper's pystone on an interpreted PyPy)",
                    0,
                    0,
                    100000000,
                    "work units of the guest program (pystone loops, richards runs, nbody "
                    "steps); 0 = the program's default",
                    opts};
    wl_run run = wl_start(&spec, argc, argv);

    const char *file, *src;
    size_t len;
    chosen = NULL;
    for (size_t i = 0; i < NPROGRAMS; i++)
        if (strcmp(prog, programs[i].name) == 0)
            chosen = &programs[i];
    if (chosen) {
        file = chosen->file;
        src = chosen->src;
        len = *chosen->len;
        if (run.size == 0)
            run.size = chosen->default_size;
    } else {
        if (run.check) {
            fprintf(stderr,
                    "interp: --check needs a built-in program (pystone, richards, nbody), "
                    "not '%s' (see interp --help)\n",
                    prog);
            exit(2);
        }
        file = prog;
        src = read_file(prog, &len);
        if (run.size == 0)
            run.size = 1;
    }
    ip_size = run.size;
    ip_value_init();
    ip_fndef *top = ip_parse(file, src, len);
    if (!chosen)
        free((char *)src); /* the tree keeps copies of everything it needs */
    ip_run(file, top);
    fflush(stdout);
    return wl_finish(&run, &ip_sum, interp_expected);
}
