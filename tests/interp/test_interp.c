/* test_interp.c - end-to-end tests of the interp and annotate workloads: the
 * language's semantics, its error messages and exit statuses, and both
 * workloads' --check under GC stress and the samplers.
 *
 * The programs under test are run as processes (they exit on errors), from
 * the directory named by IP_BIN (absolute; set by tests/interp/module.mk).
 * IP_STRESS_MUL scales the GC stress periods of the stress runs, IP_VERIFY=1
 * adds the heap verifier to them; IP_SRC is the repository root.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *env_or(const char *name, const char *dflt) {
    const char *v = getenv(name);
    return v && *v ? v : dflt;
}

/* Runs cmd with /bin/sh, capturing what it writes on stdout into out (at
 * most cap-1 bytes, NUL-terminated).  Returns the exit status, or -1 if
 * the command did not exit normally. */
static int run(const char *cmd, char *out, size_t cap) {
    FILE *p = popen(cmd, "r");
    cr_assert_not_null(p, "popen(%s)", cmd);
    size_t n = fread(out, 1, cap - 1, p);
    out[n] = '\0';
    int st = pclose(p);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static char tmpdir[256];

/* Writes source to <tmpdir>/prog.sgl. */
static void write_prog(const char *source) {
    if (!tmpdir[0]) {
        snprintf(tmpdir, sizeof tmpdir, "/tmp/ip-test-XXXXXX");
        cr_assert_not_null(mkdtemp(tmpdir));
    }
    char path[300];
    snprintf(path, sizeof path, "%s/prog.sgl", tmpdir);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fputs(source, f);
    fclose(f);
}

/* Runs prog.sgl; *err gets its stderr, the return value is the exit status. */
static int run_prog_stderr(const char *source, char *err, size_t cap) {
    write_prog(source);
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "cd %s && %s/interp --program prog.sgl 2>&1 >/dev/null", tmpdir,
             env_or("IP_BIN", "build/bin"));
    return run(cmd, err, cap);
}

static void expect_error(const char *source, int status, const char *message) {
    char err[4096];
    int st = run_prog_stderr(source, err, sizeof err);
    cr_expect_eq(st, status, "exit status %d, expected %d; stderr: %s", st, status, err);
    cr_expect_str_eq(err, message);
}

/* Removes this test process's temporary directory. */
static void cleanup(void) {
    if (!tmpdir[0])
        return;
    char path[300];
    snprintf(path, sizeof path, "%s/prog.sgl", tmpdir);
    unlink(path);
    rmdir(tmpdir);
    tmpdir[0] = '\0';
}

/* Every program under test runs with a heap limit, so a runaway program (or
 * an interpreter bug) fails with "out of memory" instead of taking the
 * machine's memory. */
static void heap_limit(void) { setenv("SGC_HEAP_MAX", "1G", 1); }

TestSuite(interp_lang, .timeout = 60, .init = heap_limit, .fini = cleanup);

Test(interp_lang, semantics) {
    static const char expected[] = "7 9 3 -4 1 2 3.5\n"
                                   "2.5 0.5 3.0 0.5 2.5\n"
                                   "17 2 5 1024 -4\n"
                                   "true false true true true true false\n"
                                   "true true true true true true false\n"
                                   "default 0 4 0\n"
                                   "h o 5 hello world hellohello ell 65 B\n"
                                   "[10, 2, 3] 4 104 [10, 2, 3] [0, 0, 0] [10, 2, 3, 7] [2, 3]\n"
                                   "2 2 three true false 4 4\n"
                                   "13\n"
                                   "5\n"
                                   "a+b+c 1,2.5,nil,true\n"
                                   "2 10 3 15\n"
                                   "81 12! 2\n"
                                   "2432902008176640000\n"
                                   "-9223372036854775808\n"
                                   "Int Float Str List Dict nil Bool Function Function\n"
                                   "3 -3 -42 2.0 -3 3 2.5 4.0 2 3\n"
                                   "2 99\n"
                                   "nil\n"
                                   "1000.0 0.30000000000000004 2.0 -0.0 1e+20\n"
                                   "checksum bd0ed0d08a42a70c\n";
    char out[8192], cmd[1024];
    snprintf(cmd, sizeof cmd, "%s/interp --program %s/tests/interp/semantics.sgl", env_or("IP_BIN", "build/bin"),
             env_or("IP_SRC", "."));
    int st = run(cmd, out, sizeof out);
    cr_expect_eq(st, 0);
    cr_expect_str_eq(out, expected);
}

