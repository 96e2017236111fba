/* test_settings.c - unit tests of the SGC_* settings: sizes, good values, bad values (exit 2, message). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sgc_internal.h"

static const char *const all_vars[] = {
    "SGC_ALLOC_PERIOD", "SGC_ALLOC_MODE",    "SGC_SEED",           "SGC_TIME_HZ",      "SGC_TIME_CLOCK",
    "SGC_PROFILE",      "SGC_STATS",         "SGC_NURSERY",        "SGC_MAJOR_GROWTH", "SGC_GC_STRESS",
    "SGC_VERIFY",       "SGC_POISON",        "SGC_SAMPLE_SPIN_NS", "SGC_HEAP_MAX",     "SGC_SAMPLE_SPIN_CLOCK",
    "SGC_ALLOC_OFFSET", "SGC_VIRTUAL_CLOCK", "SGC_HUGEPAGES"};

extern char **environ;

/* Every SGC_* variable out of the environment, so each test starts from the
 * defaults whatever the shell running the tests has set. */
static void clear_env(void) {
    for (;;) {
        char name[256] = "";
        for (char **e = environ; *e; e++) {
            if (strncmp(*e, "SGC_", 4) == 0) {
                size_t len = strcspn(*e, "=");
                snprintf(name, sizeof name, "%.*s", (int)(len < 255 ? len : 255), *e);
                break;
            }
        }
        if (!name[0])
            break;
        unsetenv(name);
    }
    for (size_t i = 0; i < sizeof all_vars / sizeof all_vars[0]; i++)
        unsetenv(all_vars[i]);
}

TestSuite(settings, .init = clear_env);

Test(settings, parse_size) {
    struct {
        const char *text;
        uint64_t value;
    } good[] = {
        {"0", 0},
        {"1", 1},
        {"4096", 4096},
        {"4K", 4096},
        {"4k", 4096},
        {"512KiB", 524288},
        {"4M", 4194304},
        {"32MB", 33554432},
        {"1G", 1073741824},
        {"18446744073709551615", UINT64_MAX},
        {"16777215G", (uint64_t)16777215 << 30},
    };
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        uint64_t v = 12345;
        cr_assert_eq(sgc__parse_size(good[i].text, &v), 0, "%s", good[i].text);
        cr_assert_eq(v, good[i].value, "%s", good[i].text);
    }
    const char *bad[] = {
        "", "K", "-1", " 4", "4 ", "4X", "4KK", "4.5M", "0x10", "18446744073709551616", "17179869184G", "4Ki", NULL};
    for (size_t i = 0; bad[i]; i++) {
        uint64_t v = 777;
        cr_assert_eq(sgc__parse_size(bad[i], &v), -1, "'%s' should be rejected", bad[i]);
        cr_assert_eq(v, 777, "untouched on error");
    }
    cr_assert_eq(sgc__parse_size(NULL, &(uint64_t){0}), -1);
}

Test(settings, defaults) {
    sgc__settings_load();
    cr_assert_eq(sgc__settings.alloc_period, 0);
    cr_assert_eq(sgc__settings.alloc_mode, SGC_SAMPLE_FIXED);
    cr_assert_eq(sgc__settings.seed, 0x5eedf3ee);
    cr_assert_eq(sgc__settings.time_hz, 0);
    cr_assert_eq(sgc__settings.time_clock, SGC_CLOCK_WALL);
    cr_assert_null(sgc__settings.profile_path);
    cr_assert_null(sgc__settings.stats_path);
    cr_assert_eq(sgc__settings.nursery_size, 1 << 20);
    cr_assert_eq(sgc__settings.major_growth, 2.0);
    cr_assert_eq(sgc__settings.heap_max, 0);
    cr_assert_eq(sgc__settings.stress_every, 0);
    cr_assert_eq(sgc__settings.verify, 0);
    cr_assert_eq(sgc__settings.poison, 0);
    cr_assert_eq(sgc__settings.sample_spin_ns, 0);
    cr_assert_eq(sgc__settings.sample_spin_clock, SGC_CLOCK_WALL);
    cr_assert_eq(sgc__settings.virtual_clock_ns, 0);
    cr_assert_eq(sgc__settings.hugepages, 0);
}

