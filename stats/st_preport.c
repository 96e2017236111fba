/* st_preport.c - summary.md sections, summary.csv and plot-data columns of the paired comparisons and the noise. */
#include "st_preport.h"
#include "st_fmt.h"
#include "st_noise.h"
#include "st_stop.h"
#include "st_desc.h"
#include "st_replicates.h"
#include "st_util.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* "1.0123 [0.9987, 1.0260]", "*" for a percentile interval, "n/a" when undefined (st_fmt_ci's form). */
static const char *ci_text(char *b, size_t size, const st_interval *iv, int digits) {
    snprintf(b, size, "%s", st_fmt_ci(iv, digits));
    return b;
}

static const char *num_text(char *b, size_t size, double v, const char *fmt) {
    if (isfinite(v))
        snprintf(b, size, fmt, v);
    else
        snprintf(b, size, "n/a");
    return b;
}

static const char *period_name(char *b, size_t size, int64_t p) {
    if (p > 0 && p % (1LL << 20) == 0)
        snprintf(b, size, "%lldM", (long long)(p >> 20));
    else if (p > 0 && p % (1LL << 10) == 0)
        snprintf(b, size, "%lldK", (long long)(p >> 10));
    else
        snprintf(b, size, "%lld", (long long)p);
    return b;
}

static const char *baseline_name(char *b, size_t size, const st_cell *c) {
    if (isfinite(c->depth))
        snprintf(b, size, "%s (depth %.0f)", c->workload, c->depth);
    else
        snprintf(b, size, "%s", c->workload);
    return b;
}

static const char *cell_name(char *b, size_t size, const st_cell *c) {
    char p[32];
    if (!strcmp(c->kind, "alloc"))
        snprintf(b, size, "alloc %s %s", c->alloc_mode, period_name(p, sizeof p, c->alloc_period));
    else if (!strcmp(c->kind, "time"))
        snprintf(b, size, "time %s %lld Hz", c->time_clock, (long long)c->time_hz);
    else if (!strcmp(c->kind, "alloc+time"))
        snprintf(b, size, "alloc %s %s + time %lld Hz", c->alloc_mode, period_name(p, sizeof p, c->alloc_period),
                 (long long)c->time_hz);
    else
        snprintf(b, size, "%s", c->kind);
    if (isfinite(c->depth)) {
        size_t n = strlen(b);
        snprintf(b + n, size - n, " d%.0f", c->depth);
    }
    return b;
}

/* One mark per verdict for the compact matrix. */
static const char *mark(st_verdict v) {
    switch (v) {
    case ST_V_SLOWER: return " (+)";
    case ST_V_FASTER: return " (-)";
    case ST_V_EQUIVALENT: return " (=)";
    case ST_V_UNRESOLVED: return " (?)";
    default: return "";
    }
}

void st_write_floor_warning_md(FILE *f, const st_analysis *an) {
    for (size_t i = 0; i < an->nresults; i++) {
        const st_result *r = &an->results[i];
        char b[160], c[96];
        if (r->is_baseline && isfinite(r->paired_floor) && r->paired_floor > an->margin)
            fprintf(f,
                    "**Warning: the A/A floor of %s is %.1f%% (A/A ratio %s over %zu blocks), wider than the %g%% "
                    "margin the verdicts ask about: effects smaller than the floor are not resolved for it.**\n\n",
                    baseline_name(c, sizeof c, r->cell), r->paired_floor * 100, ci_text(b, sizeof b, &r->paired, 4),
                    r->pairs, an->margin * 100);
    }
}

/* The settings (periods or rates, ascending) and the workloads of the
 * matrix: the fixed-mode allocation or wall-clock time cells at no depth, at
 * most 64 of each, the workloads in their first cell's order. */
static void matrix_axes(const st_analysis *an, int time, int64_t *vals, size_t *nvp, const char **ws, size_t *nwp) {
    size_t nv = 0, nw = 0;
    for (size_t i = 0; i < an->nresults; i++) {
        const st_result *r = &an->results[i];
        const st_cell *c = r->cell;
        if (isfinite(c->depth) || strcmp(c->kind, time ? "time" : "alloc") ||
            strcmp(time ? c->time_clock : c->alloc_mode,
                   time ? sgc_clock_name(SGC_CLOCK_WALL) : sgc_alloc_mode_name(SGC_SAMPLE_FIXED)))
            continue;
        int64_t v = time ? c->time_hz : c->alloc_period;
        size_t k = 0;
        while (k < nv && vals[k] != v)
            k++;
        if (k == nv && nv < 64)
            vals[nv++] = v;
        k = 0;
        while (k < nw && strcmp(ws[k], c->workload))
            k++;
        if (k == nw && nw < 64)
            ws[nw++] = c->workload;
    }
    for (size_t a = 1; a < nv; a++)
        for (size_t b = a; b > 0 && vals[b - 1] > vals[b]; b--) {
            int64_t t = vals[b];
            vals[b] = vals[b - 1];
            vals[b - 1] = t;
        }
    *nvp = nv;
    *nwp = nw;
}

