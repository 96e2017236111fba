/* sw_plan.c - cells of the sweep and their shuffled schedule. */
#include "sw_plan.h"
#include "sw_cmd.h"
#include "sw_util.h"

#include <stdlib.h>
#include <string.h>

/* Appends one cell; the label is made from the configuration.  tmode is
 * the time sampler's mode of a time-sampling cell ("" for none); suffixed
 * says its label names it (a mode other than the first, signal, outside
 * the older form). */
static void add_cell(sw_cell **cells, int *n, const char *workload, const char *kind, uint64_t period, const char *mode,
                     unsigned hz, const char *clock, const char *tmode, int suffixed, unsigned depth, int sim) {
    *cells = sw_xrealloc(*cells, (size_t)(*n + 1) * sizeof **cells);
    sw_cell *c = &(*cells)[*n];
    char p[32];
    sw_buf label = {0};
    sw_buf_printf(&label, "%s/", workload);
    if (sim)
        sw_buf_puts(&label, "sim/");
    if (depth)
        sw_buf_printf(&label, "d%u/", depth);
    if (!period && !hz)
        sw_buf_puts(&label, "baseline");
    if (period)
        sw_buf_printf(&label, "alloc-%s-%s", mode, sw_format_bytes(period, p, sizeof p));
    if (period && hz)
        sw_buf_puts(&label, "+");
    if (hz)
        /* the default clock is implied: "time-1000Hz", "time-cpu-1000Hz" */
        sw_buf_printf(&label, "time-%s%s%uHz", strcmp(clock, sgc_clock_name(0)) ? clock : "",
                      strcmp(clock, sgc_clock_name(0)) ? "-" : "", hz);
    /* ... and so is the first mode: "time-1000Hz", "time-1000Hz-thread" */
    if (hz && suffixed && tmode[0] && strcmp(tmode, sgc_time_mode_name(0)))
        sw_buf_printf(&label, "-%s", tmode);
    *c = (sw_cell){
        .id = *n + 1,
        .workload = sw_xstrdup(workload),
        .kind = sw_xstrdup(kind),
        .alloc_period = period,
        .alloc_mode = period ? mode : "",
        .time_hz = hz,
        .time_clock = hz ? clock : "",
        .time_mode = hz ? tmode : "",
        .size = 0,
        .label = label.data,
        .args = depth ? sw_xasprintf("--depth %u", depth) : sw_xstrdup(""),
        .depth = depth,
        .sim = sim,
    };
    (*n)++;
    /* A command workload's system may not do this cell (sw_cmd.h): it is
     * not planned, and the plan says why. */
    const char *why = sw_cmd_cannot_cell(workload, period, mode, hz, depth, sim);
    if (why) {
        sw_cmd_note(c->label, why);
        free(c->workload), free(c->kind), free(c->label), free(c->args);
        (*n)--;
    }
}

/* The time sampler's modes of a workload's time cells (bits): the plan's;
 * signal alone for the simulated part (its time model is the signal's,
 * stats/st_sim.h); one pass with no mode (bit 31) for another system's
 * command workload, which has its own time sampler. */
#define NO_TIME_MODE (1u << 31)
static unsigned cell_modes(const sw_opts *o, const char *workload, int sim) {
    const sw_command *cmd = sw_cmd_find(workload);
    if (cmd && !cmd->system->native)
        return NO_TIME_MODE;
    return sim ? 1u << SGC_TIME_SIGNAL : sw_opts_time_modes(o);
}

static const char *mode_word(unsigned bit) {
    if (bit == NO_TIME_MODE)
        return "";
    for (int m = 0; m < SGC_NTIME_MODES; m++)
        if (bit == 1u << m)
            return sgc_time_mode_name(m);
    return "";
}

