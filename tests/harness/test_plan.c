/* test_plan.c - unit tests of the harness's plan, schedule, options, stats
 * record parsing and checksum lines. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "../../harness/sw_opts.h"
#include "../../harness/sw_plan.h"
#include "../../harness/sw_run.h"
#include "../../harness/sw_util.h"
#include "../../harness/sw_noise.h"
#include "../../harness/sw_hash.h"
#include "sgc_stats_keys.h"
#include "sgc_statsrec.h"

#include <unistd.h>

static char *two[] = {"gcbench", "microbench"};

Test(plan, default_matrix_has_exact_cells_and_labels) {
    sw_opts o;
    sw_opts_defaults(&o);
    sw_cell *cells;
    int n = sw_plan_cells(&o, two, 2, &cells);
    /* baseline + 6 periods (32K, 128K, ..., 32M) + 3 rates, per workload, natively and simulated */
    cr_assert_eq(n, 2 * 10 + 2 * 10);
    cr_assert_str_eq(cells[0].label, "gcbench/baseline");
    cr_assert_str_eq(cells[0].kind, "baseline");
    cr_assert_eq(cells[0].alloc_period, 0);
    cr_assert_str_eq(cells[0].alloc_mode, "");
    cr_assert_str_eq(cells[1].label, "gcbench/alloc-fixed-32K");
    cr_assert_eq(cells[1].alloc_period, 32768);
    cr_assert_str_eq(cells[2].label, "gcbench/alloc-fixed-128K");
    cr_assert_str_eq(cells[6].label, "gcbench/alloc-fixed-32M");
    cr_assert_eq(cells[6].alloc_period, 32u << 20);
    cr_assert_str_eq(cells[7].label, "gcbench/time-100Hz");
    cr_assert_str_eq(cells[7].time_clock, "wall");
    cr_assert_str_eq(cells[9].label, "gcbench/time-2000Hz");
    cr_assert_str_eq(cells[10].label, "microbench/baseline");
    cr_assert_eq(o.design, SW_DESIGN_BLOCKED);
    cr_assert_str_eq(cells[20].label, "gcbench/sim/baseline");
    cr_assert_str_eq(cells[21].label, "gcbench/sim/alloc-fixed-32K");
    cr_assert_str_eq(cells[39].label, "microbench/sim/time-2000Hz");
    for (int i = 0; i < n; i++) {
        cr_assert_eq(cells[i].id, i + 1);
        cr_assert_eq(cells[i].sim, i >= 20);
    }
    sw_plan_free_cells(cells, n);
    sw_opts_free(&o);
}

Test(plan, options_shape_the_cells) {
    sw_opts o;
    sw_opts_defaults(&o);
    sw_opts_parse_config(&o,
                         "periods = 4M, 100\nmodes = fixed,poisson\ntime-hz = 1000\ntime-clock = wall cpu\n"
                         "combined = 4M@1000\nbackends = native\n",
                         "test");
    sw_cell *cells;
    int n = sw_plan_cells(&o, two, 1, &cells);
    const char *want[] = {"gcbench/baseline",          "gcbench/alloc-fixed-4M",
                          "gcbench/alloc-fixed-100",   "gcbench/alloc-poisson-4M",
                          "gcbench/alloc-poisson-100", "gcbench/time-1000Hz",
                          "gcbench/time-cpu-1000Hz",   "gcbench/alloc-fixed-4M+time-1000Hz"};
    cr_assert_eq(n, 8);
    for (int i = 0; i < n; i++)
        cr_assert_str_eq(cells[i].label, want[i]);
    cr_assert_str_eq(cells[7].kind, "alloc+time");
    cr_assert_eq(cells[7].alloc_period, 4u << 20);
    cr_assert_eq(cells[7].time_hz, 1000);
    sw_plan_free_cells(cells, n);
    sw_opts_free(&o);
}

Test(plan, quick_plan) {
    sw_opts o;
    sw_opts_defaults(&o);
    sw_opts_parse_config(&o, "quick\n", "test");
    sw_cell *cells;
    int n = sw_plan_cells(&o, two, 2, &cells);
    cr_assert_eq(n, 2 * 5 + 2 * 5);
    cr_assert_eq(o.runs, 5);
    sw_slot *slots;
    cr_assert_eq(sw_plan_schedule(10, o.warmup, o.runs, 1, &slots), 60);
    free(slots);
    /* The simulated cells after the native schedule (the blocked design: two
     * runs per block, one block per cell per round, 6 rounds, 10 cells):
     * 10 cells x 2 runs, in plan order. */
    int native = sw_plan_build(o.design, cells, 10, o.warmup, o.runs, 1, &slots);
    free(slots);
    cr_assert_eq(sw_plan_schedule_all(&o, cells, n, &slots), native + 20);
    for (int i = 0; i < native; i++)
        cr_assert(!cells[slots[i].cell].sim);
    for (int i = native; i < native + 20; i++) {
        cr_assert_eq(slots[i].seq, i + 1);
        cr_assert_eq(slots[i].cell, 10 + (i - native) / 2);
        cr_assert_eq(slots[i].round, 1 + (i - native) % 2);
        cr_assert_eq(slots[i].block, 0);
    }
    free(slots);
    sw_plan_free_cells(cells, n);
    sw_opts_free(&o);
}

Test(schedule, every_round_is_a_permutation_and_rounds_number_from_warmup) {
    sw_slot *slots;
    int cells = 17, warmup = 2, runs = 9;
    int n = sw_plan_schedule(cells, warmup, runs, 42, &slots);
    cr_assert_eq(n, cells * (warmup + runs));
    for (int pass = 0; pass < warmup + runs; pass++) {
        int seen[17] = {0};
        for (int i = 0; i < cells; i++) {
            const sw_slot *s = &slots[pass * cells + i];
            cr_assert_eq(s->seq, pass * cells + i + 1);
            cr_assert_eq(s->pass, pass);
            cr_assert_eq(s->round, pass - warmup + 1); /* warm-up rounds are -1 and 0 */
            seen[s->cell]++;
        }
        for (int c = 0; c < cells; c++)
            cr_assert_eq(seen[c], 1, "round %d runs cell %d %d times", pass, c, seen[c]);
    }
    free(slots);
}

