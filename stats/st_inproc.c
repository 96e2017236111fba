/* st_inproc.c - the in-process estimator (invariants: st_inproc.h). */
#include "st_inproc.h"
#include "st_desc.h"
#include "st_util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Orders segments by run, block, position (so a block's four are adjacent). */
static int cmp_seg(const void *a, const void *b)
{
    const st_seg *x = *(const st_seg *const *)a, *y = *(const st_seg *const *)b;
    if (x->run != y->run)
        return (x->run > y->run) - (x->run < y->run);
    if (x->block != y->block)
        return (x->block > y->block) - (x->block < y->block);
    return (x->pos > y->pos) - (x->pos < y->pos);
}

/* Is g[0..3] one complete block? */
static int complete_block(const st_seg *const *g)
{
    int na = 0, nb = 0;
    for (int k = 0; k < 4; k++) {
        if (g[k]->run != g[0]->run || g[k]->block != g[0]->block || g[k]->pos != k || !g[k]->complete)
            return 0;
        na += g[k]->kind == 'A';
        nb += g[k]->kind == 'B';
    }
    return na == 2 && nb == 2;
}

void st_inproc_blocks(const st_seg *segs, size_t n, st_blocks *out)
{
    memset(out, 0, sizeof *out);
    const st_seg **s = st_xmalloc((n ? n : 1) * sizeof *s);
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (segs[i].block >= 1)
            s[m++] = &segs[i];
    qsort(s, m, sizeof *s, cmp_seg);

    /* Complete blocks start where four in a row form one; anything else
     * (a block cut by the exit, a missing segment) is skipped whole. */
    const st_seg ***blocks = st_xmalloc((m / 4 + 1) * sizeof *blocks);
    size_t nb = 0, i = 0;
    int all_iter = 1;
    while (i < m) {
        size_t j = i;
        while (j < m && s[j]->run == s[i]->run && s[j]->block == s[i]->block)
            j++;
        if (j - i == 4 && complete_block(&s[i])) {
            blocks[nb++] = &s[i];
            for (size_t k = i; k < j; k++)
                if (!(s[k]->iterations > 0))
                    all_iter = 0;
        } else {
            out->skipped++;
        }
        i = j;
    }
    out->work_iterations = nb > 0 && all_iter;
    out->log_ratio = st_xmalloc((nb ? nb : 1) * sizeof(double));
    out->sps = st_xmalloc((nb ? nb : 1) * sizeof(double));
    int64_t last_run = 0;
    for (size_t b = 0; b < nb; b++) {
        double cpu[2] = {0, 0}, work[2] = {0, 0}, samples_b = 0;
        for (int k = 0; k < 4; k++) {
            const st_seg *g = blocks[b][k];
            int isb = g->kind == 'B';
            cpu[isb] += g->cpu_ns;
            work[isb] += out->work_iterations ? g->iterations : g->bytes;
            if (isb)
                samples_b += g->samples;
        }
        if (!(work[0] > 0 && work[1] > 0 && cpu[0] > 0 && cpu[1] > 0)) {
            out->skipped++;
            continue;
        }
        if (out->n == 0 || blocks[b][0]->run != last_run)
            out->runs++;
        last_run = blocks[b][0]->run;
        out->log_ratio[out->n] = log((cpu[1] / work[1]) / (cpu[0] / work[0]));
        out->sps[out->n] = samples_b / (cpu[1] / 1e9);
        out->n++;
    }
    free(blocks);
    free(s);
}

void st_blocks_free(st_blocks *b)
{
    free(b->log_ratio);
    free(b->sps);
    memset(b, 0, sizeof *b);
}

/* Statistics of the medians m[0] = median r, m[1] = median s. */
static double stat_ratio(const double *m, const double *m0)
{
    (void)m0;
    return exp(m[0]);
}

static double stat_cost(const double *m, const double *m0)
{
    (void)m0;
    return (1.0 - exp(-m[0])) * 1e9 / m[1]; /* NaN or inf when no samples: no interval */
}

static double stat_norm(const double *m, const double *m0)
{
    (void)m0;
    return 1.0 + (exp(m[0]) - 1.0) * 1000.0 / m[1];
}

void st_inproc_estimate(const st_seg *segs, size_t n, const st_boot_opts *opts, st_inproc *out)
{
    memset(out, 0, sizeof *out);
    st_inproc_blocks(segs, n, &out->blocks);
    const st_blocks *b = &out->blocks;
    st_sample s1 = {b->n, {b->log_ratio, b->sps}};
    const st_stat stats[3] = {{stat_ratio, 0}, {stat_cost, 0}, {stat_norm, 0}};
    st_interval iv[3];
    st_bootstrap(&s1, NULL, stats, 3, opts, iv);
    out->ratio = iv[0];
    out->cost_ns = iv[1];
    out->norm = iv[2];
    out->sps = b->n ? st_median(b->sps, b->n) : NAN;
    out->sd_log = NAN;
    if (b->n >= 2) {
        double mean = 0, ss = 0;
        for (size_t i = 0; i < b->n; i++)
            mean += b->log_ratio[i];
        mean /= (double)b->n;
        for (size_t i = 0; i < b->n; i++)
            ss += (b->log_ratio[i] - mean) * (b->log_ratio[i] - mean);
        out->sd_log = sqrt(ss / (double)(b->n - 1));
    }
}