int sw_plan_cells(const sw_opts *o, char *const *workloads, int n_workloads, sw_cell **out) {
    sw_cell *cells = NULL;
    int n = 0;
    int suffixed = !sw_opts_time_modes_legacy(o);
    sw_cmd_plan_design(o->design == SW_DESIGN_INPROCESS);
    for (int sim = 0; sim < 2; sim++) {
        if (!(sim ? o->backend_sim : o->backend_native))
            continue;
        for (int w = 0; w < n_workloads; w++) {
            const char *name = workloads[w];
            unsigned tms = cell_modes(o, name, sim);
            add_cell(&cells, &n, name, "baseline", 0, "", 0, "", "", 0, 0, sim);
            for (int m = 0; m < SGC_SAMPLE_NMODES; m++) {
                if (!(o->modes & (1u << m)))
                    continue;
                for (int i = 0; i < o->n_periods; i++)
                    add_cell(&cells, &n, name, "alloc", o->periods[i], sgc_alloc_mode_name(m), 0, "", "", 0, 0, sim);
            }
            /* Every time-sampling cell once per mode, the modes outermost
             * (a plan of one mode has the cells of the plans before them). */
            for (unsigned bit = 1; bit; bit <<= 1) {
                if (!(tms & bit))
                    continue;
                const char *tm = mode_word(bit);
                for (int k = 0; k < SGC_NCLOCKS; k++) {
                    if (!(o->clocks & (1u << k)))
                        continue;
                    for (int i = 0; i < o->n_time_hz; i++)
                        add_cell(&cells, &n, name, "time", 0, "", o->time_hz[i], sgc_clock_name(k), tm, suffixed, 0,
                                 sim);
                }
            }
            /* Combined and depth cells use the default mode and clock. */
            const char *mode0 = sgc_alloc_mode_name(0), *clock0 = sgc_clock_name(0);
            for (unsigned bit = 1; bit; bit <<= 1)
                for (int i = 0; (tms & bit) && i < o->n_combined; i++)
                    add_cell(&cells, &n, name, "alloc+time", o->combined[i].period, mode0, o->combined[i].hz, clock0,
                             mode_word(bit), suffixed, 0, sim);
            /* The depth cells are native only (docs/HARNESS.md). */
            if (!sim && !strcmp(name, SW_DEPTH_WORKLOAD))
                for (int i = 0; i < o->n_depths; i++) {
                    unsigned d = o->depths[i];
                    add_cell(&cells, &n, name, "baseline", 0, "", 0, "", "", 0, d, 0);
                    add_cell(&cells, &n, name, "alloc", o->depth_period, mode0, 0, "", "", 0, d, 0);
                    for (unsigned bit = 1; bit; bit <<= 1)
                        if (tms & bit)
                            add_cell(&cells, &n, name, "time", 0, "", o->depth_hz, clock0, mode_word(bit), suffixed, d,
                                     0);
                }
        }
    }
    /* Duplicate settings (e.g. "--periods 4M,4M") would give duplicate
     * labels; the database requires them unique, so refuse early. */
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++)
            if (!strcmp(cells[i].label, cells[j].label))
                sw_usage_error("the plan names cell %s twice (a workload, period, rate or depth is listed twice)",
                               cells[i].label);
    *out = cells;
    return n;
}

int sw_plan_db_round(int pass, int warmup) { return pass - warmup + 1; }

int sw_plan_schedule(int n_cells, int warmup, int runs, uint64_t seed, sw_slot **out) {
    int rounds = warmup + runs;
    int total = rounds * n_cells;
    sw_slot *slots = sw_xcalloc((size_t)(total ? total : 1), sizeof *slots);
    int *order = sw_xmalloc((size_t)(n_cells ? n_cells : 1) * sizeof *order);
    sw_rng rng;
    sw_rng_seed(&rng, seed);
    int seq = 0;
    for (int pass = 0; pass < rounds; pass++) {
        for (int i = 0; i < n_cells; i++)
            order[i] = i;
        for (int i = n_cells - 1; i > 0; i--) {
            int j = (int)sw_rng_below(&rng, (uint64_t)i + 1);
            int t = order[i];
            order[i] = order[j];
            order[j] = t;
        }
        for (int i = 0; i < n_cells; i++) {
            slots[seq] =
                (sw_slot){.seq = seq + 1, .cell = order[i], .round = sw_plan_db_round(pass, warmup), .pass = pass};
            seq++;
        }
    }
    free(order);
    *out = slots;
    return total;
}

uint64_t sw_plan_replicate_seed(uint64_t seed, int r) {
    return r ? sw_mix64(seed, 0x7265706c00000000ULL + (uint64_t)r) : seed;
}