Test(settings, good_values) {
    setenv("SGC_ALLOC_PERIOD", "4M", 1);
    setenv("SGC_ALLOC_MODE", "poisson", 1);
    setenv("SGC_SEED", "18446744073709551615", 1);
    setenv("SGC_TIME_HZ", "1000", 1);
    setenv("SGC_TIME_CLOCK", "cpu", 1);
    setenv("SGC_PROFILE", "/tmp/p.prof", 1);
    setenv("SGC_STATS", "", 1); /* empty: not set */
    setenv("SGC_NURSERY", "4097", 1);
    setenv("SGC_MAJOR_GROWTH", "1.25", 1);
    setenv("SGC_GC_STRESS", "100", 1);
    setenv("SGC_HEAP_MAX", "64M", 1);
    setenv("SGC_VERIFY", "1", 1);
    setenv("SGC_POISON", "1", 1);
    setenv("SGC_SAMPLE_SPIN_NS", "999999", 1); /* 1000 Hz x 999999 ns: just under 1 s per s */
    setenv("SGC_HUGEPAGES", "1", 1);
    sgc__settings_load();
    cr_assert_eq(sgc__settings.alloc_period, 4u << 20);
    cr_assert_eq(sgc__settings.alloc_mode, SGC_SAMPLE_POISSON);
    cr_assert_eq(sgc__settings.seed, UINT64_MAX);
    cr_assert_eq(sgc__settings.time_hz, 1000);
    cr_assert_eq(sgc__settings.time_clock, SGC_CLOCK_CPU);
    cr_assert_str_eq(sgc__settings.profile_path, "/tmp/p.prof");
    cr_assert_null(sgc__settings.stats_path);
    cr_assert_eq(sgc__settings.nursery_size, 4096, "rounded down to whole words");
    cr_assert_eq(sgc__settings.major_growth, 1.25);
    cr_assert_eq(sgc__settings.stress_every, 100);
    cr_assert_eq(sgc__settings.heap_max, 64u << 20);
    cr_assert_eq(sgc__settings.verify, 1);
    cr_assert_eq(sgc__settings.poison, 1);
    cr_assert_eq(sgc__settings.sample_spin_ns, 999999u);
    setenv("SGC_TIME_HZ", "0", 1);
    unsetenv("SGC_TIME_CLOCK");                    /* a clock without a rate is refused */
    setenv("SGC_SAMPLE_SPIN_NS", "1000000000", 1); /* the largest, allowed without time samples */
    sgc__settings_load();
    cr_assert_eq(sgc__settings.sample_spin_ns, 1000000000u);
    cr_assert_eq(sgc__settings.hugepages, 1);
}

/* Loads the settings in a child with name=value set; returns its exit
 * status (or -1 if it did not exit) and what it printed on stderr. */
static int load_in_child(const char *name, const char *value, char *err, size_t errlen) {
    int fds[2];
    cr_assert_eq(pipe(fds), 0);
    fflush(NULL);
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) {
        close(fds[0]);
        dup2(fds[1], 2);
        setenv(name, value, 1);
        sgc__settings_load();
        _exit(0);
    }
    close(fds[1]);
    size_t n = 0;
    ssize_t r;
    while (n + 1 < errlen && (r = read(fds[0], err + n, errlen - 1 - n)) > 0)
        n += (size_t)r;
    err[n] = '\0';
    close(fds[0]);
    int status;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

