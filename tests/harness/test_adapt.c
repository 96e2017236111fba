/* test_adapt.c - the adaptive rounds' decision (harness/sw_adapt.h) on a
 * sweep database of fixed wall times: the two-stage rule takes the blocks
 * its planned rounds ask for, exactly, whatever the later blocks say; a
 * sweep without meta adaptive_rule is continued by the sequential rule. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../harness/sw_adapt.h"
#include "../../harness/sw_db.h"
#include "../../harness/sw_plan.h"
#include "st_paired.h"
#include "st_walsh.h"

/* The planned rounds' log-ratios (wall of the role-1 run / its baseline's):
 * the allocation cell's spread is wider than +-2%, the A/A blocks' is not. */
#define PLANNED 8
static const double d_alloc[PLANNED] = {0.02, 0.09, -0.03, 0.06, 0.11, -0.01, 0.04, 0.08};
static const double d_aa[PLANNED] = {0.001, -0.0005, 0.0002, 0.0008, -0.001, 0.0004, 0.0, -0.0002};

static sw_cell cells[2] = {
    {.id = 1,
     .workload = "w",
     .kind = "baseline",
     .alloc_mode = "",
     .time_clock = "",
     .label = "w/baseline",
     .args = ""},
    {.id = 2,
     .workload = "w",
     .kind = "alloc",
     .alloc_period = 1 << 20,
     .alloc_mode = "fixed",
     .time_clock = "",
     .label = "w/alloc-fixed-1M",
     .args = ""},
};

/* A log-ratio as the harness reads it back: from the stored walls. */
static uint64_t wall_of(double d) { return (uint64_t)llround(1e8 * exp(d)); }
static double stored(double d) { return log((double)(int64_t)wall_of(d) / (double)(int64_t)100000000); }

/* Stores the runs of slots, ok, the role-1 run's wall exp(d) times its
 * baseline's 1e8 ns; d from the planned arrays in the planned rounds, else
 * later (the same for every adaptive block). */
static void store_runs(sw_db *db, const sw_slot *s, int n, double later) {
    for (int i = 0; i < n; i++) {
        double d = 0;
        if (s[i].role == 1)
            d = s[i].round <= PLANNED ? (s[i].cell == 1 ? d_alloc : d_aa)[s[i].round - 1] : later;
        uint64_t wall = wall_of(d);
        sw_run_row r = {.cell_id = s[i].cell + 1,
                        .round = s[i].round,
                        .seq = s[i].seq,
                        .status = "ok",
                        .has_times = 1,
                        .wall_ns = wall,
                        .user_ns = wall,
                        .exit_code = 0,
                        .term_signal = -1,
                        .profile_bytes = -1,
                        .block = s[i].block,
                        .block_pos = s[i].pos,
                        .block_role = s[i].role,
                        .replicate = -1};
        sw_db_store_run(db, &r);
    }
}

static void planned_sweep(sw_db *db, const char *rule) {
    sw_db_create_memory(db);
    if (rule)
        sw_db_meta_set(db, "adaptive_rule", rule);
    sw_slot *s;
    int n = sw_plan_blocked(cells, 2, 0, PLANNED, 11, &s);
    cr_assert_eq(n, PLANNED * 2 * 2);
    sw_db_store_plan(db, cells, 2, s, n);
    store_runs(db, s, n, 0);
    free(s);
}

/* Runs adaptive rounds (their role-1 runs at log-ratio later) until the rule
 * stops, at most max_runs blocks a cell; returns the rounds added and fills
 * blocks[cell] with the adaptive blocks each cell got. */
static int run_adaptive(sw_db *db, int max_runs, double later, int *blocks, int *last_active) {
    int rounds = 0;
    blocks[0] = blocks[1] = 0;
    for (;;) {
        sw_slot *s;
        int active;
        int n = sw_adapt_next_round(db, cells, 2, 0.02, PLANNED, max_runs, 5, &s, &active);
        *last_active = active;
        if (!n)
            break;
        rounds++;
        for (int i = 0; i < n; i++) {
            cr_assert_eq(s[i].round, PLANNED + rounds, "adaptive round numbers continue the schedule");
            if (s[i].role == 1)
                blocks[s[i].cell]++;
        }
        store_runs(db, s, n, later);
        free(s);
    }
    return rounds;
}