/* The table: one row per workload, one column per setting, each cell the
 * paired interval with its verdict's mark. */
static void matrix_table(FILE *f, const st_analysis *an, int time, const int64_t *vals, size_t nv, const char **ws,
                         size_t nw) {
    fprintf(f, "### Every workload, %s\n\n| workload |",
            time ? "time sampling (wall clock) by rate" : "allocation sampling (fixed mode) by period");
    for (size_t k = 0; k < nv; k++) {
        char p[32];
        if (time)
            fprintf(f, " %lld Hz |", (long long)vals[k]);
        else
            fprintf(f, " %s |", period_name(p, sizeof p, vals[k]));
    }
    fputs("\n|---|", f);
    for (size_t k = 0; k < nv; k++)
        fputs("---|", f);
    fputc('\n', f);
    for (size_t w = 0; w < nw; w++) {
        fprintf(f, "| %s |", ws[w]);
        for (size_t k = 0; k < nv; k++) {
            const st_result *hit = NULL;
            for (size_t i = 0; i < an->nresults && !hit; i++) {
                const st_result *r = &an->results[i];
                const st_cell *c = r->cell;
                if (!isfinite(c->depth) && !strcmp(c->workload, ws[w]) && !strcmp(c->kind, time ? "time" : "alloc") &&
                    !strcmp(time ? c->time_clock : c->alloc_mode,
                            time ? sgc_clock_name(SGC_CLOCK_WALL) : sgc_alloc_mode_name(SGC_SAMPLE_FIXED)) &&
                    (time ? c->time_hz : c->alloc_period) == vals[k])
                    hit = r;
            }
            char b[160];
            if (hit)
                fprintf(f, " %s%s |", ci_text(b, sizeof b, &hit->paired, 4), mark(hit->pverdict));
            else
                fputs(" |", f);
        }
        fputc('\n', f);
    }
    fputc('\n', f);
}

/* The family claims: every workload at one setting, from the simultaneous
 * intervals, by verdict. */
static void matrix_families(FILE *f, const st_analysis *an, int time, const int64_t *vals, size_t nv) {
    char m[32];
    snprintf(m, sizeof m, "%g%%", an->margin * 100);
    for (size_t k = 0; k < nv; k++) {
        size_t size = 0;
        for (size_t i = 0; i < an->nresults; i++) {
            const st_result *r = &an->results[i];
            const st_cell *c = r->cell;
            if (r->family_size && !strcmp(c->kind, time ? "time" : "alloc") &&
                (time ? c->time_hz : c->alloc_period) == vals[k])
                size = r->family_size;
        }
        if (size < 2)
            continue;
        char p[32];
        if (time)
            fprintf(f, "- Family %lld Hz (%zu workloads, simultaneous intervals each at %.4g%%): ", (long long)vals[k],
                    size, 100 * (1 - (1 - an->confidence) / (double)size));
        else
            fprintf(f, "- Family %s (%zu workloads, simultaneous intervals each at %.4g%%): ",
                    period_name(p, sizeof p, vals[k]), size, 100 * (1 - (1 - an->confidence) / (double)size));
        static const st_verdict order[4] = {ST_V_SLOWER, ST_V_FASTER, ST_V_EQUIVALENT, ST_V_UNRESOLVED};
        for (int o = 0; o < 4; o++) {
            char v[64];
            fprintf(f, "%s%s%s ", o ? "; " : "", st_verdict_text(order[o], an->margin, v, sizeof v),
                    order[o] == ST_V_UNRESOLVED ? ":" : " on");
            int n = 0;
            for (size_t i = 0; i < an->nresults; i++) {
                const st_result *r = &an->results[i];
                const st_cell *c = r->cell;
                if (!r->family_size || strcmp(c->kind, time ? "time" : "alloc") ||
                    (time ? c->time_hz : c->alloc_period) != vals[k] || r->family_verdict != order[o])
                    continue;
                fprintf(f, "%s%s [%.4f, %.4f]", n++ ? ", " : "", c->workload, r->sim_lo, r->sim_hi);
            }
            if (!n)
                fputs("none", f);
        }
        fputs(".\n", f);
    }
    fputc('\n', f);
}