Test(interp_lang, unclosed_string) {
    expect_error("let a = 1\nlet s = \"abc\n", 2, "prog.sgl:2:9: string literal is not closed on its line\n");
}

Test(interp_lang, missing_operand) {
    expect_error("fn f(a) {\n    return a +* 2\n}\n", 2, "prog.sgl:2:15: expected an expression, found '*'\n");
}

Test(interp_lang, undefined_name) {
    expect_error("let a = 1\nprint(a, b)\n", 2, "prog.sgl:2:10: undefined name 'b' (declare it with let)\n");
}

Test(interp_lang, unclosed_block) {
    expect_error("while true {\n  print(1)\n", 2, "prog.sgl:1:12: this '{' is never closed\n");
}

Test(interp_lang, chained_comparison) {
    expect_error("let x = 1 < 2 < 3\n", 2,
                 "prog.sgl:1:15: comparisons do not chain; write 'a < b and b < c' instead\n");
}

Test(interp_lang, break_outside_loop) {
    expect_error("fn f() {\n  break\n}\n", 2, "prog.sgl:2:3: 'break' outside a loop\n");
}

Test(interp_lang, builtin_arity) {
    expect_error("let n = len([1], 2)\n", 2, "prog.sgl:1:12: len() takes 1 argument, 2 given\n");
}

Test(interp_lang, bad_character) {
    expect_error("let a = 1\nlet b = a @ 2\n", 2, "prog.sgl:2:11: unexpected character '@'\n");
}

Test(interp_lang, useless_expression) {
    expect_error("let a = 1\na + 1\n", 2,
                 "prog.sgl:2:1: this expression does nothing: a statement is a call, an "
                 "assignment, or a keyword statement\n");
}

Test(interp_lang, runtime_traceback) {
    expect_error("fn inner(x) {\n"
                 "    let y = x * 2\n"
                 "    return y + \"s\"\n"
                 "}\n"
                 "fn outer(v) {\n"
                 "    let z = inner(v)\n"
                 "    return z\n"
                 "}\n"
                 "let r = outer(41)\n",
                 1,
                 "Traceback (most recent call last):\n"
                 "  File \"prog.sgl\", line 9, in <module>\n"
                 "  File \"prog.sgl\", line 6, in outer\n"
                 "  File \"prog.sgl\", line 3, in inner\n"
                 "error: prog.sgl:3:14: unsupported operand types for +: Int and Str\n");
}

Test(interp_lang, traceback_through_closure_and_builtin) {
    expect_error("let d = {a: 1}\n"
                 "let get = fn(k) { return d[k] }\n"
                 "fn lookup(k) {\n"
                 "    return get(k)\n"
                 "}\n"
                 "lookup(\"a\")\n"
                 "lookup(\"b\")\n",
                 1,
                 "Traceback (most recent call last):\n"
                 "  File \"prog.sgl\", line 7, in <module>\n"
                 "  File \"prog.sgl\", line 4, in lookup\n"
                 "  File \"prog.sgl\", line 2, in <fn@2>\n"
                 "error: prog.sgl:2:27: key \"b\" not in dict\n");
}

Test(interp_lang, recursion_limit) {
    char err[8192];
    int st = run_prog_stderr("fn down(n) {\n    return down(n + 1)\n}\ndown(0)\n", err, sizeof err);
    cr_expect_eq(st, 1);
    const char *last = strstr(err, "error: ");
    cr_assert_not_null(last, "no error line in: %s", err);
    cr_expect_str_eq(last, "error: prog.sgl:2:16: recursion too deep (1000 nested calls)\n");
}

/* A program of depth levels: kind 0 nested parentheses, 1 a chain of
 * additions (parsed by a loop, but a tree as deep as it is long), 2 unary
 * minus signs, 3 nested blocks, 4 nested list literals. */
static char *nested_prog(int kind, int depth) {
    size_t cap = (size_t)depth * 16 + 64, n = 0;
    char *s = malloc(cap);
    cr_assert_not_null(s);
    n += (size_t)sprintf(s + n, kind == 3 ? "" : "print(");
    for (int i = 0; i < depth; i++)
        n += (size_t)sprintf(s + n, "%s",
                             kind == 0   ? "("
                             : kind == 1 ? "1+"
                             : kind == 2 ? "-"
                             : kind == 3 ? "if true {\n"
                                         : "[");
    n += (size_t)sprintf(s + n, "%s", kind == 3 ? "print(1)\n" : "1");
    for (int i = 0; i < depth; i++)
        n += (size_t)sprintf(s + n, "%s", kind == 0 ? ")" : kind == 4 ? "]" : kind == 3 ? "}\n" : "");
    sprintf(s + n, "%s", kind == 3 ? "" : ")\n");
    return s;
}