/* K replicates' native schedules interleaved round by round (sw_plan.h). */
static int replicated(const sw_opts *o, const sw_cell *cells, int n_native, sw_slot **out) {
    int K = o->replicates, passes = o->warmup + o->runs, n = 0;
    sw_slot **rs = sw_xcalloc((size_t)K, sizeof *rs);
    int *nr = sw_xcalloc((size_t)K, sizeof *nr), *at = sw_xcalloc((size_t)K, sizeof *at), total = 0;
    for (int r = 0; r < K; r++) {
        nr[r] =
            sw_plan_build(o->design, cells, n_native, o->warmup, o->runs, sw_plan_replicate_seed(o->seed, r), &rs[r]);
        total += nr[r];
    }
    sw_slot *slots = sw_xmalloc((size_t)(total + 1) * sizeof *slots);
    /* Blocks renumbered in execution order: (replicate, old block) -> new. */
    int maxb = 0;
    for (int r = 0; r < K; r++)
        for (int i = 0; i < nr[r]; i++)
            if (rs[r][i].block > maxb)
                maxb = rs[r][i].block;
    int *map = sw_xcalloc((size_t)K * (size_t)(maxb + 1), sizeof *map), blocks = 0;
    for (int p = 0; p < passes; p++)
        for (int j = 0; j < K; j++) {
            int r = (j + p) % K;
            for (; at[r] < nr[r] && rs[r][at[r]].pass == p; at[r]++) {
                sw_slot x = rs[r][at[r]];
                x.seq = n + 1;
                x.replicate = r;
                if (x.block) {
                    int *m = &map[(size_t)r * (size_t)(maxb + 1) + (size_t)x.block];
                    if (!*m)
                        *m = ++blocks;
                    x.block = *m;
                }
                slots[n++] = x;
            }
        }
    for (int r = 0; r < K; r++)
        if (at[r] != nr[r])
            abort(); /* every slot of every replicate is placed: a programming error otherwise */
    for (int r = 0; r < K; r++)
        free(rs[r]);
    free(rs), free(nr), free(at), free(map);
    *out = slots;
    return n;
}

int sw_plan_schedule_all(const sw_opts *o, const sw_cell *cells, int n_cells, sw_slot **out) {
    int n_native = 0;
    while (n_native < n_cells && !cells[n_native].sim)
        n_native++;
    sw_slot *slots = NULL;
    int n = 0;
    if (n_native && o->replicates > 1) {
        n = replicated(o, cells, n_native, &slots);
    } else if (n_native) {
        n = sw_plan_build(o->design, cells, n_native, o->warmup, o->runs, o->seed, &slots);
        for (int i = 0; i < n; i++)
            slots[i].replicate = -1;
    }
    int n_sim = n_cells - n_native;
    slots = sw_xrealloc(slots, (size_t)(n + n_sim * o->sim_runs + 1) * sizeof *slots);
    for (int i = n_native; i < n_cells; i++)
        for (int r = 1; r <= o->sim_runs; r++) {
            slots[n] = (sw_slot){.seq = n + 1, .cell = i, .round = r, .pass = -1, .replicate = -1};
            n++;
        }
    *out = slots;
    return n;
}

void sw_plan_free_cells(sw_cell *cells, int n) {
    for (int i = 0; i < n; i++) {
        free(cells[i].workload);
        free(cells[i].kind);
        free(cells[i].label);
        free(cells[i].args);
    }
    free(cells);
}

int sw_plan_baseline_of(const sw_cell *cells, int n_cells, int i) {
    for (int j = 0; j < n_cells; j++)
        if (!strcmp(cells[j].kind, "baseline") && !strcmp(cells[j].workload, cells[i].workload) &&
            cells[j].depth == cells[i].depth)
            return j;
    return -1;
}

int sw_plan_runs_per_round(const sw_cell *cells, int n_cells, sw_design d) {
    /* Blocked: two runs per cell (its block, or a baseline's A/A block). */
    (void)cells;
    return d == SW_DESIGN_BLOCKED ? 2 * n_cells : n_cells;
}

/* Shuffles a[0..n-1] in place (Fisher-Yates). */
static void shuffle_ints(int *a, int n, sw_rng *rng) {
    for (int i = n - 1; i > 0; i--) {
        int j = (int)sw_rng_below(rng, (uint64_t)i + 1);
        int t = a[i];
        a[i] = a[j];
        a[j] = t;
    }
}

