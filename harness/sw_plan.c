/* sw_plan.c - cells of the sweep and their shuffled schedule. */
#include "sw_plan.h"
#include "sw_util.h"

#include <stdlib.h>
#include <string.h>

/* Appends one cell; the label is made from the configuration. */
static void add_cell(sw_cell **cells, int *n, const char *workload, const char *kind, uint64_t period,
                     const char *mode, unsigned hz, const char *clock, unsigned depth)
{
    *cells = sw_xrealloc(*cells, (size_t)(*n + 1) * sizeof **cells);
    sw_cell *c = &(*cells)[*n];
    char p[32];
    sw_buf label = {0};
    sw_buf_printf(&label, "%s/", workload);
    if (depth)
        sw_buf_printf(&label, "d%u/", depth);
    if (!period && !hz)
        sw_buf_puts(&label, "baseline");
    if (period)
        sw_buf_printf(&label, "alloc-%s-%s", mode, sw_format_bytes(period, p, sizeof p));
    if (period && hz)
        sw_buf_puts(&label, "+");
    if (hz)
        sw_buf_printf(&label, "time-%s%uHz", strcmp(clock, "cpu") ? "" : "cpu-", hz);
    *c = (sw_cell){
        .id = *n + 1,
        .workload = sw_xstrdup(workload),
        .kind = sw_xstrdup(kind),
        .alloc_period = period,
        .alloc_mode = period ? mode : "",
        .time_hz = hz,
        .time_clock = hz ? clock : "",
        .size = 0,
        .label = label.data,
        .args = depth ? sw_xasprintf("--depth %u", depth) : sw_xstrdup(""),
        .depth = depth,
    };
    (*n)++;
}

int sw_plan_cells(const sw_opts *o, char *const *workloads, int n_workloads, sw_cell **out)
{
    sw_cell *cells = NULL;
    int n = 0;
    for (int w = 0; w < n_workloads; w++) {
        const char *name = workloads[w];
        add_cell(&cells, &n, name, "baseline", 0, "", 0, "", 0);
        for (int m = 0; m < 2; m++) {
            if (!(m == 0 ? o->mode_fixed : o->mode_poisson))
                continue;
            for (int i = 0; i < o->n_periods; i++)
                add_cell(&cells, &n, name, "alloc", o->periods[i], m == 0 ? "fixed" : "poisson", 0, "", 0);
        }
        for (int k = 0; k < 2; k++) {
            if (!(k == 0 ? o->clock_wall : o->clock_cpu))
                continue;
            for (int i = 0; i < o->n_time_hz; i++)
                add_cell(&cells, &n, name, "time", 0, "", o->time_hz[i], k == 0 ? "wall" : "cpu", 0);
        }
        for (int i = 0; i < o->n_combined; i++)
            add_cell(&cells, &n, name, "alloc+time", o->combined[i].period, "fixed", o->combined[i].hz, "wall", 0);
        if (!strcmp(name, SW_DEPTH_WORKLOAD))
            for (int i = 0; i < o->n_depths; i++) {
                unsigned d = o->depths[i];
                add_cell(&cells, &n, name, "baseline", 0, "", 0, "", d);
                add_cell(&cells, &n, name, "alloc", o->depth_period, "fixed", 0, "", d);
                add_cell(&cells, &n, name, "time", 0, "", o->depth_hz, "wall", d);
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

int sw_plan_schedule(int n_cells, int warmup, int runs, uint64_t seed, sw_slot **out)
{
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
            slots[seq] = (sw_slot){.seq = seq + 1, .cell = order[i], .round = sw_plan_db_round(pass, warmup),
                                   .pass = pass};
            seq++;
        }
    }
    free(order);
    *out = slots;
    return total;
}

void sw_plan_free_cells(sw_cell *cells, int n)
{
    for (int i = 0; i < n; i++) {
        free(cells[i].workload);
        free(cells[i].kind);
        free(cells[i].label);
        free(cells[i].args);
    }
    free(cells);
}