Test(schedule, seeded_reproducible_and_shuffled) {
    sw_slot *a, *b, *c;
    int n = sw_plan_schedule(30, 1, 30, 7, &a);
    sw_plan_schedule(30, 1, 30, 7, &b);
    sw_plan_schedule(30, 1, 30, 8, &c);
    int same_ab = 1, same_ac = 1, identical_rounds = 0, in_order = 0;
    for (int i = 0; i < n; i++) {
        same_ab &= a[i].cell == b[i].cell;
        same_ac &= a[i].cell == c[i].cell;
    }
    for (int r = 1; r < 31; r++) {
        int eq = 1;
        for (int i = 0; i < 30; i++)
            eq &= a[r * 30 + i].cell == a[(r - 1) * 30 + i].cell;
        identical_rounds += eq;
        int ord = 1;
        for (int i = 0; i < 30; i++)
            ord &= a[r * 30 + i].cell == i;
        in_order += ord;
    }
    cr_assert(same_ab, "the same seed must give the same schedule");
    cr_assert(!same_ac, "another seed must give another schedule");
    /* With 30! orders, two equal consecutive rounds or an unshuffled one
     * means the shuffle is broken. */
    cr_assert_eq(identical_rounds, 0);
    cr_assert_eq(in_order, 0);
    /* Every cell lands in every position about equally often: each cell's
     * mean position over 31 rounds must be far from the ends. */
    for (int cell = 0; cell < 30; cell++) {
        double sum = 0;
        for (int i = 0; i < n; i++)
            if (a[i].cell == cell)
                sum += (a[i].seq - 1) % 30;
        double mean = sum / 31;
        cr_assert(mean > 5 && mean < 24, "cell %d has mean position %.1f", cell, mean);
    }
    free(a), free(b), free(c);
}

Test(schedule, known_order_for_seed_1) {
    /* Pins the generator and the shuffle: a stored seed must replay the same
     * order on any build. */
    sw_slot *s;
    sw_plan_schedule(5, 1, 1, 1, &s);
    int got[10];
    for (int i = 0; i < 10; i++)
        got[i] = s[i].cell;
    sw_rng r;
    sw_rng_seed(&r, 1);
    int want[10];
    for (int round = 0; round < 2; round++) {
        int order[5] = {0, 1, 2, 3, 4};
        for (int i = 4; i > 0; i--) {
            int j = (int)sw_rng_below(&r, (uint64_t)i + 1);
            int t = order[i];
            order[i] = order[j];
            order[j] = t;
        }
        memcpy(&want[round * 5], order, sizeof order);
    }
    cr_assert_arr_eq(got, want, sizeof got);
    sw_rng_seed(&r, 1);
    cr_assert_eq(sw_rng_next(&r), 0x910a2dec89025cc1ull); /* splitmix64(1), first output */
    free(s);
}

Test(opts, config_round_trip) {
    sw_opts a, b;
    sw_opts_defaults(&a);
    sw_opts_parse_config(&a,
                         "# a comment\n\nworkloads = x, y\nperiods = 1G 3\nmodes = poisson\ntime-hz = none\n"
                         "combined = 64K@100\nruns = 7\nwarmup = 2\nseed = 99\ncpu = 0\ntimeout = 2.5\n"
                         "target = 0.2\nsize = x=5\nkeep-profiles = yes\ncounters = perf::task-clock\n",
                         "test");
    char *text = sw_opts_to_config(&a);
    sw_opts_defaults(&b);
    sw_opts_parse_config(&b, text, "stored");
    char *again = sw_opts_to_config(&b);
    cr_assert_str_eq(text, again);
    cr_assert_eq(b.n_workloads, 2);
    cr_assert_str_eq(b.workloads[1], "y");
    cr_assert_eq(b.n_periods, 2);
    cr_assert_eq(b.periods[0], 1ull << 30);
    cr_assert_eq(b.periods[1], 3);
    cr_assert_eq(b.modes, 1u << SGC_SAMPLE_POISSON);
    cr_assert_eq(b.n_time_hz, 0);
    cr_assert_eq(b.combined[0].period, 65536);
    cr_assert_eq(b.runs, 7);
    cr_assert_eq(b.warmup, 2);
    cr_assert_eq(b.seed, 99);
    cr_assert_eq(b.cpu, 0);
    cr_assert_eq(sw_opts_fixed_size(&b, "x"), 5);
    cr_assert_eq(sw_opts_fixed_size(&b, "y"), 0);
    cr_assert(b.keep_profiles);
    free(text), free(again);
    sw_opts_free(&a);
    sw_opts_free(&b);
}

/* The stored config and the table of settings agree: every stored setting
 * is written (so --resume replays it), nothing else is, and every key
 * written is a setting of the table. */
Test(opts, stored_config_writes_every_stored_setting) {
    sw_opts o;
    sw_opts_defaults(&o);
    /* replicates (with replicate-order), sizes-from and time-modes are written only when set
     * (configs stored before them have none): set here, so that they must
     * be written. */
    sw_opts_parse_config(
        &o, "workloads = x\nbin-dir = /b\nreplicates = 2\nsizes-from = /s\ntime-modes = signal,thread\n", "test");
    char *text = sw_opts_to_config(&o);
    int stored, n = 0;
    const char *name;
    for (int i = 0; (name = sw_opts_setting(i, &stored)); i++, n++) {
        char key[80];
        snprintf(key, sizeof key, "\n%s = ", name);
        int written = !strncmp(text, key + 1, strlen(key + 1)) || strstr(text, key);
        cr_expect_eq(written, stored, "setting %s: %s in the stored config", name, written ? "written" : "not written");
    }
    cr_assert_eq(n, 48); /* the options of --help (docs/HARNESS.md), with --resume and --no-progress */
    for (char *line = text; *line; line = strchr(line, '\n') + 1) {
        size_t len = strcspn(line, " ");
        int known = 0;
        for (int i = 0; (name = sw_opts_setting(i, &stored)); i++)
            known |= stored && strlen(name) == len && !strncmp(line, name, len);
        cr_expect(known, "stored config key '%.*s' is no stored setting", (int)len, line);
    }
    free(text);
    sw_opts_free(&o);
}

/* The replicates' order: sequential unless given; written with the
 * replicates and read back; a stored config of replicates without it (one
 * stored before the setting) means interleaved; one replicate writes none. */