/* Every workload's interval for each value of one axis (fixed-mode periods or
 * wall-clock rates): axes, table, family claims. */
static void write_matrix(FILE *f, const st_analysis *an, int time) {
    int64_t vals[64];
    const char *ws[64];
    size_t nv, nw;
    matrix_axes(an, time, vals, &nv, ws, &nw);
    if (!nv)
        return;
    matrix_table(f, an, time, vals, nv, ws, nw);
    matrix_families(f, an, time, vals, nv);
}

void st_write_paired_md(FILE *f, const st_analysis *an, double confidence) {
    if (!an->blocks)
        return;
    char m[32];
    snprintf(m, sizeof m, "%g%%", an->margin * 100);
    fprintf(f,
            "## Paired comparisons (blocked design)\n\n"
            "Each run of a cell is compared with the run of its baseline in the same block, seconds apart "
            "(docs/STATISTICS.md): the ratio is exp of the Hodges-Lehmann estimate of the per-block log-ratios "
            "log(cell / baseline), with an exact %g%% interval from its Walsh averages (fewer blocks than that "
            "needs, 6 at 95%%: a one-sample BCa interval over the blocks, * = percentile fallback). "
            "This is the whole run, start-up and fixed costs included. Verdicts: (+) slower and (-) faster when "
            "the interval excludes 1; (=) no effect above %s when the whole interval lies within +-%s; (?) not "
            "resolved otherwise. %zu blocks were used.\n\n",
            confidence * 100, m, m, an->blocks);
    size_t extended = 0;
    for (size_t i = 0; i < an->nresults; i++)
        extended += an->results[i].adaptive_rounds > 0;
    if (an->planned_rounds && an->rule == ST_RULE_TWO_STAGE)
        fprintf(f,
                "Adaptive rounds (sweep --halfwidth %g%%), the two-stage rule: each cell's blocks were decided once, "
                "from the interval of its %zu planned rounds (the pilot): enough for +-%g%% at the pilot's "
                "precision. Every paired interval is the pilot's (exact, from its Walsh averages; with fewer "
                "planned blocks than that needs, the bootstrap's widened by t / z as Stein's two-stage procedure "
                "asks: %.4f here) scaled by sqrt(pilot blocks / blocks) around the estimate of all the cell's blocks "
                "(docs/STATISTICS.md, \"Adaptive rounds: the two-stage rule\"). %zu cells were extended (column "
                "adaptive).\n\n",
                an->halfwidth * 100, an->planned_rounds, an->halfwidth * 100,
                st_stop_expansion(an->planned_rounds, confidence), extended);
    else if (an->planned_rounds)
        fprintf(f,
                "Adaptive rounds (sweep --halfwidth %g%%) by the sequential rule of sweeps before the two-stage "
                "rule: one more block while a cell's interval was wider than +-%g%%, after %zu planned rounds. "
                "%zu cells were extended (column adaptive); stopping when an interval happens to be narrow makes "
                "it too narrow, so their intervals cover less than their level (docs/STATISTICS.md, \"Adaptive "
                "rounds: the two-stage rule\", measures how much).\n\n",
                an->halfwidth * 100, an->halfwidth * 100, an->planned_rounds, extended);
    fputs("### A/A noise floor (paired)\n\n"
          "A/A blocks (two adjacent runs of the same baseline, one of them chosen at random to stand for the cell) "
          "analysed exactly like a cell, with as many blocks as each cell has.\n\n"
          "| baseline | blocks | A/A ratio | half-width (%) | floor (%) |\n|---|---|---|---|---|\n",
          f);
    for (size_t i = 0; i < an->nresults; i++) {
        const st_result *r = &an->results[i];
        if (!r->is_baseline)
            continue;
        char b[160], n[96], h[32], fl[32];
        double hw = r->paired.method != ST_CI_NONE ? (r->paired.hi - r->paired.lo) / 2 * 100 : NAN;
        fprintf(f, "| %s | %zu | %s | %s | %s |\n", baseline_name(n, sizeof n, r->cell), r->pairs,
                ci_text(b, sizeof b, &r->paired, 4), num_text(h, sizeof h, hw, "%.2f"),
                num_text(fl, sizeof fl, r->paired_floor * 100, "%.2f"));
    }
    fputc('\n', f);
    fprintf(f,
            "The worst workload at a setting is the largest of several noisy estimates and so biased upward; the "
            "tables below show every workload's interval instead, each at its own level. A claim about all the "
            "workloads of a setting at once (\"no effect above %s on every workload\") needs intervals that hold "
            "together: the family lines under each table read every workload's interval at 1 - %g/m (Bonferroni "
            "over the m workloads with an interval), so that all of a family's intervals, and so all its "
            "verdicts, hold together at the %g%% level. Paired intervals cover the %s.\n\n",
            m, 1 - confidence, confidence * 100, an->replicates > 1 ? "replicates" : "blocks of this sweep");
    write_matrix(f, an, 0);
    write_matrix(f, an, 1);
    /* A sweep with adaptive rounds gets a last column: the rounds each cell added and its rule. */
    int adaptive = an->planned_rounds > 0;
    fprintf(f,
            "### Per cell\n\n| cell | blocks | paired ratio | paired CPU ratio | normalized per 1000 samples/s | "
            "us/sample | verdict | unpaired ratio of medians |%s\n|---|---|---|---|---|---|---|---|%s\n",
            adaptive ? " adaptive |" : "", adaptive ? "---|" : "");
    for (size_t i = 0; i < an->nresults; i++) {
        const st_result *r = &an->results[i];
        char a[160], b[160], c[160], d[160], e[160], n[128], w[96], v[64];
        fprintf(f, "| %s/%s | %zu | %s | %s | %s | %s | %s | %s |", r->cell->workload, cell_name(n, sizeof n, r->cell),
                r->pairs, ci_text(a, sizeof a, &r->paired, 4), ci_text(b, sizeof b, &r->paired_cpu, 4),
                ci_text(c, sizeof c, &r->paired_norm, 4), ci_text(d, sizeof d, &r->paired_cost, 3),
                r->is_baseline ? "A/A" : st_verdict_text(r->pverdict, an->margin, v, sizeof v),
                r->is_baseline ? ci_text(e, sizeof e, &r->aa, 4) : ci_text(e, sizeof e, &r->overhead, 4));
        if (adaptive && r->adaptive_rounds)
            snprintf(w, sizeof w, " +%zu rounds, %s |", r->adaptive_rounds, st_paired_rule_name(an->rule));
        else
            snprintf(w, sizeof w, "%s", adaptive ? " planned rounds only |" : "");
        fprintf(f, "%s\n", w);
    }
    fputc('\n', f);
}