Test(interp_lang, nesting_limit) {
    /* 20,000 levels crashed the parser or the evaluator (C stack overflow);
     * past 1000 levels it is an error in the program text (in a sanitizer
     * build, whose frames are larger, the C stack budget may say so first). */
    static const char *const deep_at[] = {
        "prog.sgl:1:1006: ", "prog.sgl:1:38015: ", "prog.sgl:1:1006: ", "prog.sgl:1001:4: ", "prog.sgl:1:1006: "};
    for (int kind = 0; kind < 5; kind++) {
        char err[4096];
        char *p = nested_prog(kind, 20000);
        int st = run_prog_stderr(p, err, sizeof err);
        free(p);
        cr_expect_eq(st, 2, "kind %d at depth 20000: exit %d: %s", kind, st, err);
        const char *want = "nested too deeply (more than 1000 levels of expressions and blocks)\n";
        const char *stack = "nested too deeply for the C stack (";
        const char *msg = strstr(err, ": nested too deeply");
        cr_assert_not_null(msg, "kind %d: %s", kind, err);
        msg += 2;
        if (strncmp(msg, stack, strlen(stack)) != 0) {
            cr_expect_eq(strncmp(err, deep_at[kind], strlen(deep_at[kind])), 0, "kind %d: %s", kind, err);
            cr_expect_eq(strncmp(msg, want, strlen(want)), 0, "kind %d: %s", kind, err);
        }
        /* Deep but inside the limit runs (an if statement and its block are
         * two levels), also in the sanitizer build. */
        int depth = kind == 3 ? 300 : 600;
        p = nested_prog(kind, depth);
        st = run_prog_stderr(p, err, sizeof err);
        cr_expect_eq(st, 0, "kind %d at depth %d: exit %d: %s", kind, depth, st, err);
        free(p);
    }
}

Test(interp_lang, recursion_limit_on_a_small_stack) {
    /* With a 2 MiB C stack, 1000 nested calls each 100 levels deep in an
     * expression do not fit: the C stack budget stops them with a guest
     * error (traceback, exit 1) before IP_MAX_DEPTH does. */
    char minus[101], src[8192];
    memset(minus, '-', 100);
    minus[100] = '\0';
    snprintf(src, sizeof src, "fn down(n) {\n    return %sdown(n + 1)\n}\ndown(0)\n", minus);
    write_prog(src);
    char err[16384], cmd[1024];
    snprintf(cmd, sizeof cmd, "cd %s && ulimit -s 2048 && %s/interp --program prog.sgl 2>&1 >/dev/null", tmpdir,
             env_or("IP_BIN", "build/bin"));
    int st = run(cmd, err, sizeof err);
    cr_expect_eq(st, 1, "exit %d: %s", st, err);
    cr_assert_eq(strncmp(err, "Traceback (most recent call last):\n", 35), 0, "%s", err);
    const char *last = strstr(err, "error: ");
    cr_assert_not_null(last, "no error line in: %s", err);
    cr_expect(strncmp(last, "error: prog.sgl:2:", 18) == 0 && strstr(last, ": recursion too deep for the C stack (") &&
                  strstr(last, " nested calls, 1536 KiB of stack; see ulimit -s)\n"),
              "%s", last);
}

Test(interp_lang, runaway_heap_stops_at_the_heap_limit) {
    char err[4096], cmd[1024];
    write_prog("let l = []\nwhile true {\n    push(l, [1, 2, 3, 4])\n}\n");
    snprintf(cmd, sizeof cmd, "cd %s && SGC_HEAP_MAX=64M %s/interp --program prog.sgl 2>&1 >/dev/null", tmpdir,
             env_or("IP_BIN", "build/bin"));
    cr_expect_eq(run(cmd, err, sizeof err), 1, "%s", err);
    const char *want = "freecheck: out of memory: the live heap exceeds SGC_HEAP_MAX=67108864 (after a full "
                       "collection: ";
    cr_expect_eq(strncmp(err, want, strlen(want)), 0, "%s", err);
}

Test(interp_lang, index_error) {
    expect_error("let l = [1, 2]\nl[2] = 3\n", 1,
                 "Traceback (most recent call last):\n"
                 "  File \"prog.sgl\", line 2, in <module>\n"
                 "error: prog.sgl:2:2: list index 2 out of range (length 2)\n");
}