Test(opts, replicate_order_round_trip_and_stored_default) {
    sw_opts o;
    sw_opts_defaults(&o);
    cr_assert_eq(sw_opts_reporder(&o), SW_REPORDER_SEQUENTIAL);
    char *one = sw_opts_to_config(&o);
    cr_expect_null(strstr(one, "replicate-order"), "one replicate: no order written");
    free(one);
    sw_opts_parse_config(&o, "replicates = 3\n", "test");
    char *text = sw_opts_to_config(&o);
    cr_expect_not_null(strstr(text, "\nreplicate-order = sequential\n"));
    sw_opts_free(&o);
    sw_opts_defaults(&o);
    sw_opts_parse_config(&o, "replicates = 3\nreplicate-order = interleaved\n", "test");
    cr_expect_eq(sw_opts_reporder(&o), SW_REPORDER_INTERLEAVED);
    sw_opts_free(&o);
    sw_opts_defaults(&o);
    sw_opts_parse_config(&o, "replicates = 3\n", "stored config");
    sw_opts_stored_defaults(&o);
    cr_expect_eq(sw_opts_reporder(&o), SW_REPORDER_INTERLEAVED, "stored before the setting: interleaved");
    sw_opts_free(&o);
    sw_opts_defaults(&o);
    sw_opts_parse_config(&o, text, "stored config");
    sw_opts_stored_defaults(&o);
    cr_expect_eq(sw_opts_reporder(&o), SW_REPORDER_SEQUENTIAL, "a stored sequential order stays");
    free(text);
    sw_opts_free(&o);
}

Test(opts, replicate_order_bad_value_exits_2, .exit_code = 2) {
    sw_opts o;
    sw_opts_defaults(&o);
    sw_opts_parse_config(&o, "replicate-order = random\n", "test");
}

/* A mistyped config key is an error naming it (exit 2). */
Test(opts, config_unknown_key_exits_2, .exit_code = 2) {
    sw_opts o;
    sw_opts_defaults(&o);
    sw_opts_parse_config(&o, "runs = 3\nwarmpu = 2\n", "test");
}

Test(opts, env_settings) {
    sw_opts a, b;
    sw_opts_defaults(&a);
    cr_assert_eq(a.n_env, 0);
    sw_opts_parse_config(&a, "env = SGC_NURSERY=1M, SGC_VERIFY=1\nenv = SGC_NURSERY=256K SGC_POISON=1\n", "test");
    cr_assert_eq(a.n_env, 3); /* accumulates; the later SGC_NURSERY replaces the earlier one */
    cr_assert_str_eq(sw_opts_env(&a, "SGC_NURSERY"), "256K");
    cr_assert_str_eq(sw_opts_env(&a, "SGC_VERIFY"), "1");
    cr_assert_null(sw_opts_env(&a, "SGC_GC_STRESS"));
    char *text = sw_opts_to_config(&a);
    cr_assert_not_null(strstr(text, "\nenv = SGC_NURSERY=256K,SGC_VERIFY=1,SGC_POISON=1\n"));
    sw_opts_defaults(&b);
    sw_opts_parse_config(&b, text, "stored");
    char *again = sw_opts_to_config(&b);
    cr_assert_str_eq(text, again);
    sw_opts_parse_config(&b, "env = none\n", "test");
    cr_assert_eq(b.n_env, 0);
    free(text), free(again);
    sw_opts_free(&a);
    sw_opts_free(&b);
    cr_assert_eq(sw_run_nursery_bytes("256K"), 262144);
    cr_assert_eq(sw_run_nursery_bytes("256KiB"), 262144);
    cr_assert_eq(sw_run_nursery_bytes("4MB"), 4u << 20);
    cr_assert_eq(sw_run_nursery_bytes("4100"), 4096); /* rounded down to a multiple of 8 */
    cr_assert_eq(sw_run_nursery_bytes("abc"), 0);
}

Test(opts, bytes_parse_and_format) {
    uint64_t v;
    cr_assert_eq(sw_parse_bytes("32K", &v), 0);
    cr_assert_eq(v, 32768);
    cr_assert_eq(sw_parse_bytes("4m", &v), 0);
    cr_assert_eq(v, 4u << 20);
    cr_assert_eq(sw_parse_bytes("4MB", &v), -1);
    cr_assert_eq(sw_parse_bytes("-1", &v), -1);
    cr_assert_eq(sw_parse_bytes("99999999999G", &v), -1);
    char buf[32];
    cr_assert_str_eq(sw_format_bytes(32768, buf, sizeof buf), "32K");
    cr_assert_str_eq(sw_format_bytes(1u << 30, buf, sizeof buf), "1G");
    cr_assert_str_eq(sw_format_bytes(1536, buf, sizeof buf), "1536");
}

/* A record of every key of the table with a valid value of its type (as
 * the runtime writes one), into buf; returns buf. */
