/* ip_ref.c - expected checksums of the built-in guest programs, without the interpreter. */
#include "ip_ref.h"

#include <math.h>
#include "../wl_common.h"

/* pystone.sgl.  Every iteration of Proc0's loop ends in the same state
 * (Dhrystone is built that way): Proc7(2, 3) = 7 leaves IntLoc1 = 3, so
 * IntLoc3 = 3 * 3 = 9, IntLoc2 = 7 * (9 - 3) - 3 = 39, and Proc2(3)
 * returns 13 - 1 - IntGlob (5) = 7; EnumLoc stays Ident2 because
 * Func1('A', 'C') and Func1('B', 'C') are Ident1; Func2 returns FALSE
 * ('1' < '2'), so BoolGlob = not FALSE; Proc1's new record gets
 * IntComp Proc7(6, 10) = 18 and EnumComp Proc6(Ident3) = Ident2; Proc8
 * increments Array2Glob[8][7] from 10 once per iteration.  At the end:
 * IntGlob 5, Char1Glob 'A', Char2Glob 'B', Array1Glob[8] = [9] = 7,
 * [38] = 8, Array2Glob[8][8] = 8, [28][8] = 7, PtrGlb's IntComp
 * Proc7(10, 5) = 17, Discr Ident1, EnumComp Ident3, and its StringComp has
 * 30 characters. */
uint64_t ip_ref_pystone(int64_t loops) {
    wl_checksum c = WL_CHECKSUM_INIT;
    for (int64_t i = 0; i < loops; i++) {
        wl_mix(&c, 7);                      /* IntLoc1 */
        wl_mix(&c, 39);                     /* IntLoc2 */
        wl_mix(&c, 9);                      /* IntLoc3 */
        wl_mix(&c, 2);                      /* EnumLoc */
        wl_mix(&c, 1);                      /* BoolGlob */
        wl_mix(&c, (uint64_t)(10 + i + 1)); /* Array2Glob[8][7] */
        wl_mix(&c, 18);                     /* PtrGlb.PtrComp.IntComp */
    }
    static const uint64_t final[] = {5, 1, 'A', 'B', 7, 7, 8, 0 /* Array2Glob[8][7] */, 8, 7, 17, 1, 3, 18, 2, 30};
    for (unsigned k = 0; k < sizeof final / sizeof final[0]; k++)
        wl_mix(&c, k == 7 ? (uint64_t)(10 + loops) : final[k]);
    return wl_checksum_value(&c);
}

/* richards.sgl.  Every run starts from the same task set, so each ends with
 * the benchmark's published counts. */
uint64_t ip_ref_richards(int64_t runs) {
    wl_checksum c = WL_CHECKSUM_INIT;
    for (int64_t i = 0; i < runs; i++) {
        wl_mix(&c, 23246); /* qpktcount */
        wl_mix(&c, 9297);  /* holdcount */
    }
    return wl_checksum_value(&c);
}

/* nbody.sgl: the same simulation in plain C, every operation in the guest's
 * order (so the doubles agree bit for bit). */
typedef struct nb_body {
    double x, y, z, vx, vy, vz, mass;
} nb_body;

#define NB_PI 3.14159265358979323
#define NB_SOLAR_MASS (4 * NB_PI * NB_PI)
#define NB_DAYS 365.24

static double nb_energy(const nb_body *b, int n) {
    double e = 0.0;
    for (int i = 0; i < n; i++) {
        e = e + 0.5 * b[i].mass * (b[i].vx * b[i].vx + b[i].vy * b[i].vy + b[i].vz * b[i].vz);
        for (int j = i + 1; j < n; j++) {
            double dx = b[i].x - b[j].x, dy = b[i].y - b[j].y, dz = b[i].z - b[j].z;
            e = e - (b[i].mass * b[j].mass) / sqrt(dx * dx + dy * dy + dz * dz);
        }
    }
    return e;
}

uint64_t ip_ref_nbody(int64_t steps) {
    static const double init[5][7] = {
        {0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0},
        {4.84143144246472090e+00, -1.16032004402742839e+00, -1.03622044471123109e-01, 1.66007664274403694e-03,
         7.69901118419740425e-03, -6.90460016972063023e-05, 9.54791938424326609e-04},
        {8.34336671824457987e+00, 4.12479856412430479e+00, -4.03523417114321381e-01, -2.76742510726862411e-03,
         4.99852801234917238e-03, 2.30417297573763929e-05, 2.85885980666130812e-04},
        {1.28943695621391310e+01, -1.51111514016986312e+01, -2.23307578892655734e-01, 2.96460137564761618e-03,
         2.37847173959480950e-03, -2.96589568540237556e-05, 4.36624404335156298e-05},
        {1.53796971148509165e+01, -2.59193146099879641e+01, 1.79258772950371181e-01, 2.68067772490389322e-03,
         1.62824170038242295e-03, -9.51592254519715870e-05, 5.15138902046611451e-05}};
    /* volatile: the guest computes 4 * PI * PI at run time, left to right */
    volatile double pi = NB_PI;
    double solar = 4 * pi;
    solar = solar * pi;
    nb_body b[5];
    for (int i = 0; i < 5; i++) {
        b[i].x = init[i][0];
        b[i].y = init[i][1];
        b[i].z = init[i][2];
        b[i].vx = init[i][3] * NB_DAYS;
        b[i].vy = init[i][4] * NB_DAYS;
        b[i].vz = init[i][5] * NB_DAYS;
        b[i].mass = init[i][6] * solar;
    }
    double px = 0.0, py = 0.0, pz = 0.0;
    for (int i = 0; i < 5; i++) {
        px = px + b[i].vx * b[i].mass;
        py = py + b[i].vy * b[i].mass;
        pz = pz + b[i].vz * b[i].mass;
    }
    b[0].vx = -px / solar;
    b[0].vy = -py / solar;
    b[0].vz = -pz / solar;

    wl_checksum c = WL_CHECKSUM_INIT;
    wl_mix_double(&c, nb_energy(b, 5));
    const double dt = 0.01;
    for (int64_t s = 0; s < steps; s++) {
        for (int i = 0; i < 5; i++) {
            for (int j = i + 1; j < 5; j++) {
                double dx = b[i].x - b[j].x, dy = b[i].y - b[j].y, dz = b[i].z - b[j].z;
                double d2 = dx * dx + dy * dy + dz * dz;
                double mag = dt / (d2 * sqrt(d2));
                double b2m = b[j].mass * mag;
                double bm = b[i].mass * mag;
                b[i].vx = b[i].vx - dx * b2m;
                b[i].vy = b[i].vy - dy * b2m;
                b[i].vz = b[i].vz - dz * b2m;
                b[j].vx = b[j].vx + dx * bm;
                b[j].vy = b[j].vy + dy * bm;
                b[j].vz = b[j].vz + dz * bm;
            }
        }
        for (int i = 0; i < 5; i++) {
            b[i].x = b[i].x + dt * b[i].vx;
            b[i].y = b[i].y + dt * b[i].vy;
            b[i].z = b[i].z + dt * b[i].vz;
        }
    }
    wl_mix_double(&c, nb_energy(b, 5));
    for (int i = 0; i < 5; i++) {
        wl_mix_double(&c, b[i].x);
        wl_mix_double(&c, b[i].y);
        wl_mix_double(&c, b[i].z);
        wl_mix_double(&c, b[i].vx);
        wl_mix_double(&c, b[i].vy);
        wl_mix_double(&c, b[i].vz);
    }
    return wl_checksum_value(&c);
}
