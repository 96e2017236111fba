/* test_sim.c - unit tests of the simulated backend's pieces: reading
 * cachegrind's output (a fixture from a real run), the estimated-cycles
 * formula, malformed outputs, the valgrind command line.
 *
 * tests/harness/fixtures/cachegrind-gcbench.out is the output file of a real
 * run, as the harness starts it:
 *   SGC_ALLOC_PERIOD=32K SGC_SEED=1592652782 GLIBC_TUNABLES=<SW_SIM_TUNABLES>
 *   setarch -R valgrind -q --tool=cachegrind --cache-sim=yes --branch-sim=no
 *   --I1=32768,8,64 --D1=32768,8,64 --LL=8388608,16,64
 *   --cachegrind-out-file=F build/bin/gcbench --size 1
 * (the harness now adds --trace-children=yes too, which changes nothing for
 * a program that execs nothing)
 * with its per-line records cut after the first 40 lines of the file (the
 * reader needs only the "events:" and "summary:" lines).
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "../../harness/sw_sim.h"
#include "../../harness/sw_util.h"

static char *fixture(void) {
    const char *dir = getenv("HARNESS_FIXTURES");
    char *path = sw_xasprintf("%s/cachegrind-gcbench.out", dir ? dir : "tests/harness/fixtures");
    char *text = sw_read_file(path);
    cr_assert(text, "cannot read %s (run from the repository root or set HARNESS_FIXTURES)", path);
    free(path);
    return text;
}

Test(sim, parses_a_real_cachegrind_output) {
    char *text = fixture();
    uint64_t v[SW_SIM_N];
    const char *why = NULL;
    cr_assert_eq(sw_sim_parse(text, v, &why), 0, "%s", why);
    /* summary: 646067 1626 1573 157997 2186 1299 183092 4188 4060 */
    cr_assert_eq(v[SW_SIM_IR], 646067);
    cr_assert_eq(v[SW_SIM_I1MR], 1626);
    cr_assert_eq(v[SW_SIM_ILMR], 1573);
    cr_assert_eq(v[SW_SIM_DR], 157997);
    cr_assert_eq(v[SW_SIM_D1MR], 2186);
    cr_assert_eq(v[SW_SIM_DLMR], 1299);
    cr_assert_eq(v[SW_SIM_DW], 183092);
    cr_assert_eq(v[SW_SIM_D1MW], 4188);
    cr_assert_eq(v[SW_SIM_DLMW], 4060);
    /* accesses 987156, L1 misses 8000, LL misses 6932:
     * 979156 L1 hits + 5 x 1068 LL hits + 35 x 6932 RAM accesses */
    cr_assert_eq(v[SW_SIM_CYCLES], 979156u + 5u * 1068u + 35u * 6932u);
    cr_assert_eq(v[SW_SIM_CYCLES], 1227116);
    free(text);
}

Test(sim, names_are_stable) {
    cr_assert_eq(SW_SIM_N, 10);
    cr_assert_str_eq(sw_sim_names[SW_SIM_IR], "sim::Ir");
    cr_assert_str_eq(sw_sim_names[SW_SIM_CYCLES], "sim::est-cycles");
    cr_assert_str_eq(sw_sim_events[SW_SIM_DLMW], "DLmw");
    cr_assert_null(sw_sim_events[SW_SIM_CYCLES]);
}

Test(sim, events_in_any_order_and_extra_events) {
    const char *text = "desc: x\ncmd: w\nevents: Dw Ir Bc I1mr ILmr Dr D1mr DLmr D1mw DLmw\n"
                       "fl=a.c\n1 1 1 1 1 1 1 1 1 1 1\n"
                       "summary: 30 1000 5 10 2 200 20 4 3 2\n";
    uint64_t v[SW_SIM_N];
    const char *why;
    cr_assert_eq(sw_sim_parse(text, v, &why), 0, "%s", why);
    cr_assert_eq(v[SW_SIM_DW], 30);
    cr_assert_eq(v[SW_SIM_IR], 1000);
    cr_assert_eq(v[SW_SIM_I1MR], 10);
    cr_assert_eq(v[SW_SIM_DLMW], 2);
    /* accesses 1230, L1 misses 10 + 20 + 3 = 33, LL misses 2 + 4 + 2 = 8 */
    cr_assert_eq(v[SW_SIM_CYCLES], (1230 - 33) + 5 * (33 - 8) + 35 * 8);
}

static void expect_malformed(const char *text, const char *reason) {
    uint64_t v[SW_SIM_N];
    const char *why = NULL;
    cr_assert_eq(sw_sim_parse(text, v, &why), -1, "accepted: %s", text);
    cr_assert(why && strstr(why, reason), "reason '%s', expected '%s'", why ? why : "(none)", reason);
}

Test(sim, malformed_outputs_are_refused_with_a_reason) {
    char *text = fixture();
    /* Cut before its summary line: valgrind did not finish. */
    char *cut = ct_xstrdup(text);
    *strstr(cut, "summary:") = '\0';
    expect_malformed(cut, "no 'summary:' line");
    free(cut);
    expect_malformed("summary: 1 2 3\n", "no 'events:' line");
    /* Without --cache-sim=yes there are no miss counts. */
    expect_malformed("events: Ir\nsummary: 646067\n", "an event is missing");
    expect_malformed("events: Ir I1mr ILmr Dr D1mr DLmr Dw D1mw DLmw\nsummary: 1 2 3\n", "one count per event");
    expect_malformed("events: Ir I1mr ILmr Dr D1mr DLmr Dw D1mw DLmw\nsummary: 10 1 1 10 1 1 10 x 1\n",
                     "not a whole number");
    expect_malformed("events: Ir I1mr ILmr Dr D1mr DLmr Dw D1mw DLmw\nsummary: 10 1 2 10 1 1 10 1 1\n", "inconsistent");
    expect_malformed("events: Ir I1mr ILmr Dr D1mr DLmr Dw D1mw DLmw\nsummary: 10 11 1 10 1 1 10 1 1\n",
                     "inconsistent");
    /* Two outputs in one file: which summary is the run's is not known. */
    char *twice = sw_xasprintf("%s%s", text, text);
    expect_malformed(twice, "more than one 'events:' or 'summary:' line (two outputs in one file?)");
    free(twice);
    free(text);
}

Test(sim, valgrind_command_line) {
    char *argv[] = {"/bin/gcbench", "--size", "3", NULL};
    char *opt;
    char **a = sw_sim_argv("/usr/bin/valgrind", "/tmp/x/cachegrind-00000007", argv, &opt);
    const char *want[] = {"/usr/bin/valgrind",
                          "-q",
                          "--tool=cachegrind",
                          "--cache-sim=yes",
                          "--branch-sim=no",
                          "--I1=32768,8,64",
                          "--D1=32768,8,64",
                          "--LL=8388608,16,64",
                          "--trace-children=yes",
                          "--cachegrind-out-file=/tmp/x/cachegrind-00000007",
                          "/bin/gcbench",
                          "--size",
                          "3",
                          NULL};
    for (int i = 0; want[i]; i++)
        cr_assert_str_eq(a[i], want[i]);
    cr_assert_null(a[13]);
    free(a);
    free(opt);
}

Test(sim, finds_programs) {
    char *p = sw_sim_find_program("sh");
    cr_assert(p && strchr(p, '/'));
    free(p);
    cr_assert_null(sw_sim_find_program("/nonexistent/valgrind"));
    cr_assert_null(sw_sim_find_program("no-such-program-freecheck"));
}