int sw_plan_blocked(const sw_cell *cells, int n_cells, int warmup, int runs, uint64_t seed, sw_slot **out) {
    /* Block k (0-based, one per cell) pairs cell k with its baseline; for a
     * baseline it is the A/A block (both runs of the baseline). */
    int *base = sw_xmalloc((size_t)(n_cells ? n_cells : 1) * sizeof *base);
    for (int k = 0; k < n_cells; k++) {
        base[k] = sw_plan_baseline_of(cells, n_cells, k);
        if (base[k] < 0)
            sw_usage_error("design blocked: cell %s has no baseline of the same workload to pair with", cells[k].label);
    }
    int rounds = warmup + runs;
    sw_rng rng;
    sw_rng_seed(&rng, seed);
    /* first[k * rounds + pass]: 1 if block k runs its role-1 run first in that pass. */
    int *first = sw_xcalloc((size_t)(n_cells * rounds > 0 ? n_cells * rounds : 1), sizeof *first);
    int *tmp = sw_xmalloc((size_t)(runs ? runs : 1) * sizeof *tmp);
    for (int k = 0; k < n_cells; k++) {
        for (int p = 0; p < warmup; p++)
            first[k * rounds + p] = (int)sw_rng_below(&rng, 2);
        for (int r = 0; r < runs; r++)
            tmp[r] = r < runs / 2 ? 1 : 0;
        if (runs % 2)
            tmp[runs - 1] = (int)sw_rng_below(&rng, 2);
        shuffle_ints(tmp, runs, &rng);
        for (int r = 0; r < runs; r++)
            first[k * rounds + warmup + r] = tmp[r];
    }
    free(tmp);
    int total = rounds * 2 * n_cells;
    sw_slot *slots = sw_xcalloc((size_t)(total ? total : 1), sizeof *slots);
    int *order = sw_xmalloc((size_t)(n_cells ? n_cells : 1) * sizeof *order);
    int seq = 0, block = 0;
    for (int pass = 0; pass < rounds; pass++) {
        for (int i = 0; i < n_cells; i++)
            order[i] = i;
        shuffle_ints(order, n_cells, &rng);
        int round = sw_plan_db_round(pass, warmup);
        for (int i = 0; i < n_cells; i++) {
            int k = order[i];
            block++;
            int f = first[k * rounds + pass];
            for (int pos = 1; pos <= 2; pos++) {
                int role = (pos == 1) == (f == 1) ? 1 : 0;
                slots[seq] = (sw_slot){.seq = seq + 1,
                                       .cell = role ? k : base[k],
                                       .round = round,
                                       .pass = pass,
                                       .block = block,
                                       .pos = pos,
                                       .role = role};
                seq++;
            }
        }
    }
    free(order);
    free(first);
    free(base);
    *out = slots;
    return total;
}

int sw_plan_build(sw_design d, const sw_cell *cells, int n_cells, int warmup, int runs, uint64_t seed, sw_slot **out) {
    if (d == SW_DESIGN_BLOCKED)
        return sw_plan_blocked(cells, n_cells, warmup, runs, seed, out);
    /* The in-process design compares inside each run: no pairing of runs. */
    if (d == SW_DESIGN_INDEPENDENT || d == SW_DESIGN_INPROCESS)
        return sw_plan_schedule(n_cells, warmup, runs, seed, out);
    sw_usage_error("design %s: no process-level schedule", sw_design_name(d));
}

void sw_plan_estimate(const sw_cell *cells, const sw_slot *slots, int n_slots, const int64_t *run_ns,
                      int64_t overhead_ns, int64_t sim_overhead_ns, int jobs, sw_estimate *e) {
    memset(e, 0, sizeof *e);
    for (int i = 0; i < n_slots; i++) {
        int c = slots[i].cell;
        if (run_ns[c] < 0) {
            e->unknown_runs++;
        } else if (cells[c].sim) {
            e->sim_runs++;
            e->sim_run_ns += run_ns[c];
        } else {
            e->timed_runs++;
            e->timed_run_ns += run_ns[c];
            if (slots[i].round == 1)
                e->round_ns += run_ns[c] + overhead_ns;
        }
    }
    e->timed_ns = e->timed_run_ns + e->timed_runs * overhead_ns;
    e->sim_ns = (e->sim_run_ns + e->sim_runs * sim_overhead_ns) / (jobs > 0 ? jobs : 1);
}

char *sw_plan_unit_key(const sw_cell *c) {
    return sw_xasprintf("%s%s%s%s", c->sim ? "sim:" : "", c->workload, c->args[0] ? " " : "", c->args);
}
