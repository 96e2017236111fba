/* sw_plan.c - cells of the sweep and their shuffled schedule. */
#include "sw_plan.h"
#include "sw_cmd.h"
#include "sw_db.h"
#include "sw_util.h"

#include <errno.h>
#include <gsl/gsl_cdf.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Appends one cell; the label is made from the configuration.  tmode is
 * the time sampler's mode of a time-sampling cell ("" for none); suffixed
 * says its label names it (a mode other than the first, signal, outside
 * the older form). */
static void add_cell(sw_cell **cells, int *n, const char *workload, const char *kind, uint64_t period, const char *mode,
                     unsigned hz, const char *clock, const char *tmode, int suffixed, unsigned depth, int sim) {
    *cells = ct_xrealloc(*cells, (size_t)(*n + 1) * sizeof **cells);
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
        .workload = ct_xstrdup(workload),
        .kind = ct_xstrdup(kind),
        .alloc_period = period,
        .alloc_mode = period ? mode : "",
        .time_hz = hz,
        .time_clock = hz ? clock : "",
        .time_mode = hz ? tmode : "",
        .size = 0,
        .label = label.data,
        .args = depth ? sw_xasprintf("--depth %u", depth) : ct_xstrdup(""),
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
    sw_slot *slots = ct_xcalloc((size_t)(total ? total : 1), sizeof *slots);
    int *order = ct_xmalloc((size_t)(n_cells ? n_cells : 1) * sizeof *order);
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

/* K replicates' native schedules, interleaved round by round or one after
 * another (sw_plan.h). */
static int replicated(const sw_opts *o, const sw_cell *cells, int n_native, sw_slot **out) {
    int K = o->replicates, passes = o->warmup + o->runs, n = 0;
    sw_slot **rs = ct_xcalloc((size_t)K, sizeof *rs);
    int *nr = ct_xcalloc((size_t)K, sizeof *nr), *at = ct_xcalloc((size_t)K, sizeof *at), total = 0;
    for (int r = 0; r < K; r++) {
        nr[r] =
            sw_plan_build(o->design, cells, n_native, o->warmup, o->runs, sw_plan_replicate_seed(o->seed, r), &rs[r]);
        total += nr[r];
    }
    sw_slot *slots = ct_xmalloc((size_t)(total + 1) * sizeof *slots);
    /* Blocks renumbered in execution order: (replicate, old block) -> new. */
    int maxb = 0;
    for (int r = 0; r < K; r++)
        for (int i = 0; i < nr[r]; i++)
            if (rs[r][i].block > maxb)
                maxb = rs[r][i].block;
    int *map = ct_xcalloc((size_t)K * (size_t)(maxb + 1), sizeof *map), blocks = 0;
    int seq = sw_opts_reporder(o) == SW_REPORDER_SEQUENTIAL;
    /* Step t places pass p of replicate r: interleaved, t = p * K + j with
     * r = (j + p) mod K; sequential, t = r * passes + p. */
    for (int t = 0; t < passes * K; t++) {
        int p = seq ? t % passes : t / K, r = seq ? t / passes : (t % K + p) % K;
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
    slots = ct_xrealloc(slots, (size_t)(n + n_sim * o->sim_runs + 1) * sizeof *slots);
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
    int *base = ct_xmalloc((size_t)(n_cells ? n_cells : 1) * sizeof *base);
    for (int k = 0; k < n_cells; k++) {
        base[k] = sw_plan_baseline_of(cells, n_cells, k);
        if (base[k] < 0)
            sw_usage_error("design blocked: cell %s has no baseline of the same workload to pair with", cells[k].label);
    }
    int rounds = warmup + runs;
    sw_rng rng;
    sw_rng_seed(&rng, seed);
    /* first[k * rounds + pass]: 1 if block k runs its role-1 run first in that pass. */
    int *first = ct_xcalloc((size_t)(n_cells * rounds > 0 ? n_cells * rounds : 1), sizeof *first);
    int *tmp = ct_xmalloc((size_t)(runs ? runs : 1) * sizeof *tmp);
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
    sw_slot *slots = ct_xcalloc((size_t)(total ? total : 1), sizeof *slots);
    int *order = ct_xmalloc((size_t)(n_cells ? n_cells : 1) * sizeof *order);
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

void sw_plan_counts(const sw_cell *cells, int n_cells, const sw_slot *slots, int n_slots, sw_plan_count *c) {
    memset(c, 0, sizeof *c);
    for (int i = 0; i < n_cells; i++)
        cells[i].sim ? c->sim_cells++ : c->native_cells++;
    for (int i = 0; i < n_slots; i++)
        cells[slots[i].cell].sim ? c->sim_runs++ : c->native_runs++;
    c->cells = c->native_cells + c->sim_cells;
    c->runs = c->native_runs + c->sim_runs;
}

/* ---- The in-process plan's levels ---- */

double sw_plan_t975(int df) { return gsl_cdf_tdist_Pinv(0.975, df < 1 ? 1 : df); }

double sw_plan_level_halfwidth(const sw_level_cell *c, int processes, double blocks) {
    return sw_plan_t975(processes - 1) * sqrt((c->tau * c->tau + c->s_block * c->s_block / blocks) / processes);
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The median of v[0..n-1] (sorted in place). */
static double median_d(double *v, int n) {
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Usable blocks a process has when the budget per cell is split over P. */
static double blocks_at(const sw_level_costs *k, double budget, int processes) {
    return (budget / processes - k->fixed_s) / k->block_s;
}

int sw_plan_levels_choose(const sw_level_cell *cells, int n, const sw_level_costs *k, int now_processes,
                          double now_target_s, sw_levels *out, const char **why) {
    memset(out, 0, sizeof *out);
    if (n < 1) {
        *why = "no cell with two or more processes and a between-process SD";
        return -1;
    }
    if (!(k->block_s > 0) || !(k->fixed_s >= 0) || !(k->harness_s >= 0) || k->harness_s > k->fixed_s) {
        *why = "the measured costs are not usable (a block's CPU time must be above 0, the fixed part at least the "
               "harness's)";
        return -1;
    }
    for (int i = 0; i < n; i++)
        if (!(cells[i].tau >= 0) || !(cells[i].s_block > 0) || !isfinite(cells[i].tau) || !isfinite(cells[i].s_block)) {
            *why = "a cell's components are not usable (tau must be >= 0, a block's SD above 0)";
            return -1;
        }
    double budget = now_processes * (now_target_s + k->harness_s), now_b = blocks_at(k, budget, now_processes);
    if (now_processes < 2 || !(now_b > 0)) {
        *why = "the current plan has fewer than 2 processes a cell or no usable block in a process: raise --runs "
               "or --target";
        return -1;
    }
    double *rel = ct_xmalloc((size_t)n * sizeof *rel), *now_h = ct_xmalloc((size_t)n * sizeof *now_h);
    for (int i = 0; i < n; i++)
        now_h[i] = sw_plan_level_halfwidth(&cells[i], now_processes, now_b);
    int best = 0;
    double best_med = INFINITY;
    for (int P = 2; P <= SW_LEVELS_MAX_PROCESSES; P++) {
        double b = blocks_at(k, budget, P);
        if (b < SW_LEVELS_MIN_BLOCKS)
            break; /* fewer blocks at every larger P */
        for (int i = 0; i < n; i++)
            rel[i] = sw_plan_level_halfwidth(&cells[i], P, b) / now_h[i];
        double m = median_d(rel, n);
        if (m < best_med * (1 - 1e-12)) { /* ties (within rounding) go to the fewer processes */
            best_med = m;
            best = P;
        }
    }
    if (!best) {
        free(rel), free(now_h);
        *why = "no number of processes leaves 20 usable blocks a process within the budget: raise --target";
        return -1;
    }
    double b = blocks_at(k, budget, best);
    for (int i = 0; i < n; i++)
        rel[i] = sw_plan_level_halfwidth(&cells[i], best, b) / now_h[i];
    qsort(rel, (size_t)n, sizeof *rel, cmp_double);
    *out = (sw_levels){.processes = best,
                       .blocks = b,
                       .target_s = budget / best - k->harness_s,
                       .now_blocks = now_b,
                       .median_rel = best_med,
                       .min_rel = rel[0],
                       .max_rel = rel[n - 1],
                       .n_cells = n};
    free(rel), free(now_h);
    return 0;
}

/* Splits one CSV line (RFC 4180 quoting) in place; returns the number of
 * fields (at most max). */
static int csv_split(char *line, char **f, int max) {
    int n = 0;
    char *p = line;
    while (n < max) {
        char *w = p;
        f[n++] = w;
        if (*p == '"') {
            p++;
            for (;;) {
                if (!*p)
                    break;
                if (*p == '"' && p[1] == '"') {
                    *w++ = '"';
                    p += 2;
                } else if (*p == '"') {
                    p++;
                    break;
                } else {
                    *w++ = *p++;
                }
            }
            while (*p && *p != ',')
                p++;
        } else {
            while (*p && *p != ',' && *p != '\n' && *p != '\r')
                *w++ = *p++;
        }
        int more = *p == ',';
        *w = '\0';
        if (!more)
            break;
        p++;
    }
    return n;
}

/* A number field: 1 and *v when it is one, 0 when empty or not a number. */
static int num_field(const char *s, double *v) {
    char *end;
    if (!s || !*s)
        return 0;
    errno = 0;
    *v = strtod(s, &end);
    return !*end && !errno && isfinite(*v);
}

/* The median of the values of a query's first column (NULLs left out), in
 * *out: their count, or -1 with the database's message in *why. */
static int median_query(sw_db *db, const char *sql, double *out, char **why) {
    sw_db_rows r;
    if (sw_db_query(db, sql, NULL, &r, why) != 0)
        return -1;
    double *v = ct_xmalloc((size_t)(r.n ? r.n : 1) * sizeof *v);
    int n = 0;
    for (int i = 0; i < r.n; i++) {
        const char *t = sw_db_at(&r, i, 0);
        if (t)
            v[n++] = strtod(t, NULL);
    }
    sw_db_rows_free(&r);
    if (n)
        *out = median_d(v, n);
    free(v);
    return n;
}

#define LEVELS_MAX_FIELDS 256

/* The cells of DIR/inprocess.csv that can be split into levels (two or more
 * processes, a tau, a pooled interval) into *cells, and the dropped blocks
 * over their processes into *dropped and *dropped_procs.  Their count, or
 * -1 with the reason in err (*cells then freed and NULL). */
static int read_level_cells(const char *dir, sw_level_cell **cells, double *dropped, int *dropped_procs, char *err,
                            size_t errlen) {
    char *path = sw_xasprintf("%s/inprocess.csv", dir);
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, errlen,
                 "%s: %s (give an in-process sweep analysed by build/bin/analyze, e.g. results/reference-inprocess)",
                 path, strerror(errno));
        free(path);
        return -1;
    }
    char *line = NULL, *fld[LEVELS_MAX_FIELDS];
    size_t cap = 0;
    static const char *const want[] = {"label", "processes", "kept_blocks", "dropped_blocks",
                                       "tau",   "pooled_lo", "pooled_hi"};
    enum { LABEL, PROCS, KEPT, DROPPED, TAU, PLO, PHI, NWANT };
    int col[NWANT], n = 0, lineno = 1, ncols;
    if (getline(&line, &cap, f) < 0 || (ncols = csv_split(line, fld, LEVELS_MAX_FIELDS)) < 1) {
        snprintf(err, errlen, "%s: empty (no header line): rerun build/bin/analyze on %s", path, dir);
        goto fail;
    }
    for (int w = 0; w < NWANT; w++) {
        col[w] = -1;
        for (int i = 0; i < ncols; i++)
            if (!strcmp(fld[i], want[w]))
                col[w] = i;
        if (col[w] < 0) {
            snprintf(err, errlen,
                     "%s: no column %s (an inprocess.csv of an older analyze?): rerun build/bin/analyze "
                     "on %s",
                     path, want[w], dir);
            goto fail;
        }
    }
    while (getline(&line, &cap, f) >= 0) {
        lineno++;
        if (line[0] == '\n' || line[0] == '\0')
            continue;
        int nf = csv_split(line, fld, LEVELS_MAX_FIELDS);
        if (nf != ncols) {
            snprintf(err, errlen,
                     "%s:%d: %d fields where the header has %d: the file is damaged; rerun "
                     "build/bin/analyze on %s",
                     path, lineno, nf, ncols, dir);
            goto fail;
        }
        double procs, kept, drop, tau, lo, hi;
        if (!num_field(fld[col[PROCS]], &procs) || procs < 2 || !num_field(fld[col[KEPT]], &kept) || kept < 2 ||
            !num_field(fld[col[TAU]], &tau) || !num_field(fld[col[PLO]], &lo) || !num_field(fld[col[PHI]], &hi) ||
            !(lo > 0) || !(hi > lo) || tau < 0)
            continue; /* one process, no tau, or no pooled interval: nothing to split */
        if (num_field(fld[col[DROPPED]], &drop) && drop >= 0)
            *dropped += drop, *dropped_procs += (int)procs;
        *cells = ct_xrealloc(*cells, (size_t)(n + 1) * sizeof **cells);
        (*cells)[n++] = (sw_level_cell){tau, sqrt(kept) * log(hi / lo) / (2 * 1.959963984540054)};
    }
    if (!n) {
        snprintf(err, errlen,
                 "%s: no cell with two or more processes, a tau and a pooled interval: nothing to "
                 "choose from",
                 path);
        goto fail;
    }
    fclose(f);
    free(path);
    free(line);
    return n;
fail:
    fclose(f);
    free(path);
    free(line);
    free(*cells);
    *cells = NULL;
    return -1;
}

/* The costs of DIR/results.db's measured ok runs with segments (medians): a
 * complete block's CPU, the CPU outside them plus the harness's overhead and
 * the dropped blocks (dropped over dropped_procs a process), the harness's
 * overhead.  0, or -1 with the reason in err. */
static int read_level_costs(const char *dir, sw_level_costs *k, double dropped, int dropped_procs, char *err,
                            size_t errlen) {
    char *path = sw_xasprintf("%s/results.db", dir);
    sw_db db = {0};
    char *why = NULL;
    int rc = sw_db_open_file_readonly(&db, path, &why);
    /* Per measured ok run with segments: a complete block's CPU (its
     * complete blocks, four segments each, over their count), the CPU
     * outside them (the lead-in, a last block cut short, start-up and
     * exit), the harness's overhead. */
#define COMPLETE                                                                                                     \
    "(SELECT run_id, sum(c) c, count(*) nb FROM (SELECT run_id, block, sum(cpu_ns) c FROM segments WHERE block > 0 " \
    "GROUP BY run_id, block HAVING count(*) = 4) GROUP BY run_id)"
    static const char *const q[3] = {
        "SELECT s.c / s.nb FROM runs r JOIN " COMPLETE " s ON s.run_id = r.run_id WHERE r.round >= 1 AND r.status = "
        "'ok'",
        "SELECT max(r.user_ns + r.sys_ns - s.c, 0) FROM runs r JOIN " COMPLETE
        " s ON s.run_id = r.run_id WHERE r.round >= 1 AND r.status = 'ok'",
        "SELECT r.overhead_ns FROM runs r WHERE r.round >= 1 AND r.status = 'ok' AND EXISTS (SELECT 1 FROM segments "
        "s WHERE s.run_id = r.run_id)"};
#undef COMPLETE
    double m[3];
    for (int i = 0; i < 3; i++) {
        int got = rc == 0 ? median_query(&db, q[i], &m[i], &why) : -1;
        if (got <= 0) {
            snprintf(err, errlen, "%s: %s", path,
                     got < 0 ? (why ? why : "cannot open")
                             : "no measured ok run with segments: not an in-process sweep");
            free(why);
            if (rc == 0)
                sw_db_close_readonly(&db);
            free(path);
            return -1;
        }
    }
    sw_db_close_readonly(&db);
    k->block_s = m[0] / 1e9;
    k->harness_s = m[2] / 1e9;
    k->fixed_s = m[1] / 1e9 + k->harness_s + (dropped_procs ? dropped / dropped_procs : 0) * k->block_s;
    free(path);
    return 0;
}

int sw_plan_levels_read(const char *dir, sw_level_cell **cells, sw_level_costs *k, char *err, size_t errlen) {
    *cells = NULL;
    memset(k, 0, sizeof *k);
    double dropped = 0;
    int dropped_procs = 0;
    int n = read_level_cells(dir, cells, &dropped, &dropped_procs, err, errlen);
    if (n < 0)
        return -1;
    if (read_level_costs(dir, k, dropped, dropped_procs, err, errlen) != 0) {
        free(*cells);
        *cells = NULL;
        return -1;
    }
    return n;
}

char *sw_plan_levels_apply(sw_opts *o, const char *dir) {
    if (o->design != SW_DESIGN_INPROCESS)
        sw_usage_error("levels-from: the processes and blocks of the in-process design; this plan's design is %s "
                       "(give --design inprocess)",
                       sw_design_name(o->design));
    sw_level_cell *cells;
    sw_level_costs k;
    char err[1024];
    int n = sw_plan_levels_read(dir, &cells, &k, err, sizeof err);
    if (n < 0)
        sw_usage_error("levels-from: %s", err);
    sw_levels L;
    const char *why;
    if (sw_plan_levels_choose(cells, n, &k, o->runs, o->target, &L, &why))
        sw_usage_error("levels-from %s: %s", dir, why);
    free(cells);
    char *text = sw_xasprintf(
        "from %s (%d cells; a block %.2f ms of CPU, %.2f ms a process outside its usable blocks): %d processes of "
        "%.0f blocks (--runs %d --target %.3f) instead of %d of %.0f (--runs %d --target %.3f), the same CPU a cell; "
        "predicted half-width x%.3f (median over the cells; %.3f to %.3f)",
        dir, L.n_cells, k.block_s * 1e3, k.fixed_s * 1e3, L.processes, L.blocks, L.processes, L.target_s, o->runs,
        L.now_blocks, o->runs, o->target, L.median_rel, L.min_rel, L.max_rel);
    o->runs = L.processes;
    o->target = L.target_s;
    return text;
}

double sw_plan_wall_factor(int64_t wall_ns, int64_t cpu_ns) {
    return cpu_ns > 0 && wall_ns >= 0 ? (double)wall_ns / (double)cpu_ns : 0;
}

/* "1234.567 s (20m35s)", rounded to the second in the brackets. */
static void put_wall(sw_buf *b, double ns) {
    long s = (long)(ns / 1e9 + 0.5);
    sw_buf_printf(b, "%.3f s (", ns / 1e9);
    if (s >= 3600)
        sw_buf_printf(b, "%ldh%02ldm)", s / 3600, s / 60 % 60);
    else if (s >= 60)
        sw_buf_printf(b, "%ldm%02lds)", s / 60, s % 60);
    else
        sw_buf_printf(b, "%lds)", s);
}

char *sw_plan_wall_line(const sw_estimate *e, const double factor[2], const double *load, int cpu) {
    sw_buf b = {0};
    sw_buf_puts(&b, "estimate: wall time (the lines above count CPU time):");
    static const char *const part[2] = {"timed part", "simulated part"};
    int any = 0;
    for (int k = 0; k < 2; k++) {
        int runs = k ? e->sim_runs : e->timed_runs;
        if (!runs)
            continue;
        sw_buf_printf(&b, "%s %s ", any++ ? "," : "", part[k]);
        if (factor[k] > 0) {
            put_wall(&b, (double)(k ? e->sim_ns : e->timed_ns) * factor[k]);
            sw_buf_printf(&b, " at x%.3f", factor[k]);
        } else {
            sw_buf_puts(&b, "not estimated (no calibration probe of it)");
        }
    }
    sw_buf_printf(&b, ": the calibration probes' wall time over their CPU time, pinned to CPU %d", cpu);
    if (load)
        sw_buf_printf(&b, " at load average %.2f %.2f %.2f", load[0], load[1], load[2]);
    sw_buf_puts(&b, "; other load during the sweep makes it longer or shorter\n");
    return b.data;
}
