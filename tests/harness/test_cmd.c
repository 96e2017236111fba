/* test_cmd.c - unit tests of command workloads (harness/sw_cmd.h): template
 * expansion, each peer system's mapping of a period to its own setting
 * (workloads/peers.list), argv and environment of a run, the cells a
 * system cannot do, and bad declarations (exit 2). */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "../../harness/sw_cmd.h"
#include "../../harness/sw_util.h"

static void load_peers(void) {
    sw_cmd_reset();
    char *text = sw_read_file("workloads/peers.list");
    cr_assert(text, "workloads/peers.list is readable (tests run from the repository root)");
    cr_assert_eq(sw_cmd_load_text(text, "workloads/peers.list"), 10);
    free(text);
}

/* The single environment item a system sets for period p, or NULL. */
static char *env1(const char *system, uint64_t p) {
    char **e = sw_cmd_env(sw_cmd_system(system), "/b", p, "poisson");
    char *one = e[0] && !e[1] ? ct_xstrdup(e[0]) : NULL;
    sw_cmd_free_strv(e);
    return one;
}

Test(cmd, expand_exact) {
    const char *why = NULL;
    char *s = sw_cmd_expand("prof:true,lg_prof_sample:{log2P}", NULL, 0, 65536, NULL, &why);
    cr_assert_str_eq(s, "prof:true,lg_prof_sample:16");
    free(s);
    s = sw_cmd_expand("{bin}/a={P},{mode} --size {size}", "/x", 7, 49152, "fixed", &why);
    cr_assert_str_eq(s, "/x/a=49152,fixed --size 7");
    free(s);
    s = sw_cmd_expand("k={log2P}", NULL, 0, 32ull << 20, NULL, &why);
    cr_assert_str_eq(s, "k=25");
    free(s);
    cr_assert_null(sw_cmd_expand("k={log2P}", NULL, 0, 49152, NULL, &why));
    cr_assert_str_eq(why, "{log2P} needs a period that is a power of two");
    cr_assert_null(sw_cmd_expand("k={P}", NULL, 0, 0, NULL, &why)); /* no period: no value */
    cr_assert_null(sw_cmd_expand("{size}", "/b", 0, 0, NULL, &why));
}

