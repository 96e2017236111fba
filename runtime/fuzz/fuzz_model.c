/* fuzz_model.c - the reference model of the sampling rule (see fuzz_model.h). */
#include <stdio.h>
#include <stdlib.h>
#include "fuzz_model.h"

void model_init(model *m, model_resolved_fn resolved, void *ctx) {
    *m = (model){0};
    m->resolved = resolved;
    m->ctx = ctx;
}

void model_free(model *m) {
    free(m->pending);
    m->pending = NULL;
    m->npending = m->cap = 0;
}

static void resolve_all(model *m, int known) {
    for (size_t i = 0; i < m->npending; i++) {
        int survival = known ? (m->pending[i].kept ? SGC_SURVIVED : SGC_DIED) : SGC_SURVIVAL_UNKNOWN;
        if (m->resolved)
            m->resolved(m->ctx, m->pending[i].id, survival);
    }
    m->npending = 0;
}

void model_stop(model *m) {
    resolve_all(m, 0);
    m->period = 0;
}

void model_start(model *m, uint64_t period, int mode, uint64_t seed) {
    model_stop(m);
    if (!period)
        return;
    m->period = period;
    m->mode = mode;
    m->bytes = 0;
    if (mode == SGC_SAMPLE_POISSON) {
        sgc__sample_rng_seed(&m->rng, seed);
        m->next_point = sgc__sample_poisson_gap(&m->rng, period);
    }
}

uint64_t model_alloc(model *m, uint64_t size, uint64_t id, int kept) {
    if (!m->period)
        return 0;
    uint64_t n;
    uint64_t b = m->bytes, e = m->bytes + size;
    if (m->mode == SGC_SAMPLE_FIXED) {
        n = e / m->period - b / m->period;
    } else {
        n = 0;
        while (m->next_point <= e) { /* sample points among b+1 .. e */
            n++;
            m->next_point += sgc__sample_poisson_gap(&m->rng, m->period);
        }
    }
    m->bytes = e;
    m->total_bytes += size;
    m->total_points += n;
    if (n) {
        m->total_sampled++;
        if (m->npending == m->cap) {
            m->cap = m->cap ? 2 * m->cap : 64;
            m->pending = realloc(m->pending, m->cap * sizeof *m->pending);
            if (!m->pending) {
                fprintf(stderr, "model: out of memory\n");
                abort();
            }
        }
        m->pending[m->npending++] = (model_pending){id, kept};
    }
    return n;
}

void model_minor(model *m) { resolve_all(m, 1); }