Test(settings, bad_values_exit_2_naming_the_variable) {
    struct {
        const char *name, *value;
    } bad[] = {
        {"SGC_ALLOC_PERIOD", "lots"},
        {"SGC_ALLOC_PERIOD", "-4096"},
        {"SGC_ALLOC_PERIOD", ""},
        {"SGC_ALLOC_MODE", "random"},
        {"SGC_ALLOC_MODE", "Fixed"},
        {"SGC_SEED", "-1"},
        {"SGC_SEED", "12abc"},
        {"SGC_SEED", "18446744073709551616"},
        {"SGC_TIME_HZ", "100001"},
        {"SGC_TIME_HZ", "1k"},
        {"SGC_TIME_CLOCK", "process"},
        {"SGC_NURSERY", "4095"},
        {"SGC_NURSERY", "1M1"},
        {"SGC_NURSERY", "65G"},
        {"SGC_NURSERY", "0"},
        {"SGC_MAJOR_GROWTH", "1.0"},
        {"SGC_MAJOR_GROWTH", "0.5"},
        {"SGC_MAJOR_GROWTH", "nan"},
        {"SGC_MAJOR_GROWTH", "2x"},
        {"SGC_MAJOR_GROWTH", "inf"},
        {"SGC_GC_STRESS", "often"},
        {"SGC_VERIFY", "yes"},
        {"SGC_VERIFY", "2"},
        {"SGC_POISON", "true"},
        {"SGC_HUGEPAGES", "yes"},
        {"SGC_HUGEPAGES", "2"},
        {"SGC_HUGEPAGES", ""},
        {"SGC_SAMPLE_SPIN_NS", "1000000001"},
        {"SGC_SAMPLE_SPIN_NS", "10us"},
        {"SGC_SAMPLE_SPIN_NS", "-5"},
        {"SGC_SAMPLE_SPIN_NS", ""},
        {"SGC_HEAP_MAX", "big"},
        {"SGC_HEAP_MAX", "1M"},
        {"SGC_HEAP_MAX", "-1"},
        {"SGC_SAMPLE_SPIN_CLOCK", "monotonic"},
        {"SGC_SAMPLE_SPIN_CLOCK", ""},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char err[512], prefix[128];
        int rc = load_in_child(bad[i].name, bad[i].value, err, sizeof err);
        cr_assert_eq(rc, 2, "%s=%s: exit status %d", bad[i].name, bad[i].value, rc);
        snprintf(prefix, sizeof prefix, "freecheck: %s=%s: ", bad[i].name, bad[i].value);
        cr_assert_eq(strncmp(err, prefix, strlen(prefix)), 0, "%s=%s: message '%s'", bad[i].name, bad[i].value, err);
        cr_assert_gt(strlen(err), strlen(prefix) + 5, "the message says why");
    }
}

/* SGC_ALLOC_OFFSET is checked against the period and mode: a child with
 * all three set (NULL = unset). */
static int offset_in_child(const char *period, const char *mode, const char *offset, char *err, size_t errlen) {
    if (period)
        setenv("SGC_ALLOC_PERIOD", period, 1);
    if (mode)
        setenv("SGC_ALLOC_MODE", mode, 1);
    return load_in_child("SGC_ALLOC_OFFSET", offset, err, errlen);
}

