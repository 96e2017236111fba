/* fuzz_model.h - an independent reference model of the sampling rule, for the
 * fuzzer, sgc-replay's tests and the unit tests.
 *
 * The model is written from the rule of docs/DESIGN.md, not from the runtime: it keeps
 * the absolute byte count B of the current session and, in fixed mode, counts
 * samples with the closed form floor((B+s)/P) - floor(B/P); in poisson mode it
 * keeps the absolute byte count of the next sample point.  It knows nothing
 * of nurseries, limits or distances.  The only thing it shares with the
 * runtime is the poisson gap generator (sgc__sample_poisson_gap), whose
 * distribution the statistics tests check on their own.
 *
 * Survival: every sampled object is pending until the next minor collection
 * (model_minor), where it survived iff it was kept; stopping or restarting
 * sampling makes the pending ones unknown.  Each resolution is reported, in
 * allocation order, through the callback given to model_init.
 */
#ifndef FUZZ_MODEL_H
#define FUZZ_MODEL_H

#include <stddef.h>
#include <stdint.h>
#include "sgc_sample.h"

/* Called once per sampled object when its fate is settled: survival is an
 * enum sgc_survival. */
typedef void (*model_resolved_fn)(void *ctx, uint64_t id, int survival);

typedef struct model_pending {
    uint64_t id; /* the caller's name for the object */
    int kept;    /* reachable until the end */
} model_pending;

typedef struct model {
    uint64_t period;            /* 0 = off */
    int mode;                   /* SGC_SAMPLE_FIXED or SGC_SAMPLE_POISSON */
    uint64_t bytes;             /* B: bytes allocated in this session */
    uint64_t next_point;        /* poisson: absolute byte count of the next sample point */
    sgc_sample_rng rng;         /* poisson gaps */
    uint64_t total_bytes;       /* bytes allocated while sampling, all sessions */
    uint64_t total_points;      /* sample points, all sessions */
    uint64_t total_sampled;     /* sampled objects, all sessions */
    model_pending *pending;     /* sampled objects awaiting a minor collection */
    size_t npending, cap;       /* used / allocated entries */
    model_resolved_fn resolved; /* or NULL */
    void *ctx;                  /* for resolved */
} model;

void model_init(model *m, model_resolved_fn resolved, void *ctx);
void model_free(model *m);
/* (Re)starts a session (period 0: stops). */
void model_start(model *m, uint64_t period, int mode, uint64_t seed);
void model_stop(model *m);
/* An allocation of footprint size: returns the samples it takes; a sampled
 * object becomes pending under id. */
uint64_t model_alloc(model *m, uint64_t size, uint64_t id, int kept);
/* A minor collection: resolves every pending object. */
void model_minor(model *m);

#endif /* FUZZ_MODEL_H */
