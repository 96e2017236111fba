/* compute.c - an allocation-light numeric kernel: the Benchmarks Game's n-body.
 *
 * What it models: CPU-bound code that allocates almost nothing - numeric
 * kernels, simulations, inner loops over existing data.  A time sampler
 * sees it like any other program; an allocation sampler barely does, which
 * is the contrast the paper draws between the two kinds of profiler (its
 * pystone run is the nearest of its benchmarks: little allocation per unit
 * of work).  The five bodies (Sun, Jupiter, Saturn, Uranus, Neptune) are
 * runtime objects in a runtime array; every 1000 steps an EnergySample
 * record is appended to a history list, the only allocation in the loop.
 *
 * Scaling: --size N advances the system N*1000 steps of dt = 0.01 (linear).
 *
 * Checksum: the energy before and after, every recorded energy, and the
 * final positions and velocities, as exact bit patterns.  The reference is
 * the same simulation on a plain C array with the same arithmetic in the
 * same order, so it agrees bit for bit (no reassociation is allowed without
 * -ffast-math, which freecheck never uses).
 */
#include <math.h>
#include <stdlib.h>
#include "wl_common.h"

enum { NBODIES = 5, STEPS_PER_SAMPLE = 1000 };

#define PI 3.141592653589793
#define SOLAR_MASS (4 * PI * PI)
#define DAYS_PER_YEAR 365.24

typedef struct Body {
    double x, y, z, vx, vy, vz, mass;
} Body;

typedef struct BodyArray {
    Body *bodies[NBODIES];
} BodyArray;

typedef struct EnergySample {
    struct EnergySample *previous; /* the sample before this one */
    int64_t step;                  /* steps done when it was taken */
    double energy;                 /* the system's energy then */
} EnergySample;

static uint32_t t_body, t_body_array, t_energy_sample;

static const Body initial[NBODIES] = {
    {0, 0, 0, 0, 0, 0, SOLAR_MASS},
    {4.84143144246472090e+00, -1.16032004402742839e+00, -1.03622044471123109e-01,
     1.66007664274403694e-03 * DAYS_PER_YEAR, 7.69901118419740425e-03 * DAYS_PER_YEAR,
     -6.90460016972063023e-05 * DAYS_PER_YEAR, 9.54791938424326609e-04 * SOLAR_MASS},
    {8.34336671824457987e+00, 4.12479856412430479e+00, -4.03523417114321381e-01,
     -2.76742510726862411e-03 * DAYS_PER_YEAR, 4.99852801234917238e-03 * DAYS_PER_YEAR,
     2.30417297573763929e-05 * DAYS_PER_YEAR, 2.85885980666130812e-04 * SOLAR_MASS},
    {1.28943695621391310e+01, -1.51111514016986312e+01, -2.23307578892655734e-01,
     2.96460137564761618e-03 * DAYS_PER_YEAR, 2.37847173959480950e-03 * DAYS_PER_YEAR,
     -2.96589568540237556e-05 * DAYS_PER_YEAR, 4.36624404335156298e-05 * SOLAR_MASS},
    {1.53796971148509165e+01, -2.59193146099879641e+01, 1.79258772950371181e-01,
     2.68067772490389322e-03 * DAYS_PER_YEAR, 1.62824170038242295e-03 * DAYS_PER_YEAR,
     -9.51592254519715870e-05 * DAYS_PER_YEAR, 5.15138902046611451e-05 * SOLAR_MASS},
};

/* The kernel, written once over an array of body pointers so the workload
 * (runtime objects) and the reference (plain C) run the same instructions. */
static void advance_bodies(Body *const b[NBODIES], double dt) {
    for (int i = 0; i < NBODIES; i++) {
        Body *bi = b[i];
        for (int j = i + 1; j < NBODIES; j++) {
            Body *bj = b[j];
            double dx = bi->x - bj->x, dy = bi->y - bj->y, dz = bi->z - bj->z;
            double d2 = dx * dx + dy * dy + dz * dz;
            double mag = dt / (d2 * sqrt(d2));
            bi->vx -= dx * bj->mass * mag;
            bi->vy -= dy * bj->mass * mag;
            bi->vz -= dz * bj->mass * mag;
            bj->vx += dx * bi->mass * mag;
            bj->vy += dy * bi->mass * mag;
            bj->vz += dz * bi->mass * mag;
        }
    }
    for (int i = 0; i < NBODIES; i++) {
        b[i]->x += dt * b[i]->vx;
        b[i]->y += dt * b[i]->vy;
        b[i]->z += dt * b[i]->vz;
    }
}

static double energy_of(Body *const b[NBODIES]) {
    double e = 0.0;
    for (int i = 0; i < NBODIES; i++) {
        e += 0.5 * b[i]->mass * (b[i]->vx * b[i]->vx + b[i]->vy * b[i]->vy + b[i]->vz * b[i]->vz);
        for (int j = i + 1; j < NBODIES; j++) {
            double dx = b[i]->x - b[j]->x, dy = b[i]->y - b[j]->y, dz = b[i]->z - b[j]->z;
            e -= (b[i]->mass * b[j]->mass) / sqrt(dx * dx + dy * dy + dz * dz);
        }
    }
    return e;
}