Test(cmd, peer_templates_map_the_period) {
    load_peers();
    char *e = env1("jemalloc", 65536);
    cr_assert_str_eq(e, "MALLOC_CONF=prof:true,prof_active:true,lg_prof_sample:16");
    free(e);
    e = env1("jemalloc", 512 * 1024);
    cr_assert_str_eq(e, "MALLOC_CONF=prof:true,prof_active:true,lg_prof_sample:19");
    free(e);
    e = env1("jemalloc", 0);
    cr_assert_str_eq(e, "MALLOC_CONF=prof:false");
    free(e);
    e = env1("gperftools", 524288);
    cr_assert_str_eq(e, "TCMALLOC_SAMPLE_PARAMETER=524288");
    free(e);
    e = env1("gperftools", 0);
    cr_assert_str_eq(e, "TCMALLOC_SAMPLE_PARAMETER=0");
    free(e);
    e = env1("go", 4194304);
    cr_assert_str_eq(e, "FREECHECK_MEMPROFILERATE=4194304");
    free(e);
    e = env1("go", 0);
    cr_assert_str_eq(e, "FREECHECK_MEMPROFILERATE=0");
    free(e);
    e = env1("hotspot", 524288);
    cr_assert_str_eq(e, "FREECHECK_JVM_OPTS=-agentpath:/b/peers/libfcagent.so=interval=524288");
    free(e);
    e = env1("hotspot", 0);
    cr_assert_str_eq(e, "FREECHECK_JVM_OPTS=-agentpath:/b/peers/libfcagent.so=interval=0");
    free(e);

    e = env1("v8", 32768);
    cr_assert_str_eq(e, "FREECHECK_V8_SAMPLE_INTERVAL=32768");
    free(e);
    e = env1("v8", 0);
    cr_assert_str_eq(e, "FREECHECK_V8_SAMPLE_INTERVAL=0");
    free(e);

    /* The in-process design: jemalloc's profiling configured but inactive;
     * the others take their alloc template. */
    char **v = sw_cmd_env_ctx(sw_cmd_system("jemalloc"), "/b", 65536, "poisson", SW_CTX_INPROCESS);
    cr_assert_str_eq(v[0], "MALLOC_CONF=prof:true,prof_active:false,lg_prof_sample:16");
    cr_assert_null(v[1]);
    sw_cmd_free_strv(v);
    v = sw_cmd_env_ctx(sw_cmd_system("jemalloc"), "/b", 0, NULL, SW_CTX_INPROCESS); /* the A/A baseline: off */
    cr_assert_str_eq(v[0], "MALLOC_CONF=prof:false");
    cr_assert_null(v[1]);
    sw_cmd_free_strv(v);
    v = sw_cmd_env_ctx(sw_cmd_system("go"), "/b", 65536, "poisson", SW_CTX_INPROCESS);
    cr_assert_str_eq(v[0], "FREECHECK_MEMPROFILERATE=65536");
    cr_assert_null(v[1]);
    sw_cmd_free_strv(v);
    /* Under valgrind the determinism settings follow the cell's own. */
    v = sw_cmd_env_ctx(sw_cmd_system("go"), "/b", 65536, "poisson", SW_CTX_SIM);
    cr_assert_str_eq(v[0], "FREECHECK_MEMPROFILERATE=65536");
    cr_assert_str_eq(v[1], "GOGC=off");
    cr_assert_str_eq(v[2], "GOMAXPROCS=1");
    cr_assert_null(v[3]);
    sw_cmd_free_strv(v);
    v = sw_cmd_env_ctx(sw_cmd_system("hotspot"), "/b", 0, NULL, SW_CTX_SIM);
    cr_assert_str_eq(v[0], "FREECHECK_JVM_OPTS=-agentpath:/b/peers/libfcagent.so=interval=0");
    cr_assert_str_eq(v[1], "FREECHECK_JVM_EXTRA_OPTS=-Xbatch -XX:+UseSerialGC");
    cr_assert_null(v[2]);
    sw_cmd_free_strv(v);
    v = sw_cmd_env_ctx(sw_cmd_system("jemalloc"), "/b", 65536, "poisson", SW_CTX_TIMED); /* never in timed runs */
    cr_assert_str_eq(v[0], "MALLOC_CONF=prof:true,prof_active:true,lg_prof_sample:16");
    cr_assert_null(v[1]);
    sw_cmd_free_strv(v);
    for (const char *const *n = (const char *const[]){"jemalloc", "gperftools", "hotspot", "go", "v8", NULL}; *n; n++)
        cr_assert(sw_cmd_system(*n)->inprocess, "%s declares inprocess=yes", *n);
    /* V8 in-process: on its main thread, measured by it; under valgrind predictable. */
    v = sw_cmd_env_ctx(sw_cmd_system("v8"), "/b", 32768, "poisson", SW_CTX_INPROCESS);
    cr_assert_str_eq(v[0], "FREECHECK_V8_SAMPLE_INTERVAL=32768");
    cr_assert_str_eq(v[1], "FREECHECK_NODE_OPTS=--single-threaded");
    cr_assert_str_eq(v[2], "FREECHECK_V8_CPU_CLOCK=thread");
    cr_assert_null(v[3]);
    sw_cmd_free_strv(v);
    v = sw_cmd_env_ctx(sw_cmd_system("v8"), "/b", 0, NULL, SW_CTX_INPROCESS); /* its A/A runs the same way */
    cr_assert_str_eq(v[0], "FREECHECK_V8_SAMPLE_INTERVAL=0");
    cr_assert_str_eq(v[1], "FREECHECK_NODE_OPTS=--single-threaded");
    cr_assert_str_eq(v[2], "FREECHECK_V8_CPU_CLOCK=thread");
    cr_assert_null(v[3]);
    sw_cmd_free_strv(v);
    v = sw_cmd_env_ctx(sw_cmd_system("v8"), "/b", 0, NULL, SW_CTX_SIM);
    cr_assert_str_eq(v[0], "FREECHECK_V8_SAMPLE_INTERVAL=0");
    cr_assert_str_eq(v[1], "FREECHECK_NODE_OPTS=--predictable --single-threaded");
    cr_assert_null(v[2]);
    sw_cmd_free_strv(v);
    cr_assert_str_eq(sw_cmd_system("go")->segment, "1"); /* one collection cycle per segment */
    cr_assert_null(sw_cmd_system("jemalloc")->segment);
    cr_assert(sw_cmd_system("v8")->calibrate_work);
    cr_assert(!sw_cmd_system("go")->calibrate_work);

    /* The command line: the launcher, the size; --check after it. */
    const sw_command *c = sw_cmd_find("binarytrees-hotspot");
    cr_assert(c);
    char *path;
    char **argv = sw_cmd_argv(c, "/b", 12, 524288, "poisson", "--check", &path);
    cr_assert_str_eq(argv[0], "/b/peers/binarytrees-hotspot");
    cr_assert_str_eq(argv[1], "--size");
    cr_assert_str_eq(argv[2], "12");
    cr_assert_str_eq(argv[3], "--check");
    cr_assert_null(argv[4]);
    sw_cmd_free_strv(argv);
    free(path);

    /* What each peer is checked against, and where its check lives. */
    cr_assert_str_eq(sw_cmd_check_name(sw_cmd_find("gcbench-go")), "like:gcbench");
    cr_assert_str_eq(sw_cmd_system("hotspot")->site, "folded into the allocation limit (TLAB end)");
    cr_assert_str_eq(sw_cmd_system("jemalloc")->site, "a counter on the malloc path");
    cr_assert_str_eq(sw_cmd_system_of("gcbench")->name, "freecheck");
    cr_assert(sw_cmd_find("gcbench-jemalloc")->optional);
}