Test(settings, alloc_offset) {
    char err[512];
    cr_assert_eq(offset_in_child("4K", NULL, "4095", err, sizeof err), 0, "%s", err);
    cr_assert_eq(offset_in_child("4K", "fixed", "3K", err, sizeof err), 0, "%s", err);
    cr_assert_eq(offset_in_child(NULL, NULL, "0", err, sizeof err), 0, "%s", err);
    cr_assert_eq(offset_in_child("4K", "poisson", "0", err, sizeof err), 0, "%s", err);
    const char *bad[][3] = {
        {"4K", NULL, "4096"},   {"4K", NULL, "5000"}, {NULL, NULL, "8"},  {"0", NULL, "8"},
        {"4K", "poisson", "8"}, {"4K", NULL, "-1"},   {"4K", NULL, "1x"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        clear_env();
        int rc = offset_in_child(bad[i][0], bad[i][1], bad[i][2], err, sizeof err);
        cr_assert_eq(rc, 2, "offset %s (period %s): exit %d", bad[i][2], bad[i][0], rc);
        char prefix[128];
        snprintf(prefix, sizeof prefix, "freecheck: SGC_ALLOC_OFFSET=%s: ", bad[i][2]);
        cr_assert_eq(strncmp(err, prefix, strlen(prefix)), 0, "message '%s'", err);
    }
    /* Alternation restarts sampling every on segment: no offset with it. */
    clear_env();
    setenv("SGC_ALTERNATE", "alloc", 1);
    cr_assert_eq(offset_in_child("4K", NULL, "8", err, sizeof err), 2);
    cr_assert(strstr(err, "SGC_ALTERNATE") != NULL, "message '%s'", err);
    cr_assert_eq(offset_in_child("4K", NULL, "0", err, sizeof err), 0, "%s", err);
    unsetenv("SGC_ALTERNATE");
}

/* SGC_VIRTUAL_CLOCK: nanoseconds per reading, 0 = the real clock; anything
 * else exits 2 with the message. */
Test(settings, virtual_clock) {
    static const struct {
        const char *text;
        uint64_t ns;
    } good[] = {{"0", 0}, {"1", 1}, {"1000", 1000}, {"1000000000", 1000000000u}};
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        setenv("SGC_VIRTUAL_CLOCK", good[i].text, 1);
        sgc__settings_load();
        cr_assert_eq(sgc__settings.virtual_clock_ns, good[i].ns, "%s", good[i].text);
    }
    unsetenv("SGC_VIRTUAL_CLOCK");
    static const char *const bad[] = {"", "1000000001", "-1", "1us", "1e3", " 1", "virtual", "18446744073709551616"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char err[512], want[256];
        int rc = load_in_child("SGC_VIRTUAL_CLOCK", bad[i], err, sizeof err);
        cr_assert_eq(rc, 2, "'%s': exit status %d", bad[i], rc);
        snprintf(want, sizeof want,
                 "freecheck: SGC_VIRTUAL_CLOCK=%s: expected nanoseconds per clock reading from 1 to 1000000000, or 0 "
                 "(off: the real clock)\n",
                 bad[i]);
        /* The whole first line (a sanitizer may add lines after it). */
        cr_assert_eq(strncmp(err, want, strlen(want)), 0, "message '%s', expected '%s'", err, want);
    }
}

/* The clock's readings: the real one by default; with the virtual clock
 * each reading is the step after the previous one, and a time recorded for
 * a real moment is the next reading. */
Test(settings, virtual_clock_readings) {
    sgc__settings_load();
    uint64_t a = sgc__now_ns(), b = sgc__now_ns();
    cr_assert_geq(b, a);
    cr_assert_eq(sgc__record_ns(12345), 12345, "the real clock records the moment as read");
    setenv("SGC_VIRTUAL_CLOCK", "250", 1);
    sgc__settings_load();
    uint64_t v = sgc__now_ns();
    cr_assert_eq(v % 250, 0);
    cr_assert_eq(sgc__now_ns(), v + 250);
    cr_assert_eq(sgc__now_ns(), v + 500);
    cr_assert_eq(sgc__record_ns(12345), v + 750);
    cr_assert_eq(sgc__now_ns(), v + 1000);
}

/* SGC_HUGEPAGES is a switch: 0 or 1, anything else exits 2 with the whole message. */
Test(settings, hugepages_switch) {
    static const char *const bad[] = {"", "yes", "on", "2", "01", " 1", "-1"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char err[512], want[128];
        int rc = load_in_child("SGC_HUGEPAGES", bad[i], err, sizeof err);
        cr_assert_eq(rc, 2, "'%s': exit status %d", bad[i], rc);
        snprintf(want, sizeof want, "freecheck: SGC_HUGEPAGES=%s: expected 0 (off) or 1 (on)\n", bad[i]);
        cr_assert_eq(strncmp(err, want, strlen(want)), 0, "message '%s', expected '%s'", err, want);
    }
    setenv("SGC_HUGEPAGES", "0", 1);
    sgc__settings_load();
    cr_assert_eq(sgc__settings.hugepages, 0);
    setenv("SGC_HUGEPAGES", "1", 1);
    sgc__settings_load();
    cr_assert_eq(sgc__settings.hugepages, 1);
}

Test(settings, minimum_nursery_accepted) {
    cr_assert_eq(load_in_child("SGC_NURSERY", "4K", (char[64]){0}, 64), 0);
    cr_assert_eq(load_in_child("SGC_MAJOR_GROWTH", "1.001", (char[64]){0}, 64), 0);
}