static char *full_record(char *buf, size_t size) {
    size_t n = (size_t)snprintf(buf, size, "sgc-stats 1\n");
#define FULL_U64 "0"
#define FULL_INT "-1"
#define FULL_DEC3 "2.000"
#define FULL_WORD NULL
#define FULL_KEY(key, type, value, what)                              \
    n += (size_t)snprintf(buf + n, size - n, "%s %s\n", #key,         \
                          FULL_##type                   ? FULL_##type \
                          : !strcmp(#key, "alloc_mode") ? "fixed"     \
                          : !strcmp(#key, "time_mode")  ? "signal"    \
                                                        : "wall");
    SGC_STATS_KEYS(FULL_KEY)
#undef FULL_KEY
    return buf;
}

/* Parses text with flags: -1 and the reason, or the number of keys. */
static int parse(const char *text, unsigned flags, char **why) {
    char **k, **v;
    int n = sw_run_parse_stats(text, flags, &k, &v, why);
    for (int i = 0; i < n; i++)
        free(k[i]), free(v[i]);
    free(k), free(v);
    return n;
}

/* Expects text to be refused with exactly the reason want. */
static void refused(const char *text, unsigned flags, const char *want) {
    char *why = NULL;
    cr_assert_eq(parse(text, flags, &why), -1, "accepted: %s", text);
    cr_assert_str_eq(why, want);
    free(why);
}

Test(statsrec, a_record_of_every_key_passes_and_keeps_its_lines) {
    char buf[8192], *why = NULL, **k, **v;
    int n = sw_run_parse_stats(full_record(buf, sizeof buf), SGC_STATSREC_ALL_KEYS, &k, &v, &why);
    cr_assert_null(why, "%s", why);
    int keys = 0;
#define COUNT(key, type, value, what) keys++;
    SGC_STATS_KEYS(COUNT)
#undef COUNT
    cr_assert_eq(n, keys);
    cr_assert_str_eq(k[0], "run_ns");
    cr_assert_str_eq(v[0], "0");
    for (int i = 0; i < n; i++)
        free(k[i]), free(v[i]);
    free(k), free(v);
    /* Keys the table does not have (another system's, a newer runtime's)
     * are kept with any value of the line's form. */
    cr_assert_eq(parse("sgc-stats 1\nrun_ns 5\nbytes_allocated 9\nalloc_period 0\nalloc_mode fixed\n"
                       "peer_system go\nalloc_samples_live 3\n",
                       SGC_STATSREC_REQUIRE_CORE, &why),
                 6);
}

Test(statsrec, each_broken_rule_is_named_with_its_line) {
    const char *core = "sgc-stats 1\nrun_ns 5\nbytes_allocated 4096\nalloc_period 1024\nalloc_mode fixed\n";
    char text[512];
    /* A junk suffix, a negative count, an impossible word, a decimal
     * without its three places, an INT beyond an int. */
    refused("sgc-stats 1\nrun_ns 5\nalloc_period 65536junk\n", 0,
            "line 3: alloc_period = 65536junk: a whole number from 0 to 18446744073709551615, decimal digits only "
            "(type U64)");
    refused(
        "sgc-stats 1\nalloc_samples -5\n", 0,
        "line 2: alloc_samples = -5: a whole number from 0 to 18446744073709551615, decimal digits only (type U64)");
    refused("sgc-stats 1\nrun_ns -1\n", 0,
            "line 2: run_ns = -1: a whole number from 0 to 18446744073709551615, decimal digits only (type U64)");
    refused("sgc-stats 1\nrun_ns 18446744073709551616\n", 0,
            "line 2: run_ns = 18446744073709551616: a whole number from 0 to 18446744073709551615, decimal digits "
            "only (type U64)");
    refused("sgc-stats 1\nalloc_mode Fixed\n", 0,
            "line 2: alloc_mode = Fixed: an allocation sampling mode of runtime/sgc_modes.h");
    refused("sgc-stats 1\ntime_clock monotonic\n", 0, "line 2: time_clock = monotonic: a clock of runtime/sgc_modes.h");
    refused("sgc-stats 1\ntime_mode timer\n", 0,
            "line 2: time_mode = timer: a time sampling mode of runtime/sgc_modes.h");
    refused("sgc-stats 1\nmajor_growth 2\n", 0,
            "line 2: major_growth = 2: a decimal of 0 or more with three places, such as 2.000 (type DEC3)");
    refused("sgc-stats 1\ntime_sampler_cpu 2147483648\n", 0,
            "line 2: time_sampler_cpu = 2147483648: a whole number within an int, decimal digits with an optional "
            "'-' (type INT)");
    /* The form: header, version, CRLF, blank lines, spaces, a cut-off
     * last line, a key twice. */
    refused("stats 1\n", 0, "line 1: 'stats 1': its first line is not 'sgc-stats <version>'");
    refused("sgc-stats 2\nrun_ns 5\n", 0, "line 1: version '2': this build reads version 1 only (docs/FORMATS.md)");
    refused("sgc-stats 1\r\nrun_ns 5\r\n", 0,
            "line 1: 'sgc-stats 1': it ends with a carriage return (CRLF line ends): a record's lines end with \\n "
            "alone");
    refused("sgc-stats 1\nrun_ns 5\r\n", 0,
            "line 2: 'run_ns 5': it ends with a carriage return (CRLF line ends): a record's lines end with \\n alone");
    refused("sgc-stats 1\nrun_ns 5\n\nseed 1\n", 0, "line 3: a blank line: a record has no blank lines");
    refused("sgc-stats 1\nrun_ns 5 6\n", 0,
            "line 2: 'run_ns 5 6': a line is 'key value': a key of a-z, 0-9 and _, one space, a value without spaces");
    refused("sgc-stats 1\nnovalue\n", 0,
            "line 2: 'novalue': a line is 'key value': a key of a-z, 0-9 and _, one space, a value without spaces");
    refused("sgc-stats 1\nRun_ns 5\n", 0,
            "line 2: 'Run_ns 5': a line is 'key value': a key of a-z, 0-9 and _, one space, a value without spaces");
    refused("sgc-stats 1\nrun_ns 5\nseed 1", 0,
            "line 3: 'seed 1': the file ends in the middle of a line: a record is written whole (truncated?)");
    refused("sgc-stats 1", 0, "line 1: the first line: the file ends without a line end: a record is written whole");
    refused("sgc-stats 1\nalloc_samples 12\nseed 1\nalloc_samples 13\n", 0,
            "line 4: key alloc_samples again: every key appears once (first on line 2)");
    /* The keys a record must have. */
    refused("sgc-stats 1\nrun_ns 5\nbytes_allocated 9\nalloc_period 0\n", SGC_STATSREC_REQUIRE_CORE,
            "no key alloc_mode: every stats record has run_ns, bytes_allocated, alloc_period and alloc_mode "
            "(docs/FORMATS.md)");
    refused(core, SGC_STATSREC_ALL_KEYS,
            "no key nursery_bytes: a record of this runtime has every key of runtime/sgc_stats_keys.h "
            "(docs/FORMATS.md)");
    char *why = NULL;
    cr_assert_eq(parse(core, SGC_STATSREC_REQUIRE_CORE, &why), 4);
    /* Values that cannot go together. */
    snprintf(text, sizeof text, "%salloc_samples 3\nalloc_sample_points 2\n", core);
    refused(text, 0,
            "line 6: 3 allocation samples from 2 sample points: an object is sampled only when it hits a sample point");
    snprintf(text, sizeof text, "%salloc_sample_points 4097\n", core);
    refused(text, 0,
            "line 6: 4097 sample points in 4096 bytes allocated: a sample point is at least one byte apart from the "
            "last");
    snprintf(text, sizeof text, "%snursery_bytes 4000\nlarge_bytes 95\n", core);
    refused(text, 0,
            "line 3: bytes_allocated 4096 with nursery_bytes 4000 and large_bytes 95: bytes_allocated is "
            "nursery_bytes + large_bytes (runtime/sgc_stats_keys.h)");
    refused("sgc-stats 1\ngc_ns 10\nminor_ns 3\nmajor_ns 8\n", 0,
            "line 2: gc_ns 10 with minor_ns 3 and major_ns 8: gc_ns is minor_ns + major_ns (runtime/sgc_stats_keys.h)");
    refused("sgc-stats 1\nobjects_allocated 1\nnursery_objects 18446744073709551615\nlarge_objects 2\n", 0,
            "line 2: objects_allocated 1 with nursery_objects 18446744073709551615 and large_objects 2: "
            "objects_allocated is nursery_objects + large_objects (runtime/sgc_stats_keys.h)");
}

Test(statsrec, a_record_is_bounded) {
    /* Longer than a record can be: refused before it is split. */
    size_t big = SGC_STATSREC_MAX_BYTES + 1;
    char *text = malloc(big + 1);
    memcpy(text, "sgc-stats 1\n", 12);
    for (size_t i = 12; i < big; i++)
        text[i] = (i % 10 == 9) ? '\n' : 'a';
    text[big] = '\0';
    char *why = NULL;
    cr_assert_eq(parse(text, 0, &why), -1);
    cr_assert_str_eq(why, "65537 bytes (more than 65536): a stats record is a few kilobytes; this is not one");
    free(why);
    free(text);
    /* More keys than a record has. */
    sw_buf b = {0};
    sw_buf_puts(&b, "sgc-stats 1\n");
    for (int i = 0; i <= SGC_STATSREC_MAX_KEYS; i++)
        sw_buf_printf(&b, "k%d 1\n", i);
    refused(b.data, 0, "line 1026: more than 1024 keys: a stats record has fewer keys");
    sw_buf_free(&b);
}

Test(run, checksum_lines) {
    char *c = sw_run_find_checksum("hello\nchecksum 12 34 \nchecksum 0xff\r\nbye\n");
    cr_assert_str_eq(c, "0xff");
    free(c);
    cr_assert_null(sw_run_find_checksum("checksum\n"));
}

Test(plan, depth_cells_for_deepstack) {
    static char *ws[] = {"gcbench", "deepstack"};
    sw_opts o;
    sw_opts_defaults(&o);
    cr_assert_eq(o.n_depths, 4);
    cr_assert_eq(o.depths[1], 16);
    cr_assert_eq(o.depths[3], 1024);
    sw_opts_parse_config(&o, "periods = 4M\ntime-hz = 1000\ndepths = 4, 16\ndepth-period = 128K\nbackends = native\n",
                         "test");
    sw_cell *cells;
    int n = sw_plan_cells(&o, ws, 2, &cells);
    const char *want[] = {"gcbench/baseline",       "gcbench/alloc-fixed-4M",         "gcbench/time-1000Hz",
                          "deepstack/baseline",     "deepstack/alloc-fixed-4M",       "deepstack/time-1000Hz",
                          "deepstack/d4/baseline",  "deepstack/d4/alloc-fixed-128K",  "deepstack/d4/time-2000Hz",
                          "deepstack/d16/baseline", "deepstack/d16/alloc-fixed-128K", "deepstack/d16/time-2000Hz"};
    cr_assert_eq(n, 12);
    for (int i = 0; i < n; i++) {
        cr_assert_str_eq(cells[i].label, want[i]);
        cr_assert_eq(cells[i].id, i + 1);
        cr_assert_str_eq(cells[i].args, i < 6 ? "" : i < 9 ? "--depth 4" : "--depth 16");
        cr_assert_eq(cells[i].depth, i < 6 ? 0u : i < 9 ? 4u : 16u);
    }
    cr_assert_str_eq(cells[7].kind, "alloc");
    cr_assert_eq(cells[7].alloc_period, 128u << 10);
    cr_assert_str_eq(cells[8].time_clock, "wall");
    cr_assert_eq(cells[8].time_hz, 2000);
    sw_plan_free_cells(cells, n);
    /* Without deepstack in the plan, no depth cells. */
    n = sw_plan_cells(&o, ws, 1, &cells);
    cr_assert_eq(n, 3);
    sw_plan_free_cells(cells, n);
    /* The quick plan has none; an explicit list still counts; the round trip keeps them. */
    sw_opts_parse_config(&o, "quick\n", "test");
    cr_assert_eq(o.n_depths, 0);
    sw_opts_parse_config(&o, "depths = 1 1024\ndepth-hz = 500\n", "test");
    char *text = sw_opts_to_config(&o);
    sw_opts b;
    sw_opts_defaults(&b);
    sw_opts_parse_config(&b, text, "stored");
    cr_assert_eq(b.n_depths, 2);
    cr_assert_eq(b.depths[1], 1024);
    cr_assert_eq(b.depth_hz, 500);
    cr_assert_eq(b.depth_period, 128u << 10);
    free(text);
    sw_opts_free(&b);
    sw_opts_free(&o);
}

/* The blocked design: checks every invariant of sw_plan.h on a plan with two
 * workloads and deepstack depth cells (three baselines), for an even and an
 * odd number of runs. */
static void check_blocked(int warmup, int runs, uint64_t seed) {
    static char *ws[] = {"gcbench", "deepstack"};
    sw_opts o;
    sw_opts_defaults(&o);
    sw_opts_parse_config(&o, "periods = 32K,4M\ntime-hz = 1000\ndepths = 16\nbackends = native\n", "test");
    sw_cell *cells;
    int n = sw_plan_cells(&o, ws, 2, &cells); /* 4 + 4 + 3 cells, baselines 0, 4, 8 */
    cr_assert_eq(n, 11);
    sw_slot *s;
    int total = sw_plan_blocked(cells, n, warmup, runs, seed, &s);
    cr_assert_eq(total, (warmup + runs) * 2 * n);
    int *first = calloc((size_t)n, sizeof *first),
        *per_round = calloc((size_t)n * (size_t)(warmup + runs), sizeof *per_round);
    for (int i = 0; i < total; i += 2) {
        const sw_slot *a = &s[i], *b = &s[i + 1];
        cr_assert_eq(a->seq, i + 1);
        cr_assert_eq(b->seq, i + 2);
        /* Blocks numbered 1, 2, ... in order, two adjacent runs, positions 1 then 2, one round. */
        cr_assert_eq(a->block, i / 2 + 1);
        cr_assert_eq(b->block, a->block);
        cr_assert_eq(a->pos, 1);
        cr_assert_eq(b->pos, 2);
        cr_assert_eq(a->round, b->round);
        cr_assert_eq(a->role + b->role, 1);
        const sw_slot *test = a->role ? a : b, *base = a->role ? b : a;
        /* The role-0 run is the baseline of the role-1 run's cell (itself for A/A). */
        cr_assert_eq(base->cell, sw_plan_baseline_of(cells, n, test->cell));
        cr_assert_str_eq(cells[base->cell].kind, "baseline");
        cr_assert_str_eq(cells[base->cell].workload, cells[test->cell].workload);
        cr_assert_eq(cells[base->cell].depth, cells[test->cell].depth);
        per_round[test->cell * (warmup + runs) + a->pass]++;
        if (a->round >= 1 && a->role == 1)
            first[test->cell]++;
    }
    /* One block per cell per round (baselines: their A/A block). */
    for (int k = 0; k < n * (warmup + runs); k++)
        cr_assert_eq(per_round[k], 1);
    /* Balanced: role 1 first in floor(runs/2) or ceil(runs/2) measured rounds. */
    for (int k = 0; k < n; k++)
        cr_assert(first[k] == runs / 2 || first[k] == (runs + 1) / 2, "cell %d first %d of %d", k, first[k], runs);
    /* Deepstack's depth cells pair with the depth baseline, not deepstack's own. */
    cr_assert_eq(sw_plan_baseline_of(cells, n, 9), 8);
    cr_assert_eq(sw_plan_baseline_of(cells, n, 5), 4);
    free(first);
    free(per_round);
    free(s);
    sw_plan_free_cells(cells, n);
    sw_opts_free(&o);
}

Test(blocked, every_cell_next_to_its_baseline_orders_balanced) {
    check_blocked(1, 30, 1);
    check_blocked(2, 7, 99);
    check_blocked(0, 1, 5);
}

Test(blocked, shuffled_and_reproducible) {
    sw_opts o;
    sw_opts_defaults(&o);
    sw_opts_parse_config(&o, "backends = native\n", "test");
    sw_cell *cells;
    int n = sw_plan_cells(&o, two, 2, &cells);
    sw_slot *a, *b, *c;
    int total = sw_plan_blocked(cells, n, 1, 30, 7, &a);
    sw_plan_blocked(cells, n, 1, 30, 7, &b);
    sw_plan_blocked(cells, n, 1, 30, 8, &c);
    int same = 1, diff_seed = 0, rounds_differ = 0;
    for (int i = 0; i < total; i++) {
        same &= a[i].cell == b[i].cell && a[i].role == b[i].role;
        diff_seed += a[i].cell != c[i].cell;
    }
    /* The order of the blocks differs between the first two measured rounds. */
    for (int i = 0; i < 2 * n; i++)
        rounds_differ += a[2 * n + i].cell != a[4 * n + i].cell;
    cr_assert(same);
    cr_assert_gt(diff_seed, 0);
    cr_assert_gt(rounds_differ, 0);
    free(a), free(b), free(c);
    sw_plan_free_cells(cells, n);
    sw_opts_free(&o);
}

Test(blocked, a_cell_without_baseline_is_refused, .exit_code = 2) {
    sw_cell cells[2] = {
        {.id = 1, .workload = "w", .kind = "baseline", .label = "w/baseline", .args = ""},
        {.id = 2, .workload = "v", .kind = "alloc", .label = "v/alloc-fixed-4M", .args = ""},
    };
    sw_slot *s;
    sw_plan_blocked(cells, 2, 0, 2, 1, &s);
}

Test(opts, design_option) {
    sw_opts o;
    sw_opts_defaults(&o);
    cr_assert_eq(o.design, SW_DESIGN_BLOCKED);
    sw_opts_parse_config(&o, "design = independent\n", "test");
    cr_assert_eq(o.design, SW_DESIGN_INDEPENDENT);
    char *text = sw_opts_to_config(&o);
    cr_assert_not_null(strstr(text, "design = independent\n"));
    sw_opts o2;
    sw_opts_defaults(&o2);
    sw_opts_parse_config(&o2, text, "round trip");
    cr_assert_eq(o2.design, SW_DESIGN_INDEPENDENT);
    free(text);
    sw_opts_free(&o);
    sw_opts_free(&o2);
}

Test(opts, design_unknown_exits_2, .exit_code = 2) {
    sw_opts o;
    sw_opts_defaults(&o);
    sw_opts_parse_config(&o, "design = duet\n", "test");
}

Test(noise, proc_stat_deltas) {
    sw_noise_snap a = {0}, b = {0};
    a.loadavg1 = 0.5;
    sw_noise_parse_stat("cpu  10 0 0 0 0 0 0 0 0 0\n"
                        "cpu0 100 1 20 500 3 1 2 7 0 0\n"
                        "cpu1 200 0 30 400 0 0 0 9 0 0\n"
                        "intr 1 2 3\n",
                        &a);
    sw_noise_parse_stat("cpu  10 0 0 0 0 0 0 0 0 0\n"
                        "cpu0 130 1 25 510 3 2 2 8 0 0\n"
                        "cpu1 250 0 40 400 0 0 0 12 0 0\n",
                        &b);
    cr_assert_eq(a.ncpus, 2);
    sw_noise n;
    sw_noise_between(&a, &b, 1, &n);
    long tick = sysconf(_SC_CLK_TCK);
    /* cpu1 steal 9 -> 12 (3 ticks); cpu0 busy 100+1+20+1+2 -> 130+1+25+2+2 (36 ticks). */
    cr_assert_eq(n.steal_ns, 3 * (int64_t)(1000000000 / tick));
    cr_assert_eq(n.other_busy_ns, 36 * (int64_t)(1000000000 / tick));
    cr_assert_eq(n.loadavg1, 0.5);
    /* Mismatched snapshots or an unknown CPU: -1, not 0. */
    sw_noise_between(&a, &b, 7, &n);
    cr_assert_eq(n.steal_ns, -1);
    b.ncpus = 1;
    sw_noise_between(&a, &b, 1, &n);
    cr_assert_eq(n.steal_ns, -1);
    cr_assert_eq(n.other_busy_ns, -1);
}

/* SHA-256 against FIPS 180-4's examples and values from Python's hashlib,
 * around the 55/56/64-byte padding boundaries; a file the same way. */
Test(hash, sha256_known_values) {
    static const struct {
        const char *text;
        size_t reps;
        const char *hex;
    } v[] = {
        {"", 0, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
        {"abc", 1, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
        {"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", 1,
         "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"},
        {"a", 55, "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318"},
        {"a", 56, "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a"},
        {"a", 64, "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb"},
        {"a", 1000000, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"},
    };
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        size_t len = strlen(v[i].text) * v[i].reps;
        char *buf = malloc(len + 1), hex[65];
        for (size_t k = 0; k < v[i].reps; k++)
            memcpy(buf + k * strlen(v[i].text), v[i].text, strlen(v[i].text));
        sw_sha256(buf, len, hex);
        cr_assert_str_eq(hex, v[i].hex, "vector %zu", i);
        char path[] = "/tmp/sw-hash-XXXXXX";
        int fd = mkstemp(path);
        cr_assert_geq(fd, 0);
        cr_assert_eq(write(fd, buf, len), (ssize_t)len);
        close(fd);
        cr_assert_eq(sw_sha256_file(path, hex), 0);
        cr_assert_str_eq(hex, v[i].hex, "file vector %zu", i);
        unlink(path);
        free(buf);
    }
    char hex[65];
    cr_assert_eq(sw_sha256_file("/nonexistent/x", hex), -1);
}

Test(plan, sim_backend_settings) {
    static char *ws[] = {"gcbench", "deepstack"};
    sw_opts o;
    sw_opts_defaults(&o);
    cr_assert(o.backend_native && o.backend_sim);
    cr_assert_eq(o.sim_runs, 2);
    cr_assert_str_eq(o.valgrind, "valgrind");
    sw_opts_parse_config(&o,
                         "periods = 4M\ntime-hz = 1000\ndepths = 4\nbackends = sim\nsim-runs = 3\n"
                         "sim-target = 1.5\nsim-jobs = 4\nsim-size = gcbench=7\nvalgrind = /opt/vg\n",
                         "test");
    sw_cell *cells;
    int n = sw_plan_cells(&o, ws, 2, &cells);
    /* Simulated cells only, and no depth cells among them. */
    const char *want[] = {"gcbench/sim/baseline",   "gcbench/sim/alloc-fixed-4M",   "gcbench/sim/time-1000Hz",
                          "deepstack/sim/baseline", "deepstack/sim/alloc-fixed-4M", "deepstack/sim/time-1000Hz"};
    cr_assert_eq(n, 6);
    for (int i = 0; i < n; i++) {
        cr_assert_str_eq(cells[i].label, want[i]);
        cr_assert_eq(cells[i].sim, 1);
        cr_assert_eq(cells[i].depth, 0);
    }
    sw_slot *slots;
    cr_assert_eq(sw_plan_schedule_all(&o, cells, n, &slots), 18);
    cr_assert_eq(slots[17].round, 3);
    cr_assert_eq(slots[17].cell, 5);
    free(slots);
    sw_plan_free_cells(cells, n);
    cr_assert_eq(sw_opts_fixed_sim_size(&o, "gcbench"), 7);
    cr_assert_eq(sw_opts_fixed_sim_size(&o, "deepstack"), 0);
    cr_assert_eq(sw_opts_fixed_size(&o, "gcbench"), 0);
    /* The stored config gives the same settings back. */
    char *text = sw_opts_to_config(&o);
    sw_opts b;
    sw_opts_defaults(&b);
    sw_opts_parse_config(&b, text, "stored");
    cr_assert(!b.backend_native && b.backend_sim);
    cr_assert_eq(b.sim_runs, 3);
    cr_assert_eq(b.sim_jobs, 4);
    cr_assert_float_eq(b.sim_target, 1.5, 1e-12);
    cr_assert_eq(sw_opts_fixed_sim_size(&b, "gcbench"), 7);
    cr_assert_str_eq(b.valgrind, "/opt/vg");
    free(text);
    sw_opts_free(&b);
    sw_opts_free(&o);
}

/* The alternation's names come from the runtime's tables (runtime/sgc_alt.h). */
#include "../../harness/sw_alt.h"

Test(alt, mode_per_cell_and_series_ends) {
    sw_cell c;
    memset(&c, 0, sizeof c);
    cr_assert_str_eq(sw_alt_mode(&c), "none");
    c.alloc_period = 32768;
    cr_assert_str_eq(sw_alt_mode(&c), "alloc");
    c.time_hz = 1000;
    cr_assert_str_eq(sw_alt_mode(&c), "both");
    c.alloc_period = 0;
    cr_assert_str_eq(sw_alt_mode(&c), "time");

    const char *hdr = "sgc-segments 1\nalternate alloc\ncolumns index block pos kind on end cpu_ns wall_ns bytes "
                      "iterations alloc_samples alloc_points sampled_bytes time_samples minor major gc_ns "
                      "major_cpu_ns\n";
    const char *ends[] = {"gc", "iter", "exit"};
    char text[1024];
    for (int e = 0; e < 3; e++) {
        snprintf(text, sizeof text, "%sseg 0 0 3 A 0 %s 1 2 3 4 5 6 7 8 9 10 11 12\nsegments 1\n", hdr, ends[e]);
        sw_segment *segs = NULL;
        const char *why = NULL;
        cr_assert_eq(sw_alt_parse(text, &segs, &why), 1, "end %s: %s", ends[e], why ? why : "");
        cr_assert_str_eq(segs[0].end, ends[e]);
        cr_assert_eq(segs[0].bytes, 3);
        cr_assert_eq(segs[0].major_cpu_ns, 12);
        free(segs);
    }
    snprintf(text, sizeof text, "%sseg 0 0 3 A 0 stop 1 2 3 4 5 6 7 8 9 10 11 12\nsegments 1\n", hdr);
    sw_segment *segs = NULL;
    const char *why = NULL;
    cr_assert_eq(sw_alt_parse(text, &segs, &why), -1);
    cr_assert_str_eq(why, "a segment's end is not one of: gc iter exit");
    free(segs);
    /* No line, nor part of one, is skipped unsaid. */
    static const struct {
        const char *middle, *tail, *why;
    } bad[] = {
        {"", "segments 1", "its last line has no line end (cut off?)"},
        {"\n", "segments 1\n", "a line is not '<name> <values>' (blank, CRLF line ends, or other text)"},
        {"pattern ABBA\r\n", "segments 1\n", "a line is not '<name> <values>' (blank, CRLF line ends, or other text)"},
        {"!junk\n", "segments 1\n", "a line is not '<name> <values>' (blank, CRLF line ends, or other text)"},
        {"pattern  ABBA\n", "segments 1\n", "a line is not '<name> <values>' (blank, CRLF line ends, or other text)"},
        {"columns index\n", "segments 1\n", "it has two columns lines"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        snprintf(text, sizeof text, "%s%sseg 0 0 3 A 0 gc 1 2 3 4 5 6 7 8 9 10 11 12\n%s", hdr, bad[i].middle,
                 bad[i].tail);
        why = NULL;
        cr_assert_eq(sw_alt_parse(text, &segs, &why), -1, "%s", bad[i].middle);
        cr_assert_str_eq(why, bad[i].why);
    }
    char dup[512], text2[1024];
    snprintf(dup, sizeof dup, "%s", hdr);
    *strstr(dup, " major_cpu_ns") = '\0';
    snprintf(text2, sizeof text2, "%s bytes major_cpu_ns\nseg 0\nsegments 0\n", dup);
    cr_assert_eq(sw_alt_parse(text2, &segs, &why), -1);
    cr_assert_str_eq(why, "its columns line names a field twice");
}

Test(util, byte_counts_up_to_256T) {
    uint64_t v;
    cr_assert_eq(sw_parse_bytes("256T", &v), 0);
    cr_assert_eq(v, (uint64_t)1 << 48);
    cr_assert_eq(sw_parse_bytes("3t", &v), 0);
    cr_assert_eq(v, (uint64_t)3 << 40);
    cr_assert_eq(sw_parse_bytes("16777216T", &v), -1); /* 2^64: overflows */
    char buf[32];
    cr_assert_str_eq(sw_format_bytes((uint64_t)1 << 48, buf, sizeof buf), "256T");
    cr_assert_str_eq(sw_format_bytes((uint64_t)3 << 30, buf, sizeof buf), "3G");
}

/* --time-modes: every time-sampling cell once per mode, modes outermost,
 * thread's labels suffixed, signal's today's; the simulated part signal's
 * alone; the depth cells' time cells per mode too. */
Test(plan, time_modes_axis) {
    sw_opts o;
    sw_opts_defaults(&o);
    sw_opts_parse_config(&o,
                         "periods = 1M\ntime-hz = 100, 1000\ncombined = 4M@1000\ntime-modes = thread, signal\n"
                         "depths = 16\n",
                         "test");
    char *w[] = {"deepstack"};
    sw_cell *cells;
    int n = sw_plan_cells(&o, w, 1, &cells);
    static const char *const want[][2] = {
        {"deepstack/baseline", ""},
        {"deepstack/alloc-fixed-1M", ""},
        {"deepstack/time-100Hz", "signal"},
        {"deepstack/time-1000Hz", "signal"},
        {"deepstack/time-100Hz-thread", "thread"},
        {"deepstack/time-1000Hz-thread", "thread"},
        {"deepstack/alloc-fixed-4M+time-1000Hz", "signal"},
        {"deepstack/alloc-fixed-4M+time-1000Hz-thread", "thread"},
        {"deepstack/d16/baseline", ""},
        {"deepstack/d16/alloc-fixed-64K", ""},
        {"deepstack/d16/time-2000Hz", "signal"},
        {"deepstack/d16/time-2000Hz-thread", "thread"},
        {"deepstack/sim/baseline", ""},
        {"deepstack/sim/alloc-fixed-1M", ""},
        {"deepstack/sim/time-100Hz", "signal"},
        {"deepstack/sim/time-1000Hz", "signal"},
        {"deepstack/sim/alloc-fixed-4M+time-1000Hz", "signal"},
    };
    cr_assert_eq(n, (int)(sizeof want / sizeof *want));
    for (int i = 0; i < n; i++) {
        cr_expect_str_eq(cells[i].label, want[i][0], "cell %d", i + 1);
        cr_expect_str_eq(cells[i].time_mode, want[i][1], "cell %d (%s)", i + 1, cells[i].label);
    }
    sw_plan_free_cells(cells, n);
    /* Stored and read back: the same modes. */
    char *text = sw_opts_to_config(&o);
    cr_assert(strstr(text, "\ntime-modes = signal,thread\n"), "%s", text);
    sw_opts b;
    sw_opts_defaults(&b);
    sw_opts_parse_config(&b, text, "stored");
    cr_assert_eq(b.time_modes, 3u);
    free(text);
    sw_opts_free(&b);
    sw_opts_free(&o);
}

/* The older form (a config stored before the setting, or --env
 * SGC_TIME_MODE): one mode, today's labels, nothing written. */
Test(plan, time_modes_older_form) {
    sw_opts o;
    sw_opts_defaults(&o);
    sw_opts_parse_config(&o, "periods = none\ntime-hz = 1000\nbackends = native\nenv = SGC_TIME_MODE=thread\n", "test");
    cr_assert_eq(o.time_modes, 0u);
    cr_assert(sw_opts_time_modes_legacy(&o));
    cr_assert_eq(sw_opts_time_modes(&o), 1u << SGC_TIME_THREAD);
    sw_cell *cells;
    int n = sw_plan_cells(&o, two, 1, &cells);
    cr_assert_eq(n, 2);
    cr_assert_str_eq(cells[1].label, "gcbench/time-1000Hz");
    cr_assert_str_eq(cells[1].time_mode, "thread");
    sw_plan_free_cells(cells, n);
    char *text = sw_opts_to_config(&o);
    cr_assert_null(strstr(text, "time-modes"));
    free(text);
    sw_opts_free(&o);
    sw_opts_defaults(&o);
    cr_assert_eq(sw_opts_time_modes(&o), 1u << SGC_TIME_SIGNAL); /* no setting, no --env: signal */
    sw_opts_free(&o);
}

/* The default rule of a fresh sweep: thread on two or more CPUs, signal on
 * one and with the cpu clock; given modes and --env's stay. */
Test(opts, time_modes_default_rule) {
    static const struct {
        const char *config;
        int cpus;
        unsigned modes;
        const char *why;
    } cases[] = {
        {"", 2, 1u << SGC_TIME_THREAD,
         "default: thread, since the sweep may use 2 CPUs (its CPU affinity, sched_getaffinity): the sampler thread "
         "runs on another CPU than the run's"},
        {"", 1, 1u << SGC_TIME_SIGNAL,
         "default: signal, since the sweep may use 1 CPU (its CPU affinity, sched_getaffinity): a sampler thread "
         "would share the run's CPU"},
        {"time-clock = wall,cpu\n", 8, 1u << SGC_TIME_SIGNAL,
         "default: signal, since --time-clock has cpu and the sampler thread samples the wall clock only"},
        {"time-modes = signal\n", 2, 1u << SGC_TIME_SIGNAL, "given (--time-modes)"},
        {"env = SGC_TIME_MODE=signal\n", 2, 0,
         "given (--env SGC_TIME_MODE=signal: the older form, one mode for the whole sweep)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        sw_opts o;
        sw_opts_defaults(&o);
        sw_opts_parse_config(&o, cases[i].config, "test");
        char *why = NULL;
        sw_opts_default_time_modes(&o, cases[i].cpus, &why);
        cr_expect_eq(o.time_modes, cases[i].modes, "case %zu", i);
        cr_expect_str_eq(why, cases[i].why, "case %zu", i);
        free(why);
        sw_opts_free(&o);
    }
    char *list = sw_opts_time_mode_list(3);
    cr_assert_str_eq(list, "signal,thread");
    free(list);
}