/* The blocks the two-stage rule asks for from the planned rounds of d:
 * the exact 95% interval of the Hodges-Lehmann estimate (n >= 6), its
 * half-width as a ratio h0, N = ceil(n (h0 / H)^2). */
static int two_stage_blocks(const double *d) {
    st_interval iv;
    st_walsh_interval(d, PLANNED, 0.95, &iv);
    cr_assert_eq(iv.method, ST_CI_EXACT);
    double h0 = (exp(iv.hi) - exp(iv.lo)) / 2;
    return h0 <= 0.02 ? PLANNED : (int)ceil(PLANNED * (h0 / 0.02) * (h0 / 0.02) * (1 - 1e-12));
}

Test(adapt, two_stage_rule_takes_the_blocks_its_planned_rounds_ask_for) {
    int want = two_stage_blocks(d_alloc);
    /* The 4th smallest and largest of d_alloc's 36 Walsh averages (n = 8 at 95%: P(T <= 3) = 0.020 for the
     * signed-rank statistic), -0.005 and 0.09: h0 = (e^0.09 - e^-0.005) / 2 = 0.04958, N = 50. */
    cr_assert_eq(want, 50, "N = ceil(8 (h0 / 0.02)^2) = %d", want);
    cr_assert_eq(two_stage_blocks(d_aa), PLANNED, "the A/A blocks are within +-2%% already");
    /* Adaptive blocks far off the pilot (log-ratio 0.3, or all equal to its estimate) do not move N. */
    const double later[2] = {0.3, 0.04};
    for (int k = 0; k < 2; k++) {
        sw_db db;
        planned_sweep(&db, SW_ADAPT_RULE);
        int blocks[2], active;
        int rounds = run_adaptive(&db, 200, later[k], blocks, &active);
        cr_assert_eq(rounds, want - PLANNED, "later blocks at %g: %d rounds", later[k], rounds);
        cr_assert_eq(blocks[1], want - PLANNED);
        cr_assert_eq(blocks[0], 0, "the baseline's A/A blocks were not extended");
        cr_assert_eq(active, 0);
        sw_db_close(&db);
    }
    /* --max-runs below N: the cell stops there and is still counted short. */
    sw_db db;
    planned_sweep(&db, SW_ADAPT_RULE);
    int blocks[2], active;
    cr_assert_eq(run_adaptive(&db, 20, 0.04, blocks, &active), 20 - PLANNED);
    cr_assert_eq(blocks[1], 20 - PLANNED);
    cr_assert_eq(active, 1);
    sw_db_close(&db);
}

Test(adapt, sweeps_without_the_rule_continue_by_the_sequential_rule) {
    /* The sequential rule judges the interval of all blocks: blocks at the
     * estimate narrow it, so it stops well before the two-stage rule's 50. */
    sw_db db;
    planned_sweep(&db, NULL);
    int blocks[2], active;
    int rounds = run_adaptive(&db, 60, 0.04, blocks, &active);
    cr_assert(rounds > 0 && rounds < 50 - PLANNED, "sequential rounds %d", rounds);
    /* Its stop: the interval of all the cell's blocks within +-2%, not before. */
    double d[64];
    for (int i = 0; i < PLANNED + rounds; i++)
        d[i] = stored(i < PLANNED ? d_alloc[i] : 0.04);
    st_adaptive rule = {0.02, PLANNED, SIZE_MAX};
    st_boot_opts bo = {2000, 0.95, 5 ^ 2};
    cr_assert_eq(st_adaptive_more(d, (size_t)(PLANNED + rounds), &rule, &bo, NULL), 0);
    cr_assert_eq(st_adaptive_more(d, (size_t)(PLANNED + rounds - 1), &rule, &bo, NULL), 1);
    cr_assert_eq(blocks[0], 0);
    sw_db_close(&db);
    planned_sweep(&db, NULL);
    /* --max-runs before that stop: the cell stops there, still counted wide. */
    cr_assert_eq(run_adaptive(&db, PLANNED + rounds - 1, 0.04, blocks, &active), rounds - 1);
    cr_assert_eq(active, 1);
    sw_db_close(&db);
}