Test(settings, unknown_name_refused_naming_the_closest) {
    struct {
        const char *name, *value, *closest;
    } typo[] = {
        {"SGC_ALLOCPERIOD", "4M", "SGC_ALLOC_PERIOD"},  {"SGC_NURSEY", "64K", "SGC_NURSERY"},
        {"SGC_TIMEHZ", "1000", "SGC_TIME_HZ"},          {"SGC_PROFLE", "x.prof", "SGC_PROFILE"},
        {"SGC_HEAPMAX", "1G", "SGC_HEAP_MAX"},          {"SGC_", "", "SGC_SEED"},
        {"SGC_alloc_period", "4M", "SGC_ALLOC_PERIOD"}, {"SGC_HUGEPAGE", "1", "SGC_HUGEPAGES"},
        {"SGC_HUGE_PAGES", "1", "SGC_HUGEPAGES"},
    };
    for (size_t i = 0; i < sizeof typo / sizeof typo[0]; i++) {
        char err[512], want[256];
        int rc = load_in_child(typo[i].name, typo[i].value, err, sizeof err);
        cr_assert_eq(rc, 2, "%s=%s: exit status %d", typo[i].name, typo[i].value, rc);
        snprintf(want, sizeof want,
                 "freecheck: %s=%s: unknown setting (did you mean %s?); the SGC_* settings are listed in "
                 "docs/RUNTIME.md\n",
                 typo[i].name, typo[i].value, typo[i].closest);
        cr_assert_eq(strncmp(err, want, strlen(want)), 0, "%s", err); /* sanitizers may add lines */
    }
    /* Names that merely start alike are not settings either. */
    cr_assert_eq(load_in_child("SGCX_NURSERY", "1", (char[64]){0}, 64), 0);
    cr_assert_eq(load_in_child("SGC_NURSERY", "64K", (char[64]){0}, 64), 0);
}

/* docs/RUNTIME.md's settings table lists exactly the names the runtime knows. */
Test(settings, documented_names_are_the_known_names) {
    FILE *f = fopen("docs/RUNTIME.md", "r");
    cr_assert_not_null(f, "run from the top of the repository");
    char line[1024];
    int documented = 0, in_settings = 0;
    while (fgets(line, sizeof line, f)) {
        /* The table of the section itself, not its subsections'. */
        if (strncmp(line, "## ", 3) == 0 || strncmp(line, "### ", 4) == 0)
            in_settings = strcmp(line, "## Settings\n") == 0;
        if (!in_settings || strncmp(line, "| `SGC_", 7) != 0)
            continue;
        char name[64];
        size_t len = strcspn(line + 3, "`");
        cr_assert_lt(len, sizeof name);
        snprintf(name, sizeof name, "%.*s", (int)len, line + 3);
        int known = 0;
        for (const char *const *k = sgc__setting_names; *k; k++)
            known |= strcmp(*k, name) == 0;
        cr_assert(known, "%s is documented in docs/RUNTIME.md but not in sgc__setting_names", name);
        documented++;
    }
    fclose(f);
    int names = 0;
    for (const char *const *k = sgc__setting_names; *k; k++)
        names++;
    cr_assert_eq(documented, names, "docs/RUNTIME.md documents %d settings, the runtime knows %d", documented, names);
}

/* Time samples that would spin for all of the program's time (rate x spin
 * >= 1 s per s) could never let it finish: exit 2 at start-up. */
Test(settings, spin_against_time_rate) {
    static const struct {
        const char *hz, *spin;
        int rc;
    } cases[] = {
        {"1000", "999999", 0},  {"1000", "1000000", 2}, {"100000", "10000", 2}, {"100000", "9999", 0},
        {"0", "1000000000", 0}, {"1", "999999999", 0},  {"1", "1000000000", 2},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char err[512], want[256];
        clear_env();
        setenv("SGC_TIME_HZ", cases[i].hz, 1);
        int rc = load_in_child("SGC_SAMPLE_SPIN_NS", cases[i].spin, err, sizeof err);
        cr_assert_eq(rc, cases[i].rc, "%s Hz x %s ns: exit status %d (%s)", cases[i].hz, cases[i].spin, rc, err);
        if (cases[i].rc == 2) {
            snprintf(want, sizeof want,
                     "freecheck: SGC_SAMPLE_SPIN_NS=%s: with SGC_TIME_HZ the time samples alone would spin for all of "
                     "the program's time (rate x spin must be under 1 s per s); lower one of them\n",
                     cases[i].spin);
            cr_assert_eq(strncmp(err, want, strlen(want)), 0, "message '%s', expected '%s'", err, want);
        }
    }
    clear_env();
}