Test(cmd, cells_a_system_cannot_do) {
    load_peers();
    cr_assert_null(sw_cmd_cannot("binarytrees-go", 65536, "poisson", 0, 0));
    cr_assert_null(sw_cmd_cannot("binarytrees-go", 0, "", 0, 0));
    cr_assert_str_eq(sw_cmd_cannot("binarytrees-go", 65536, "fixed", 0, 0),
                     "its system does not sample in this mode (the system's modes=)");
    cr_assert_str_eq(sw_cmd_cannot("binarytrees-go", 0, "", 1000, 0),
                     "its system has no time sampling template (only freecheck's runtime has a time sampler here)");
    cr_assert_str_eq(sw_cmd_cannot("gcbench-jemalloc", 3 << 20, "poisson", 0, 0),
                     "its system's setting is log2 of the period ({log2P}): the period is not a power of two");
    cr_assert_null(sw_cmd_cannot("gcbench-gperftools", 3 << 20, "poisson", 0, 0));
    cr_assert_null(sw_cmd_cannot("gcbench", 3 << 20, "fixed", 1000, 0)); /* freecheck's own: everything */
}

Test(cmd, inprocess_design_needs_the_protocol) {
    sw_cmd_reset();
    sw_cmd_load_text("system talks modes=poisson alloc-env=A={P} inprocess=yes segment=20ms\n"
                     "system mute modes=poisson alloc-env=A={P}\n"
                     "command t system=talks -- /bin/true\n"
                     "command m system=mute -- /bin/true\n",
                     "t");
    sw_cmd_plan_design(1);
    cr_assert_null(sw_cmd_cannot_cell("t", 65536, "poisson", 0, 0, 0));
    cr_assert_str_eq(sw_cmd_cannot_cell("m", 0, "", 0, 0, 0),
                     "its system does not declare that its programs speak the in-process protocol (inprocess=yes on "
                     "its system line, docs/WORKLOADS.md): in the in-process design they would write no segment "
                     "series");
    cr_assert_null(sw_cmd_cannot_cell("m", 65536, "poisson", 0, 0, 1)); /* its simulated cells: planned */
    cr_assert_null(sw_cmd_cannot_cell("gcbench", 0, "", 0, 0, 0));      /* freecheck's own workloads */
    cr_assert_str_eq(sw_cmd_system("talks")->segment, "20ms");
    sw_cmd_plan_design(0);
    cr_assert_null(sw_cmd_cannot_cell("m", 65536, "poisson", 0, 0, 0));
    /* Their declarations, as the sweep stores them: the new keys only when used. */
    char *d = sw_cmd_describe();
    cr_assert(strstr(d, "system talks site=\"unknown\" modes=poisson alloc-env=\"A={P}\" inprocess=yes segment=20ms\n"),
              "%s", d);
    cr_assert(strstr(d, "system mute site=\"unknown\" modes=poisson alloc-env=\"A={P}\"\n"), "%s", d);
    free(d);
}

Test(cmd, files_include_a_script_word) {
    sw_cmd_reset();
    sw_cmd_load_text("system s modes=poisson alloc-env=A={P}\n"
                     "command n system=s -- /bin/sh tests/harness/fakepeer.sh --size {size} /nonexistent\n",
                     "t");
    char **paths;
    int n = sw_cmd_files(sw_cmd_find("n"), "/b", &paths);
    cr_assert_eq(n, 2, "the interpreter and its script, not the size or a missing path");
    cr_assert_str_eq(paths[0], "/bin/sh");
    cr_assert_str_eq(paths[1], "tests/harness/fakepeer.sh");
    cr_assert_null(paths[2]);
    sw_cmd_free_strv(paths);
}

Test(cmd, list_lines) {
    char *name;
    cr_assert_eq(sw_cmd_list_line("gcbench", &name), 0);
    cr_assert_eq(sw_cmd_list_line("  system x alloc-env=A={P}", &name), 1);
    cr_assert_eq(sw_cmd_list_line("command go-bt system=go -- x", &name), 2);
    cr_assert_str_eq(name, "go-bt");
    free(name);
    cr_assert_eq(sw_cmd_list_line("systemic", &name), 0);
}

Test(cmd, quoted_site_and_comment) {
    sw_cmd_reset();
    cr_assert_eq(sw_cmd_load_text("system s site=\"a # b\" alloc-env=A={P} # comment\n"
                                  "command c system=s check=none -- /bin/true \"two words\" # c\n",
                                  "t"),
                 1);
    cr_assert_str_eq(sw_cmd_system("s")->site, "a # b");
    cr_assert_eq(sw_cmd_find("c")->n_words, 2);
    cr_assert_str_eq(sw_cmd_find("c")->words[1], "two words");
    cr_assert_eq(sw_cmd_find("c")->check, SW_CHECK_NONE);
}

Test(cmd, bad_template_exits_2, .exit_code = 2) {
    sw_cmd_reset();
    sw_cmd_load_text("system s alloc-env=A={P}{nope}\n", "t");
}

Test(cmd, command_before_its_system_exits_2, .exit_code = 2) {
    sw_cmd_reset();
    sw_cmd_load_text("command c system=s -- /bin/true\nsystem s alloc-env=A={P}\n", "t");
}