void st_inproc_free(st_inproc *e)
{
    st_blocks_free(&e->blocks);
}

/* ---- Reading a series file ------------------------------------------------ */

#include <errno.h>
#include <stdio.h>

#define MAX_COLS 32

int st_inproc_read_series(const char *path, int64_t run, st_seg **segs, size_t *n, char *err, size_t errlen)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, errlen, "%s: cannot read the segment series: %s", path, strerror(errno));
        return -1;
    }
    char line[1024];
    char cols[MAX_COLS][24];
    int ncols = 0, lineno = 0, use_alloc = 1, use_time = 1, have_trailer = 0;
    long long declared = -1;
    size_t start = *n, cap = *n;
    int rc = -1;
    if (!fgets(line, sizeof line, f) || strcmp(line, "sgc-segments 1\n") != 0) {
        snprintf(err, errlen, "%s: not a segment series (first line is not 'sgc-segments 1')", path);
        goto out;
    }
    lineno = 1;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        if (have_trailer) {
            snprintf(err, errlen, "%s line %d: text after the 'segments' line", path, lineno);
            goto out;
        }
        if (strncmp(line, "alternate ", 10) == 0) {
            use_alloc = strcmp(line + 10, "time\n") != 0;
            use_time = strcmp(line + 10, "alloc\n") != 0;
        } else if (strncmp(line, "columns ", 8) == 0) {
            ncols = 0;
            for (char *save, *tok = strtok_r(line + 8, " \n", &save); tok; tok = strtok_r(NULL, " \n", &save)) {
                if (ncols == MAX_COLS || strlen(tok) >= sizeof cols[0]) {
                    snprintf(err, errlen, "%s line %d: too many or too long column names", path, lineno);
                    goto out;
                }
                strcpy(cols[ncols++], tok);
            }
        } else if (strncmp(line, "seg ", 4) == 0) {
            if (!ncols) {
                snprintf(err, errlen, "%s line %d: a segment before the 'columns' line", path, lineno);
                goto out;
            }
            st_seg g = {.run = run, .block = -1, .pos = -1};
            double alloc_samples = NAN, time_samples = NAN;
            int got = 0;
            char *save, *tok = strtok_r(line + 4, " \n", &save);
            for (int c = 0; c < ncols; c++, tok = strtok_r(NULL, " \n", &save)) {
                if (!tok) {
                    snprintf(err, errlen, "%s line %d: %d fields, the columns line names %d", path, lineno, c, ncols);
                    goto out;
                }
                const char *name = cols[c];
                if (!strcmp(name, "kind")) {
                    if (strcmp(tok, "A") && strcmp(tok, "B")) {
                        snprintf(err, errlen, "%s line %d: kind '%s' is not A or B", path, lineno, tok);
                        goto out;
                    }
                    g.kind = tok[0];
                    got++;
                    continue;
                }
                if (!strcmp(name, "end")) {
                    g.complete = strcmp(tok, "exit") != 0;
                    got++;
                    continue;
                }
                char *endp;
                errno = 0;
                double v = strtod(tok, &endp);
                if (*endp || errno || !(v >= 0)) {
                    snprintf(err, errlen, "%s line %d: %s '%s' is not a non-negative number", path, lineno, name, tok);
                    goto out;
                }
                if (!strcmp(name, "block"))
                    g.block = (int64_t)v, got++;
                else if (!strcmp(name, "pos"))
                    g.pos = (int)v, got++;
                else if (!strcmp(name, "cpu_ns"))
                    g.cpu_ns = v, got++;
                else if (!strcmp(name, "bytes"))
                    g.bytes = v, got++;
                else if (!strcmp(name, "iterations"))
                    g.iterations = v, got++;
                else if (!strcmp(name, "alloc_samples"))
                    alloc_samples = v, got++;
                else if (!strcmp(name, "time_samples"))
                    time_samples = v, got++;
            }
            if (tok) {
                snprintf(err, errlen, "%s line %d: more fields than the columns line names", path, lineno);
                goto out;
            }
            if (got != 9) {
                snprintf(err, errlen, "%s: the columns line lacks one of block pos kind end cpu_ns bytes "
                                      "iterations alloc_samples time_samples", path);
                goto out;
            }
            g.samples = (use_alloc ? alloc_samples : 0) + (use_time ? time_samples : 0);
            if (*n == cap) {
                cap = cap ? cap * 2 : 256;
                *segs = st_xrealloc(*segs, cap * sizeof **segs);
            }
            (*segs)[(*n)++] = g;
        } else if (sscanf(line, "segments %lld", &declared) == 1) {
            have_trailer = 1;
        }
    }
    if (ferror(f)) {
        snprintf(err, errlen, "%s: read error: %s", path, strerror(errno));
        goto out;
    }
    if (!have_trailer || declared != (long long)(*n - start)) {
        snprintf(err, errlen, "%s: incomplete segment series: %s", path,
                 have_trailer ? "the 'segments' count differs from the segment lines" : "no 'segments N' line at the end");
        goto out;
    }
    rc = 0;
out:
    if (rc)
        *n = start;
    fclose(f);
    return rc;
}