void st_write_noise_md(FILE *f, const st_analysis *an) {
    st_noise nz;
    st_noise_compute(an, &nz);
    char a[32], b[32], c[32], d[32], e[32];
    fputs("## Noise\n\nA run's residual is log(wall time) minus the median of its cell's (docs/STATISTICS.md, "
          "\"Noise\"); runs in execution order.\n\n",
          f);
    fprintf(f,
            "- Residuals: %zu runs, median |residual| %s%%, lag-1 autocorrelation %s (0 = independent runs; "
            "a large value means adjacent runs share their noise, which the blocked design exploits).\n",
            nz.nruns, num_text(a, sizeof a, nz.resid_mad * 100, "%.2f"), num_text(b, sizeof b, nz.lag1, "%.3f"));
    fprintf(f,
            "- Episodes (at least %d consecutive runs each more than %.0f%% slower than its cell's median): %zu, "
            "%zu runs",
            ST_NOISE_EPISODE_RUNS, ST_NOISE_EPISODE_SLOW * 100, nz.episodes, nz.episode_runs);
    for (size_t i = 0; i < nz.episodes && i < ST_NOISE_MAX_EPISODES; i++)
        fprintf(f, "%s runs %lld-%lld", i ? "," : ":", (long long)nz.ep_first[i], (long long)nz.ep_last[i]);
    fputs(".\n", f);
    if (nz.ncov)
        fprintf(f,
                "- Covariates (%zu runs): steal on the run's CPU median %s ms, max %s ms per run; the other CPUs "
                "busy %s of the run's wall time (median); involuntary context switches median %s, max %s; load "
                "average %s to %s. Correlation of the residual with the steal share %s, the other CPUs' busy "
                "share %s, the load %s.\n",
                nz.ncov, num_text(a, sizeof a, nz.steal_ms_med, "%.1f"), num_text(b, sizeof b, nz.steal_ms_max, "%.1f"),
                num_text(c, sizeof c, nz.busy_share_med, "%.2f"), num_text(d, sizeof d, nz.nivcsw_med, "%.0f"),
                num_text(e, sizeof e, nz.nivcsw_max, "%.0f"), num_text((char[32]){0}, 32, nz.load_min, "%.2f"),
                num_text((char[32]){0}, 32, nz.load_max, "%.2f"), num_text((char[32]){0}, 32, nz.corr_steal, "%.2f"),
                num_text((char[32]){0}, 32, nz.corr_busy, "%.2f"), num_text((char[32]){0}, 32, nz.corr_load, "%.2f"));
    else
        fputs("- Covariates: none recorded (a sweep from before they existed, or not from build/bin/sweep).\n", f);
    fputs("\n| baseline | runs | drift: last third / first third | bimodality coefficient | two modes? |\n"
          "|---|---|---|---|---|\n",
          f);
    for (size_t i = 0; i < nz.nbaselines; i++) {
        const st_noise_baseline *x = &nz.baselines[i];
        char n[96];
        fprintf(f, "| %s | %zu | %s | %s | %s |\n", baseline_name(n, sizeof n, x->r->cell), x->n,
                num_text(a, sizeof a, x->drift, "%.4f"), num_text(b, sizeof b, x->bimodality, "%.3f"),
                !isfinite(x->bimodality)    ? "n/a"
                : x->bimodality > 5.0 / 9.0 ? "likely"
                                            : "no sign");
    }
    fputc('\n', f);
    st_noise_free(&nz);
}