/* The SGC_ prefix is reserved in every case: a name that matches it but is
 * not exactly a known setting is refused with the nearest known name, so
 * sgc_alloc_period=4M does not leave sampling silently off. */
Test(settings, any_case_of_the_prefix_is_refused_with_the_nearest_name) {
    static const struct {
        const char *name, *value, *closest;
    } typo[] = {
        {"sgc_alloc_period", "4M", "SGC_ALLOC_PERIOD"}, {"Sgc_ALLOC_PERIOD", "4M", "SGC_ALLOC_PERIOD"},
        {"sGC_TIME_HZ", "1000", "SGC_TIME_HZ"},         {"SGC_ALLOC_PEROID", "4M", "SGC_ALLOC_PERIOD"},
        {"sgc_stats", "/tmp/x", "SGC_STATS"},           {"Sgc_Nursery", "64K", "SGC_NURSERY"},
    };
    for (size_t i = 0; i < sizeof typo / sizeof typo[0]; i++) {
        char err[512], want[256];
        int rc = load_in_child(typo[i].name, typo[i].value, err, sizeof err);
        cr_assert_eq(rc, 2, "%s=%s: exit status %d", typo[i].name, typo[i].value, rc);
        snprintf(want, sizeof want,
                 "freecheck: %s=%s: unknown setting (did you mean %s?); the SGC_* settings are listed in "
                 "docs/RUNTIME.md\n",
                 typo[i].name, typo[i].value, typo[i].closest);
        cr_assert_eq(strncmp(err, want, strlen(want)), 0, "got: %s\nwant: %s", err, want);
    }
}

/* A variable set twice in the environment (possible with execve): the
 * runtime would read only the first, so it refuses both. */
Test(settings, a_setting_given_twice_is_refused) {
    int fds[2];
    cr_assert_eq(pipe(fds), 0);
    fflush(NULL);
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) {
        close(fds[0]);
        dup2(fds[1], 2);
        static char *env[] = {"PATH=/bin", "SGC_NURSERY=64K", "HOME=/", "SGC_NURSERY=128K", NULL};
        environ = env;
        sgc__settings_load();
        _exit(0);
    }
    close(fds[1]);
    char err[512];
    ssize_t n = read(fds[0], err, sizeof err - 1);
    err[n > 0 ? n : 0] = '\0';
    close(fds[0]);
    int status;
    waitpid(pid, &status, 0);
    cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 2, "status %d, stderr: %s", status, err);
    const char *want = "freecheck: SGC_NURSERY=128K: SGC_NURSERY is set twice in the environment (first "
                       "SGC_NURSERY=64K); set it once\n";
    cr_assert_eq(strncmp(err, want, strlen(want)), 0, "got: %s\nwant: %s", err, want);
}

/* Runs sgc_init in a child with the settings "NAME=VALUE" (NULL-terminated)
 * and exits through exit(); returns its status and stderr. */
static int run_in_child(const char *const *settings, char *err, size_t errlen) {
    int fds[2];
    cr_assert_eq(pipe(fds), 0);
    fflush(NULL);
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) {
        close(fds[0]);
        dup2(fds[1], 2);
        for (const char *const *s = settings; *s; s++) {
            char name[64];
            size_t len = strcspn(*s, "=");
            snprintf(name, sizeof name, "%.*s", (int)len, *s);
            setenv(name, *s + len + 1, 1);
        }
        sgc_init();
        exit(0);
    }
    close(fds[1]);
    size_t n = 0;
    ssize_t r;
    while (n + 1 < errlen && (r = read(fds[0], err + n, errlen - 1 - n)) > 0)
        n += (size_t)r;
    err[n] = '\0';
    close(fds[0]);
    int status;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* Every combination in which a setting would have no effect (docs/RUNTIME.md,
 * "Settings without effect"): refused with exit 2 when nothing the program
 * does could use it, a warning (exit 0) where the harness passes it on
 * purpose or where only the program's own calls could use it; and the
 * combinations in which the same settings act, accepted without a word. */