Test(interp_lang, bad_program_arguments) {
    char out[4096], cmd[1024];
    const char *bin = env_or("IP_BIN", "build/bin");
    snprintf(cmd, sizeof cmd, "%s/interp --program /nonexistent/x.sgl 2>&1", bin);
    cr_expect_eq(run(cmd, out, sizeof out), 2);
    cr_expect_str_eq(out, "interp: cannot open program '/nonexistent/x.sgl': No such file or "
                          "directory (built-in programs: pystone, richards, nbody)\n");
    write_prog("mix(1)\n");
    snprintf(cmd, sizeof cmd, "cd %s && %s/interp --program prog.sgl --check 2>&1", tmpdir, bin);
    cr_expect_eq(run(cmd, out, sizeof out), 2);
    /* An endless "program" is refused at 64 MiB rather than read until the
     * memory runs out. */
    snprintf(cmd, sizeof cmd, "%s/interp --program /dev/zero 2>&1", bin);
    cr_expect_eq(run(cmd, out, sizeof out), 2);
    cr_expect_str_eq(out, "interp: program '/dev/zero' is larger than 64 MiB; is it a program?\n");
    snprintf(cmd, sizeof cmd, "%s/interp --size -1 2>&1", bin);
    cr_expect_eq(run(cmd, out, sizeof out), 2);
    snprintf(cmd, sizeof cmd, "%s/annotate --size 0 2>&1", bin);
    cr_expect_eq(run(cmd, out, sizeof out), 2);
}

/* ---- The workloads under every runtime mode ---------------------------------- */

/* Runs "<env> BIN/<prog> <args> --check" in each mode; every run must pass
 * and print the same checksum line.  The stress mode collects every
 * stress_every allocations (times IP_STRESS_MUL): the verifier walks the
 * whole heap at each collection, so larger programs get a longer period. */
static void check_modes(const char *prog, const char *args, int stress_every) {
    char stress[128];
    snprintf(stress, sizeof stress, "SGC_GC_STRESS=%d SGC_VERIFY=%s", stress_every * atoi(env_or("IP_STRESS_MUL", "1")),
             env_or("IP_VERIFY", "1"));
    const char *modes[] = {"", stress, "SGC_ALLOC_PERIOD=4K SGC_TIME_HZ=2000",
                           "SGC_ALLOC_PERIOD=1K SGC_ALLOC_MODE=poisson SGC_NURSERY=64K",
                           "SGC_ALLOC_PERIOD=8M SGC_NURSERY=32K"};
    char first[256] = "", out[4096], cmd[1024];
    for (size_t m = 0; m < sizeof modes / sizeof modes[0]; m++) {
        snprintf(cmd, sizeof cmd, "env %s %s/%s %s --check 2>&1", modes[m], env_or("IP_BIN", "build/bin"), prog, args);
        int st = run(cmd, out, sizeof out);
        cr_expect_eq(st, 0, "%s: exit %d: %s", cmd, st, out);
        cr_expect(strncmp(out, "checksum ", 9) == 0 && strlen(out) == 26, "%s printed: %s", cmd, out);
        if (m == 0)
            snprintf(first, sizeof first, "%s", out);
        else
            cr_expect_str_eq(out, first, "%s", cmd);
    }
}

TestSuite(interp_workloads, .timeout = 300, .init = heap_limit);

Test(interp_workloads, pystone) { check_modes("interp", "--program pystone --size 150", 7); }
Test(interp_workloads, richards) { check_modes("interp", "--program richards --size 1", 601); }
Test(interp_workloads, nbody) { check_modes("interp", "--program nbody --size 40", 7); }
Test(interp_workloads, annotate) { check_modes("annotate", "--size 60", 13); }

/* The checksum depends on the size (the reference is not a constant). */
Test(interp_workloads, checksum_depends_on_size) {
    char a[256], b[256], cmd[1024];
    const char *bin = env_or("IP_BIN", "build/bin");
    snprintf(cmd, sizeof cmd, "%s/interp --size 3 --check", bin);
    cr_expect_eq(run(cmd, a, sizeof a), 0);
    snprintf(cmd, sizeof cmd, "%s/interp --size 4 --check", bin);
    cr_expect_eq(run(cmd, b, sizeof b), 0);
    cr_expect_str_neq(a, b);
    snprintf(cmd, sizeof cmd, "%s/annotate --size 30 --check", bin);
    cr_expect_eq(run(cmd, a, sizeof a), 0);
    snprintf(cmd, sizeof cmd, "%s/annotate --size 31 --check", bin);
    cr_expect_eq(run(cmd, b, sizeof b), 0);
    cr_expect_str_neq(a, b);
}
