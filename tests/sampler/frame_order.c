/* frame_order.c - call sites of sgc_frame_push/sgc_frame_pop whose machine
 * code tests/sampler/frame_order_check.sh inspects: each shape gives the
 * compiler's scheduler a different reason to move the pop's stores (a load
 * of the parent to hide, global stores after the pop as in an interpreter's
 * call path, several frames popped in a row, early returns, loops, a push
 * right after a pop, recursion, a frame overlapped by later locals).  Never
 * run; compiled at -O2 and -O3 with every compiler that builds it. */
#include "sgc.h"

/* Defined nowhere: the object is only compiled and disassembled, never
 * linked, so calls to these stay calls. */
extern sgc_obj fo_work(sgc_obj x);
extern int fo_cond(int x);
extern void fo_use(void *p, int n);
extern long fo_depth, fo_calls;
extern void *fo_info;

/* An interpreter's call: frame, body, then global bookkeeping around the
 * pop (the shape in which the count's store was moved first). */
sgc_obj fo_call(sgc_obj arg, void *info) {
    sgc_obj env = arg;
    static sgc_func fn = {"fo_call", 0};
    SGC_FRAME_FN(&fn, &env);
    void *prev = fo_info;
    fo_info = info;
    fo_depth++;
    env = fo_work(env);
    fo_depth--;
    fo_info = prev;
    return env;
}

sgc_obj fo_leaf(sgc_obj a) {
    SGC_FRAME(&a);
    return fo_work(a);
}

/* Two frames popped one after the other at the end of the function. */
sgc_obj fo_nested(sgc_obj a, sgc_obj b) {
    SGC_FRAME(&a);
    {
        SGC_FRAME(&b);
        b = fo_work(b);
        fo_calls++;
    }
    fo_depth += 2;
    return fo_work(a);
}

sgc_obj fo_early(sgc_obj a, int k) {
    SGC_FRAME(&a);
    if (fo_cond(k)) {
        fo_calls++;
        return a;
    }
    a = fo_work(a);
    if (fo_cond(k + 1)) {
        fo_depth--;
        return NULL;
    }
    fo_depth++;
    return fo_work(a);
}

/* A frame per iteration: the pop of one is followed by the push of the next. */
void fo_loop(sgc_obj *v, int n) {
    for (int i = 0; i < n; i++) {
        SGC_FRAME(&v[i]);
        v[i] = fo_work(v[i]);
        fo_calls += i;
    }
}

/* Two frames in sequence in one function, at the same stack slot. */
sgc_obj fo_sequence(sgc_obj a) {
    {
        SGC_FRAME(&a);
        a = fo_work(a);
    }
    fo_calls++;
    {
        SGC_FRAME_FN(fo_info, &a);
        a = fo_work(a);
    }
    return a;
}

sgc_obj fo_rec(sgc_obj a, int d) {
    SGC_FRAME(&a);
    if (d > 0)
        a = fo_rec(fo_work(a), d - 1);
    fo_depth = d;
    return a;
}

/* The frame's memory reused by a local array once its block ends. */
void fo_overlap(sgc_obj a, int n) {
    {
        SGC_FRAME(&a);
        a = fo_work(a);
    }
    void *junk[8];
    for (int i = 0; i < 8; i++)
        junk[i] = (char *)a + n * i;
    fo_use(junk, 8);
}