Test(settings, settings_without_effect_refused_or_warned) {
    static const struct {
        const char *settings[5];
        int rc;
        const char *message; /* the whole of stderr; "" = nothing */
    } cases[] = {
        {{"SGC_ALLOC_MODE=poisson"},
         2,
         "freecheck: SGC_ALLOC_MODE=poisson: has no effect without allocation sampling (SGC_ALLOC_PERIOD is 0 or "
         "unset); set a period or unset SGC_ALLOC_MODE\n"},
        {{"SGC_ALLOC_MODE=fixed", "SGC_ALLOC_PERIOD=0"},
         2,
         "freecheck: SGC_ALLOC_MODE=fixed: has no effect without allocation sampling (SGC_ALLOC_PERIOD is 0 or "
         "unset); set a period or unset SGC_ALLOC_MODE\n"},
        {{"SGC_TIME_CLOCK=cpu"},
         2,
         "freecheck: SGC_TIME_CLOCK=cpu: has no effect without time sampling (SGC_TIME_HZ is 0 or unset); set a "
         "rate or unset SGC_TIME_CLOCK\n"},
        {{"SGC_TIME_CLOCK=wall", "SGC_TIME_HZ=0"},
         2,
         "freecheck: SGC_TIME_CLOCK=wall: has no effect without time sampling (SGC_TIME_HZ is 0 or unset); set a "
         "rate or unset SGC_TIME_CLOCK\n"},
        {{"SGC_ALT_SEGMENT=4"},
         2,
         "freecheck: SGC_ALT_SEGMENT=4: has no effect without in-process alternation (SGC_ALTERNATE is off or "
         "unset); set SGC_ALTERNATE or unset SGC_ALT_SEGMENT\n"},
        {{"SGC_ALT_OUT=/tmp/sgc-test-unused-series"},
         2,
         "freecheck: SGC_ALT_OUT=/tmp/sgc-test-unused-series: has no effect without in-process alternation "
         "(SGC_ALTERNATE is off or unset); set SGC_ALTERNATE or unset SGC_ALT_OUT\n"},
        {{"SGC_ALT_CARRY=100", "SGC_ALTERNATE=off"},
         2,
         "freecheck: SGC_ALT_CARRY=100: has no effect without in-process alternation (SGC_ALTERNATE is off or "
         "unset); set SGC_ALTERNATE or unset SGC_ALT_CARRY\n"},
        {{"SGC_ALT_COST=100"},
         2,
         "freecheck: SGC_ALT_COST=100: has no effect without in-process alternation (SGC_ALTERNATE is off or "
         "unset); set SGC_ALTERNATE or unset SGC_ALT_COST\n"},
        /* The harness's validation sweeps pass the clock with a spin of 0
         * (their control): a warning, not a refusal. */
        {{"SGC_SAMPLE_SPIN_CLOCK=cpu", "SGC_SAMPLE_SPIN_NS=0"},
         0,
         "freecheck: SGC_SAMPLE_SPIN_CLOCK=cpu: warning: has no effect without a spin (SGC_SAMPLE_SPIN_NS is 0 "
         "or unset)\n"},
        /* These could be used by the program's own sgc_time_sampling_start
         * or sgc_sampling_start, and the harness passes them to its baseline
         * runs: a warning at exit when nothing used them. */
        {{"SGC_TIME_MODE=thread"},
         0,
         "freecheck: SGC_TIME_MODE=thread: warning: had no effect: no time sampling ran in this process "
         "(SGC_TIME_HZ is 0 or unset)\n"},
        {{"SGC_SAMPLE_SPIN_NS=5000"},
         0,
         "freecheck: SGC_SAMPLE_SPIN_NS=5000: warning: had no effect: no sampler ran in this process "
         "(SGC_ALLOC_PERIOD and SGC_TIME_HZ are 0 or unset)\n"},
        /* A time segment of fewer than 20 timer periods is lengthened. */
        {{"SGC_ALTERNATE=time", "SGC_TIME_HZ=100", "SGC_ALT_SEGMENT=5ms"},
         0,
         "freecheck: SGC_ALT_SEGMENT=5ms: warning: segments last 200ms, at least 20 periods of SGC_TIME_HZ=100\n"},
        /* Where they act: accepted without a word. */
        {{"SGC_ALLOC_MODE=poisson", "SGC_ALLOC_PERIOD=64K"}, 0, ""},
        {{"SGC_TIME_CLOCK=cpu", "SGC_TIME_HZ=100"}, 0, ""},
        {{"SGC_ALTERNATE=none", "SGC_ALT_SEGMENT=4", "SGC_ALT_CARRY=1", "SGC_ALT_COST=1"}, 0, ""},
        {{"SGC_SAMPLE_SPIN_CLOCK=cpu", "SGC_SAMPLE_SPIN_NS=1000", "SGC_ALLOC_PERIOD=64K"}, 0, ""},
        {{"SGC_TIME_MODE=thread", "SGC_TIME_HZ=100"}, 0, ""},
        {{"SGC_ALTERNATE=time", "SGC_TIME_HZ=1000", "SGC_ALT_SEGMENT=20ms"}, 0, ""},
        /* 0 means off: saying so is not a setting without effect. */
        {{"SGC_ALLOC_OFFSET=0", "SGC_ALT_CARRY=0", "SGC_ALT_COST=0", "SGC_SAMPLE_SPIN_NS=0"}, 0, ""},
        /* The seed is recorded in the stats record whatever the mode, and
         * the harness gives every run one (docs/RUNTIME.md). */
        {{"SGC_SEED=7"}, 0, ""},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        clear_env();
        char err[1024];
        int rc = run_in_child(cases[i].settings, err, sizeof err);
        cr_assert_eq(rc, cases[i].rc, "case %zu (%s ...): exit %d, stderr: %s", i, cases[i].settings[0], rc, err);
        /* The message whole, and no other line of the runtime's (a
         * sanitizer build may add lines of its own). */
        size_t len = strlen(cases[i].message);
        cr_assert_eq(strncmp(err, cases[i].message, len), 0, "case %zu (%s ...): got: %s\nwant: %s", i,
                     cases[i].settings[0], err, cases[i].message);
        cr_assert_null(strstr(err + len, "freecheck:"), "case %zu (%s ...): more: %s", i, cases[i].settings[0], err);
    }
    clear_env();
}