void st_write_levels_md(FILE *f, const st_analysis *an) {
    if (an->replicates < 2) {
        fputs("**Levels.** Every interval says what varies in it. The process-level tables (overhead, CPU overhead, "
              "normalized overhead, us/sample) resample this sweep's runs: level `processes`. The paired tables "
              "resample its blocks (a run and its adjacent baseline run): level `blocks`. The in-process section "
              "combines the processes of each cell (level `processes`, or `blocks` for a cell of one process). "
              "None of them covers what changes between sweeps (another hour, another calibration, other seeds): "
              "only replicates do (`sweep --replicates K`; docs/STATISTICS.md, \"Levels\"), so a claim finer "
              "than the between-sweep variation measured there needs them.\n\n",
              f);
        return;
    }
    fprintf(f,
            "**Levels.** This sweep holds %zu replicates (independent seeds, schedules, or nodes). Every interval "
            "of the process-level and paired tables below covers the replicates (level `replicates`): each "
            "replicate is analysed alone and the replicates' estimates are combined by a random-effects model, "
            "with the between-replicate variance of the cell itself (%d or more replicates) or pooled over its "
            "family (the workload's time-sampling cells, or its other cells) with a t reference on the family's "
            "degrees of freedom (docs/STATISTICS.md, \"Levels\"). Components, as standard deviations of the log of "
            "the ratio (0.01 = 1%%):\n\n"
            "| family | cells | replicates | between replicates, paired | within a replicate, paired (median) | "
            "between replicates, overhead | within a replicate, overhead (median) |\n|---|---|---|---|---|---|---|\n",
            an->replicates, ST_REP_OWN);
    char fam[256], f2[256];
    for (size_t i = 0; i < an->nresults; i++) {
        const st_result *r = &an->results[i];
        if (r->replicates < 2)
            continue;
        snprintf(fam, sizeof fam, "%s/%s", r->cell->workload, strcmp(r->cell->kind, "time") ? "other" : "time");
        int first = 1;
        for (size_t j = 0; j < i && first; j++) {
            const st_result *q = &an->results[j];
            snprintf(f2, sizeof f2, "%s/%s", q->cell->workload, strcmp(q->cell->kind, "time") ? "other" : "time");
            first = !(q->replicates >= 2 && !strcmp(fam, f2));
        }
        if (!first)
            continue;
        size_t cells = 0, reps = 0, np = 0, no = 0;
        double wp[512], wo[512];
        for (size_t j = i; j < an->nresults; j++) {
            const st_result *q = &an->results[j];
            snprintf(f2, sizeof f2, "%s/%s", q->cell->workload, strcmp(q->cell->kind, "time") ? "other" : "time");
            if (q->replicates < 2 || strcmp(fam, f2))
                continue;
            cells++;
            if (q->replicates > reps)
                reps = q->replicates;
            if (isfinite(q->rep_paired_within) && np < 512)
                wp[np++] = q->rep_paired_within;
            if (isfinite(q->rep_overhead_within) && no < 512)
                wo[no++] = q->rep_overhead_within;
        }
        char a[32], b[32], c[32], d[32];
        fprintf(f, "| %s | %zu | %zu | %s | %s | %s | %s |\n", fam, cells, reps,
                num_text(a, sizeof a, r->rep_paired_tau_family, "%.4f"),
                num_text(b, sizeof b, np ? st_median(wp, np) : NAN, "%.4f"),
                num_text(c, sizeof c, r->rep_overhead_tau_family, "%.4f"),
                num_text(d, sizeof d, no ? st_median(wo, no) : NAN, "%.4f"));
    }
    fputc('\n', f);
}
