/* thread_families.h - the push/pop stress shared by the sampler thread's
 * Criterion tests (test_thread.c) and its ThreadSanitizer driver
 * (thread_race.c), with the check that a sampled stack is one the program
 * can have. */
#ifndef THREAD_FAMILIES_H
#define THREAD_FAMILIES_H

#include <stdio.h>
#include <string.h>

#include "sgc_internal.h"
#include "sgc_profread.h"

/* Two families of functions, a1..aD and b1..bD.  walk(d, fam) runs in the
 * frame of family fam at depth d and calls only its own family one level
 * deeper, so every stack the program ever has is: the root frame, then
 * fam1, fam2, ..., famk of ONE family, at consecutive depths.  The stress
 * alternates the families on the same stack addresses as fast as it can, so
 * a copy that mixed a frame read before a pop with one pushed after it would
 * show up as a mixed or misnumbered stack. */
#define FAMILY_DEPTH 40
static sgc_func fam_fn[2][FAMILY_DEPTH + 1];
static char fam_names[2][FAMILY_DEPTH + 1][8];
static sgc_func f_root = {"root", 0};
static uint32_t T_CELL;
static volatile uint64_t fam_sink;

__attribute__((unused)) static void walk(int d, int fam) {
    sgc_obj cell = NULL;
    SGC_FRAME_FN(&fam_fn[fam][d], &cell);
    if (d % 4 == 0)
        cell = sgc_alloc(T_CELL, 16); /* nursery fills: collections and drains interleave */
    if (d < FAMILY_DEPTH) {
        walk(d + 1, fam);
        if (d % 8 == 0)
            walk(d + 1, fam);
    }
    fam_sink += (uint64_t)(uintptr_t)cell;
}

__attribute__((unused)) static void setup_families(void) {
    for (int fam = 0; fam < 2; fam++)
        for (int d = 1; d <= FAMILY_DEPTH; d++) {
            snprintf(fam_names[fam][d], sizeof fam_names[fam][d], "%c%d", fam ? 'b' : 'a', d);
            fam_fn[fam][d].name = fam_names[fam][d];
            fam_fn[fam][d].id = 0;
        }
    sgc_type t = {"cell", 16, 0, SGC_VAR_NONE};
    T_CELL = sgc_type_register(&t);
}

/* 1 if the sampled stack is one the program can have, else 0 (and says
 * why). */
static int valid_stack(sgc_pr_reader *r, uint32_t node, char *why, size_t whylen) {
    const char *names[FAMILY_DEPTH + 8];
    int n = 0;
    for (; node; node = r->node_parent[node]) {
        if (n == FAMILY_DEPTH + 8) {
            snprintf(why, whylen, "deeper than any stack of the program");
            return 0;
        }
        names[n++] = sgc_pr_string(r, r->node_func[node]);
    }
    if (n == 0 || strcmp(names[n - 1], "root") != 0) {
        snprintf(why, whylen, "bottom frame is %s, not root", n ? names[n - 1] : "(none)");
        return 0;
    }
    char fam = 0;
    for (int i = n - 2, depth = 1; i >= 0; i--, depth++) {
        char expect[8];
        if (!fam)
            fam = names[i][0];
        snprintf(expect, sizeof expect, "%c%d", fam, depth);
        if (strcmp(names[i], expect) != 0) {
            snprintf(why, whylen, "frame %d is %s where the program could only have %s", depth, names[i], expect);
            return 0;
        }
    }
    return 1;
}

#endif /* THREAD_FAMILIES_H */