/* SGC_MAJOR_GROWTH is decimal like every other setting (no hexadecimal, no
 * exponent), with at most three decimals: the stats record states it with
 * three. */
Test(settings, major_growth_is_decimal) {
    static const struct {
        const char *text;
        double value;
    } good[] = {{"2", 2.0}, {"1.5", 1.5}, {"1.001", 1.001}, {"1000", 1000.0}, {"1000.000", 1000.0}, {"01.25", 1.25}};
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        setenv("SGC_MAJOR_GROWTH", good[i].text, 1);
        sgc__settings_load();
        cr_assert_eq(sgc__settings.major_growth, good[i].value, "%s", good[i].text);
    }
    unsetenv("SGC_MAJOR_GROWTH");
    static const char *const bad[] = {"0x10", "0x1p1", "1e1",   "2E0",      "1.0001", "2.",  ".5",  "+2",  " 2", "2 ",
                                      "1",    "1.0",   "1.000", "1000.001", "1001",   "1,5", "inf", "nan", "",   "-2"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char err[512], want[256];
        int rc = load_in_child("SGC_MAJOR_GROWTH", bad[i], err, sizeof err);
        cr_assert_eq(rc, 2, "'%s': exit status %d", bad[i], rc);
        snprintf(want, sizeof want,
                 "freecheck: SGC_MAJOR_GROWTH=%s: expected a growth factor above 1 and at most 1000, a decimal number "
                 "with at most three decimals such as 2 or 1.5\n",
                 bad[i]);
        cr_assert_eq(strncmp(err, want, strlen(want)), 0, "got: %s\nwant: %s", err, want);
    }
}
