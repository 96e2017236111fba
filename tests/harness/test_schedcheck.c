/* test_schedcheck.c - the schedule's invariants checked by SW_ASSERT
 * (harness/sw_schedcheck.h), compiled with SGC_CHECKS=1: every design's
 * schedule as sw_plan_schedule_all builds it passes (with replicates, the
 * simulated part, an odd number of runs); each kind of broken schedule
 * aborts with its reason. */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "sw_plan.h"
#include "sw_schedcheck.h"

static char *two[] = {"gcbench", "deepstack"};

/* The plan of config (after the quick plan's defaults) and its schedule. */
static int plan(const char *config, sw_opts *o, sw_cell **cells, sw_slot **slots, int *n_slots) {
    sw_opts_defaults(o);
    sw_opts_parse_config(o, config, "test");
    int n = sw_plan_cells(o, two, 2, cells);
    *n_slots = sw_plan_schedule_all(o, *cells, n, slots);
    return n;
}

Test(schedcheck, every_design_passes) {
    const char *configs[] = {
        "quick\n",
        "quick\nruns = 7\nwarmup = 2\n",
        "quick\nreplicates = 3\n",
        "quick\ndesign = independent\n",
        "quick\ndesign = inprocess\nreplicates = 2\n",
        "runs = 4\nbackends = native\n",
    };
    for (size_t i = 0; i < sizeof configs / sizeof *configs; i++) {
        sw_opts o;
        sw_cell *cells;
        sw_slot *slots;
        int n_slots, n = plan(configs[i], &o, &cells, &slots, &n_slots);
        cr_assert_gt(n_slots, 0);
        sw_schedcheck(&o, cells, n, slots, n_slots);
        free(slots);
        sw_plan_free_cells(cells, n);
        sw_opts_free(&o);
    }
}

/* Breaks the quick blocked plan's schedule with f, then checks it. */
static void broken(void (*f)(sw_slot *slots, int n_slots, const sw_cell *cells)) {
    sw_opts o;
    sw_cell *cells;
    sw_slot *slots;
    int n_slots, n = plan("quick\n", &o, &cells, &slots, &n_slots);
    f(slots, n_slots, cells);
    sw_schedcheck(&o, cells, n, slots, n_slots);
}

static void gap(sw_slot *s, int n, const sw_cell *c) { s[5].seq = 7; }
static void roles(sw_slot *s, int n, const sw_cell *c) { s[0].role = s[1].role = 1; }
/* A block whose role-0 run is another workload's baseline. */
static void wrong_baseline(sw_slot *s, int n, const sw_cell *c) {
    for (int i = 0; i < n; i += 2) {
        sw_slot *base = s[i].role ? &s[i + 1] : &s[i];
        if (!strcmp(c[base->cell].workload, "gcbench")) {
            base->cell = 5; /* deepstack's baseline (cells 0-4 gcbench's, 5-9 deepstack's) */
            return;
        }
    }
}
/* Two blocks' first runs swapped: each block's two runs no longer adjacent. */
static void split_block(sw_slot *s, int n, const sw_cell *c) {
    sw_slot t = s[0];
    s[0] = s[2], s[2] = t;
    s[0].seq = 1, s[2].seq = 3;
}
/* A round that runs one block twice and another not at all. */
static void twice(sw_slot *s, int n, const sw_cell *c) {
    int seq0 = s[2].seq, seq1 = s[3].seq, block0 = s[2].block;
    s[2] = s[0], s[3] = s[1];
    s[2].seq = seq0, s[3].seq = seq1, s[2].block = s[3].block = block0;
}
/* Every measured block runs role 1 first. */
static void unbalanced(sw_slot *s, int n, const sw_cell *c) {
    for (int i = 0; i + 1 < n && !c[s[i].cell].sim; i += 2)
        if (s[i].round >= 1 && s[i].role == 0) {
            sw_slot t = s[i];
            s[i] = s[i + 1], s[i + 1] = t;
            s[i].seq = i + 1, s[i + 1].seq = i + 2, s[i].pos = 1, s[i + 1].pos = 2;
        }
}
static void sim_first(sw_slot *s, int n, const sw_cell *c) {
    sw_slot t = s[0];
    s[0] = s[n - 1], s[n - 1] = t;
    s[0].seq = 1, s[n - 1].seq = n;
}

Test(schedcheck, seq_gap_aborts, .signal = SIGABRT) { broken(gap); }
Test(schedcheck, two_role_1_runs_abort, .signal = SIGABRT) { broken(roles); }
Test(schedcheck, another_baseline_aborts, .signal = SIGABRT) { broken(wrong_baseline); }
Test(schedcheck, split_block_aborts, .signal = SIGABRT) { broken(split_block); }
Test(schedcheck, block_twice_in_a_round_aborts, .signal = SIGABRT) { broken(twice); }
Test(schedcheck, unbalanced_order_aborts, .signal = SIGABRT) { broken(unbalanced); }
Test(schedcheck, simulated_run_first_aborts, .signal = SIGABRT) { broken(sim_first); }