static void offset_momentum(Body *const b[NBODIES]) {
    double px = 0, py = 0, pz = 0;
    for (int i = 0; i < NBODIES; i++) {
        px += b[i]->vx * b[i]->mass;
        py += b[i]->vy * b[i]->mass;
        pz += b[i]->vz * b[i]->mass;
    }
    b[0]->vx = -px / SOLAR_MASS;
    b[0]->vy = -py / SOLAR_MASS;
    b[0]->vz = -pz / SOLAR_MASS;
}

/* Mixes the energy record and final state; shared by workload and reference. */
static void mix_state(wl_checksum *sum, Body *const b[NBODIES]) {
    for (int i = 0; i < NBODIES; i++) {
        wl_mix_double(sum, b[i]->x);
        wl_mix_double(sum, b[i]->y);
        wl_mix_double(sum, b[i]->z);
        wl_mix_double(sum, b[i]->vx);
        wl_mix_double(sum, b[i]->vy);
        wl_mix_double(sum, b[i]->vz);
    }
}

static BodyArray *make_system(void) {
    BodyArray *system = NULL;
    Body *body = NULL;
    SGC_FRAME(&system, &body);
    system = SGC_NEW(t_body_array, BodyArray);
    for (int i = 0; i < NBODIES; i++) {
        body = SGC_NEW(t_body, Body);
        *body = initial[i];
        SGC_SET(system, bodies[i], body);
    }
    return system;
}

/* Runs steps steps, recording the energy every STEPS_PER_SAMPLE; returns the
 * history list, newest first.  No allocation happens inside advance_bodies,
 * so the raw body pointers copied out of the array stay valid there. */
static EnergySample *simulate(BodyArray *system, int64_t steps) {
    EnergySample *history = NULL, *sample = NULL;
    SGC_FRAME(&system, &history, &sample);
    for (int64_t s = 1; s <= steps; s++) {
        advance_bodies(system->bodies, 0.01);
        wl_iteration(); /* a step: this workload's unit of work, and a safe point */
        if (s % STEPS_PER_SAMPLE == 0) {
            sample = SGC_NEW(t_energy_sample, EnergySample);
            sample->previous = history;
            sample->step = s;
            sample->energy = energy_of(system->bodies);
            sgc_write_barrier(sample);
            history = sample;
        }
    }
    return history;
}

static void compute(int64_t steps, wl_checksum *sum) {
    BodyArray *system = NULL;
    EnergySample *history = NULL;
    SGC_FRAME(&system, &history);
    system = make_system();
    offset_momentum(system->bodies);
    wl_mix_double(sum, energy_of(system->bodies));
    history = simulate(system, steps);
    for (EnergySample *e = history; e; e = e->previous) {
        wl_mix(sum, (uint64_t)e->step);
        wl_mix_double(sum, e->energy);
    }
    wl_mix_double(sum, energy_of(system->bodies));
    mix_state(sum, system->bodies);
}

static uint64_t expected(const wl_run *run) {
    int64_t steps = run->size * 1000;
    Body *storage = wl_xmalloc(sizeof(Body) * NBODIES);
    Body *b[NBODIES];
    for (int i = 0; i < NBODIES; i++) {
        storage[i] = initial[i];
        b[i] = &storage[i];
    }
    int64_t nsamples = steps / STEPS_PER_SAMPLE;
    double *energies = wl_xcalloc((size_t)nsamples + 1, sizeof(double));
    wl_checksum sum = WL_CHECKSUM_INIT;
    offset_momentum(b);
    wl_mix_double(&sum, energy_of(b));
    for (int64_t s = 1; s <= steps; s++) {
        advance_bodies(b, 0.01);
        if (s % STEPS_PER_SAMPLE == 0)
            energies[s / STEPS_PER_SAMPLE] = energy_of(b);
    }
    for (int64_t k = nsamples; k >= 1; k--) { /* the history is newest first */
        wl_mix(&sum, (uint64_t)(k * STEPS_PER_SAMPLE));
        wl_mix_double(&sum, energies[k]);
    }
    wl_mix_double(&sum, energy_of(b));
    mix_state(&sum, b);
    free(energies);
    free(storage);
    return wl_checksum_value(&sum);
}

int main(int argc, char **argv) {
    static const wl_spec spec = {
        .name = "compute",
        .summary = "n-body simulation: numeric work with almost no allocation",
        .default_size = 2000,
        .min_size = 1,
        .max_size = (int64_t)1 << 32,
        .size_help = "thousands of simulation steps",
    };
    wl_run run = wl_start(&spec, argc, argv);
    t_body = wl_type("NBody.Body", sizeof(Body), 0, SGC_VAR_NONE);
    t_body_array = wl_type("NBody.BodyArray", sizeof(BodyArray), (1u << NBODIES) - 1, SGC_VAR_NONE);
    t_energy_sample = wl_type("NBody.EnergySample", sizeof(EnergySample), WL_PTR(EnergySample, previous), SGC_VAR_NONE);
    wl_checksum sum = WL_CHECKSUM_INIT;
    compute(run.size * 1000, &sum);
    return wl_finish(&run, &sum, expected);
}
