/* test_api.c - misuse of the public API (runtime/sgc.h) is refused with a
 * message and abort (or an error return where the call has one) instead of
 * corrupting the heap: types with bad layouts, bad type ids, references to
 * what is not an object, allocation after shutdown, from another thread or
 * inside a collection, bad global roots, frames popped out of order or
 * pushed twice, size overflow, and (with SGC_POISON) writes to freed
 * objects.
 *
 * Every case runs in a child with stderr captured, so the message is
 * checked whole and a misuse that is not caught (the child exits, crashes
 * or loops) fails the test. */
#include <criterion/criterion.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sgc_internal.h"
#include "sgc_sample.h"

typedef struct node {
    struct node *a, *b;
    uint64_t value;
} node;

static uint32_t T_NODE, T_BYTES;

static void setup(void) {
    static const char *const vars[] = {"SGC_NURSERY", "SGC_GC_STRESS",    "SGC_POISON",  "SGC_STATS",
                                       "SGC_PROFILE", "SGC_ALLOC_PERIOD", "SGC_TIME_HZ", "SGC_HEAP_MAX"};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++)
        unsetenv(vars[i]);
    setenv("SGC_VERIFY", "0", 1);
    T_NODE = sgc_type_register(&(sgc_type){"node", sizeof(node), 0x3, SGC_VAR_NONE});
    T_BYTES = sgc_type_register(&(sgc_type){"bytes", 0, 0, SGC_VAR_BYTES});
}

TestSuite(api, .init = setup);

/* Runs fn in a child with stderr captured; returns the signal that ended
 * it (0 if it exited: then *status is its exit status). */
static int in_child(void (*fn)(void), char *err, size_t errlen, int *status) {
    int fds[2];
    cr_assert_eq(pipe(fds), 0);
    fflush(NULL);
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) {
        close(fds[0]);
        dup2(fds[1], 2);
        alarm(20); /* a misuse that makes the collector loop must not hang the test */
        fn();
        _exit(0);
    }
    close(fds[1]);
    size_t n = 0;
    ssize_t r;
    while (n + 1 < errlen && (r = read(fds[0], err + n, errlen - 1 - n)) > 0)
        n += (size_t)r;
    err[n] = '\0';
    close(fds[0]);
    int st;
    waitpid(pid, &st, 0);
    *status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    return WIFSIGNALED(st) ? WTERMSIG(st) : 0;
}

/* fn must abort, printing want (the first line of its stderr). */
static void expect_abort(void (*fn)(void), const char *want) {
    char err[2048];
    int status;
    int sig = in_child(fn, err, sizeof err, &status);
    cr_assert_eq(sig, SIGABRT, "not aborted (signal %d, exit status %d); stderr: %s", sig, status, err);
    cr_assert_eq(strncmp(err, want, strlen(want)), 0, "got: %s\nwant: %s", err, want);
}

/* ---- Types ------------------------------------------------------------------ */

static void register_partial_pointer_word(void) {
    /* 12 bytes: word 1 is only half inside the fixed part. */
    sgc_type_register(&(sgc_type){"partial", 12, 0x2, SGC_VAR_BYTES});
}

Test(api, type_pointer_word_past_the_fixed_part) {
    expect_abort(register_partial_pointer_word,
                 "freecheck: sgc_type_register: type partial is malformed (fixed part at most 512 bytes, pointer "
                 "words wholly within the fixed part, pointer arrays 8-byte aligned, a known var kind)\n");
}

static void register_twice_differently(void) {
    sgc_type_register(&(sgc_type){"twice", 16, 0x1, SGC_VAR_NONE});
    sgc_type_register(&(sgc_type){"twice", 16, 0x3, SGC_VAR_NONE});
}

Test(api, type_name_registered_again_with_another_layout) {
    expect_abort(register_twice_differently,
                 "freecheck: sgc_type_register: type twice is registered already with another layout (fixed part "
                 "16 bytes, pointer map 0x1, var kind 0; now 16 bytes, 0x3, 0); give the new layout its own name\n");
    /* The same layout again is the same type. */
    uint32_t a = sgc_type_register(&(sgc_type){"same", 24, 0x5, SGC_VAR_NONE});
    cr_assert_eq(sgc_type_register(&(sgc_type){"same", 24, 0x5, SGC_VAR_NONE}), a);
}

/* ---- Allocation ------------------------------------------------------------- */

static void alloc_type_zero(void) { sgc_alloc(0, 10000); }
static void alloc_type_unknown(void) { sgc_alloc(77, 10000); }

Test(api, slow_path_allocation_with_an_unregistered_type) {
    expect_abort(alloc_type_zero,
                 "freecheck: sgc_alloc: type id 0 is not registered (ids 1 to 2 are); register the type first\n");
    expect_abort(alloc_type_unknown,
                 "freecheck: sgc_alloc: type id 77 is not registered (ids 1 to 2 are); register the type first\n");
}

/* The collector's checks of every object it copies or marks are compiled
 * in with SGC_CHECKS=1 only (make test's build, the sanitizer builds;
 * runtime/sgc_gc.c, GC_OBJECT_CHECK): the measured build has neither them
 * nor these two tests. */
#if defined(SGC_CHECKS) && SGC_CHECKS
static void fast_path_type_unknown(void) {
    sgc_init();
    sgc_obj keep = NULL;
    SGC_FRAME(&keep);
    keep = sgc_alloc(5000, 16); /* the fast path does not look at the id */
    sgc_collect_minor();
}

Test(api, fast_path_object_with_an_unregistered_type_refused_by_the_collector) {
    expect_abort(fast_path_type_unknown, "freecheck: the collector found a reference to ");
    char err[2048];
    int status;
    in_child(fast_path_type_unknown, err, sizeof err, &status);
    cr_assert_not_null(strstr(err, ", which is not an object (header 0x200138800: type id 5000 is not registered); a "
                                   "root or pointer field holds an address the runtime did not allocate, or one "
                                   "inside an object (SGC_VERIFY=1 names the field)\n"),
                       "%s", err);
}

static uint64_t foreign[4] = {0x1122334455667788ull, 0x1122334455667788ull, 0x1122334455667788ull, 0};

static void root_to_foreign_memory(void) {
    node *x = NULL;
    SGC_FRAME(&x);
    x = (node *)&foreign[1]; /* "header" foreign[0] */
    sgc_collect_major();
}

/* A root pointing inside a node, whose "header" is then its field b. */
static void interior_root_at(uintptr_t b) {
    node *x = NULL;
    SGC_FRAME(&x);
    x = SGC_NEW(T_NODE, node);
    x->a = NULL;
    x->b = (node *)b;
    x = (node *)((char *)x + 16);
    sgc_collect_minor();
}

static void interior_root(void) { interior_root_at(4); }
static void interior_root_odd(void) { interior_root_at(5); } /* bit 0: looks forwarded */

Test(api, reference_to_what_is_not_an_object_refused_by_the_collector) {
    char want[256];
    snprintf(want, sizeof want,
             "freecheck: the collector found a reference to %p, which is not an object (header "
             "0x1122334455667788: type id 5596791 is not registered)",
             (void *)&foreign[1]);
    expect_abort(root_to_foreign_memory, want);
    cr_assert_eq(foreign[0], 0x1122334455667788ull, "the foreign word is untouched (in the parent)");
    expect_abort(interior_root, "freecheck: the collector found a reference to ");
    char err[2048];
    int status;
    in_child(interior_root, err, sizeof err, &status);
    cr_assert_not_null(strstr(err, "which is not an object (header 0x4: type id 0 is not registered)"), "%s", err);
    in_child(interior_root_odd, err, sizeof err, &status);
    cr_assert_not_null(strstr(err, "which is not an object (header 0x5: neither a header nor a forwarding address)"),
                       "%s", err);
}
#endif

static void alloc_after_shutdown(void) {
    sgc_alloc(T_BYTES, 16);
    sgc_shutdown();
    sgc_alloc(T_BYTES, 16);
}

static void collect_after_shutdown(void) {
    sgc_init();
    sgc_shutdown();
    sgc_collect_minor();
}

static void init_after_shutdown(void) {
    sgc_init();
    sgc_shutdown();
    sgc_init();
}

Test(api, the_runtime_after_shutdown) {
    expect_abort(alloc_after_shutdown, "freecheck: sgc_alloc after sgc_shutdown: the runtime has ended (its profile "
                                       "and stats record are written); allocate before it ends\n");
    expect_abort(collect_after_shutdown, "freecheck: a collection after sgc_shutdown: the runtime has ended (its "
                                         "profile and stats record are written); collect before it ends\n");
    expect_abort(init_after_shutdown,
                 "freecheck: sgc_init after sgc_shutdown: the runtime cannot start again in the same process\n");
    /* Sampling has an error return: -1, nothing started. */
    sgc_init();
    sgc_shutdown();
    cr_assert_eq(sgc_sampling_start(4096, SGC_SAMPLE_FIXED, 0), -1);
    cr_assert_eq(sgc__sampler.period, 0);
}

static void *alloc_on_a_thread(void *arg) {
    (void)arg;
    sgc_alloc(T_BYTES, 10000);
    return NULL;
}

static void alloc_from_another_thread(void) {
    sgc_init();
    pthread_t t;
    pthread_create(&t, NULL, alloc_on_a_thread, NULL);
    pthread_join(t, NULL);
}

Test(api, allocation_from_another_thread) {
    expect_abort(alloc_from_another_thread,
                 "freecheck: sgc_alloc from a thread that is not the one that started the runtime (the runtime is "
                 "single-threaded)\n");
}

static void allocating_observer(void *ctx, const sgc_alloc_sample *rec, uint64_t serial) {
    (void)ctx, (void)rec, (void)serial;
    sgc_alloc(T_BYTES, 16);
}

static void alloc_inside_a_collection(void) {
    sgc_init();
    sgc__sample_set_observer(allocating_observer, NULL);
    sgc_sampling_start(64, SGC_SAMPLE_FIXED, 0);
    sgc_alloc(T_BYTES, 100);
    sgc_collect_minor(); /* settles the sample: the observer allocates */
}

Test(api, allocation_inside_a_collection) {
    expect_abort(alloc_inside_a_collection, "freecheck: sgc_alloc inside a collection (from a collector hook): the "
                                            "heap is being moved; allocate outside collections\n");
}

static void new_var_overflow(void) { SGC_NEW_VAR(T_BYTES, 8, (size_t)1 << 61, 8); }
static void new_var_negative(void) {
    int n = -1;
    SGC_NEW_VAR(T_BYTES, 16, n, 24);
}

Test(api, variable_size_that_overflows) {
    expect_abort(new_var_overflow, "freecheck: SGC_NEW_VAR: 8 bytes and 2305843009213693952 elements of 8 bytes "
                                   "overflow a size; the count is wrong (negative?)\n");
    expect_abort(new_var_negative, "freecheck: SGC_NEW_VAR: 16 bytes and 18446744073709551615 elements of 24 bytes "
                                   "overflow a size; the count is wrong (negative?)\n");
}

static void stats_into_null(void) { sgc_get_stats(NULL); }

Test(api, stats_into_null) { expect_abort(stats_into_null, "freecheck: sgc_get_stats: out is NULL\n"); }

/* ---- Global roots ------------------------------------------------------------- */

static sgc_obj global_a;

static void root_null(void) { sgc_global_root(NULL); }
static void root_unaligned(void) { sgc_global_root((char *)&global_a + 4); }
static void root_twice(void) {
    sgc_global_root(&global_a);
    sgc_global_root(&global_a);
}
static void root_on_the_stack(void) {
    sgc_obj local = NULL;
    sgc_global_root(&local);
}
static void root_inside_the_heap(void) {
    node *n = SGC_NEW(T_NODE, node);
    sgc_global_root(&n->a);
}
static void root_inside_an_old_object(void) {
    static node *keep;
    sgc_global_root(&keep);
    keep = SGC_NEW(T_NODE, node);
    sgc_collect_minor();
    sgc_global_root(&keep->b);
}
static void too_many_roots(void) {
    size_t n = SGC_MAX_GLOBAL_ROOTS + 1;
    sgc_obj *slots = calloc(n, sizeof *slots);
    for (size_t i = 0; i < n; i++)
        sgc_global_root(&slots[i]);
}

Test(api, bad_global_roots) {
    expect_abort(root_null, "freecheck: sgc_global_root: the slot is NULL\n");
    char want[256];
    snprintf(want, sizeof want, "freecheck: sgc_global_root: slot %p is not 8-byte aligned\n",
             (void *)((char *)&global_a + 4));
    expect_abort(root_unaligned, want);
    snprintf(want, sizeof want, "freecheck: sgc_global_root: slot %p is registered already\n", (void *)&global_a);
    expect_abort(root_twice, want);
    expect_abort(root_on_the_stack, "freecheck: sgc_global_root: slot ");
    char err[2048];
    int status;
    in_child(root_on_the_stack, err, sizeof err, &status);
    cr_assert_not_null(
        strstr(err, " is on the stack: a local variable dies with its function; make it a root with SGC_FRAME\n"), "%s",
        err);
    in_child(root_inside_the_heap, err, sizeof err, &status);
    cr_assert_not_null(strstr(err, " is inside the heap (a field of an object, which moves or dies); make the "
                                   "field's object reachable instead\n"),
                       "%s", err);
    in_child(root_inside_an_old_object, err, sizeof err, &status);
    cr_assert_not_null(strstr(err, " is inside the heap (a field of an object"), "%s", err);
    snprintf(want, sizeof want, "freecheck: sgc_global_root: more than %d global roots; register each global once\n",
             SGC_MAX_GLOBAL_ROOTS);
    expect_abort(too_many_roots, want);
}

/* ---- Frames ------------------------------------------------------------------- */

/* Pushes a frame of its own and returns without popping it. */
__attribute__((noinline)) static void leave_a_frame_pushed(void) {
    static sgc_func fn = {"leaked", 0};
    sgc_frame f = {.func = &fn};
    sgc_frame_push(&f);
    __asm__ volatile("" ::"r"(&f) : "memory");
}

static void frame_left_behind(void) {
    sgc_init();
    SGC_FRAME();
    leave_a_frame_pushed();
    sgc_collect_minor(); /* would walk the dead frame */
}

static jmp_buf jump;

__attribute__((noinline)) static void jump_out(void) {
    SGC_FRAME();
    longjmp(jump, 1); /* skips this frame's pop */
}

static void frame_skipped_by_longjmp(void) {
    sgc_init();
    SGC_FRAME();
    if (setjmp(jump) == 0)
        jump_out();
    sgc_collect_minor();
}

/* The profile writer's walk meets the dead frame first (an allocation
 * sample's stack). */
static void frame_left_behind_then_sampled(void) {
    sgc_init();
    sgc_sampling_start(64, SGC_SAMPLE_FIXED, 0);
    SGC_FRAME();
    leave_a_frame_pushed();
    sgc_alloc(T_BYTES, 100);
}

Test(api, frames_popped_out_of_order) {
    expect_abort(frame_left_behind, "freecheck: the frame stack holds a frame at ");
    char err[2048];
    int status;
    in_child(frame_left_behind, err, sizeof err, &status);
    cr_assert_not_null(strstr(err, " whose function has returned (the program's stack is above "), "%s", err);
    cr_assert_not_null(strstr(err, "): a frame pushed and not popped, or a longjmp out of a function with SGC_FRAME\n"),
                       "%s", err);
    expect_abort(frame_skipped_by_longjmp, "freecheck: the frame stack holds a frame at ");
    expect_abort(frame_left_behind_then_sampled, "freecheck: the frame stack holds a frame at ");
}

static void frame_pushed_twice(void) {
    static sgc_func fn = {"twice", 0};
    static sgc_frame f;
    f.func = &fn;
    sgc_frame_push(&f);
    sgc_frame_push(&f); /* its parent is now itself */
    sgc_collect_minor();
}

static void frames_in_a_loop(void) {
    static sgc_func fa = {"fa", 0}, fb = {"fb", 0};
    static sgc_frame a, b;
    a.func = &fa;
    b.func = &fb;
    sgc_frame_push(&a);
    sgc_frame_push(&b);
    sgc_frame_push(&a); /* a -> b -> a */
    sgc_collect_major();
}

static void frame_without_root_array(void) {
    static sgc_func fn = {"noroots", 0};
    static sgc_frame f;
    f.func = &fn;
    f.nroots = 2;
    f.roots = NULL;
    sgc_frame_push(&f);
    sgc_collect_minor();
}

static void frame_without_function(void) {
    static sgc_frame f;
    sgc_frame_push(&f);
    sgc_collect_minor();
}

/* The profile writer's walk meets the loop first (an allocation sample). */
static void frame_pushed_twice_then_sampled(void) {
    static sgc_func fn = {"sampled", 0};
    static sgc_frame f;
    f.func = &fn;
    sgc_init();
    sgc_sampling_start(64, SGC_SAMPLE_FIXED, 0);
    sgc_frame_push(&f);
    sgc_frame_push(&f);
    sgc_alloc(T_BYTES, 100);
}

Test(api, broken_frame_stack_refused_by_the_collector) {
    expect_abort(frame_pushed_twice_then_sampled, "freecheck: the frame stack loops back to sampled's frame (a frame "
                                                  "pushed twice without a pop in between)\n");
    expect_abort(frame_without_function, "freecheck: the frame at ");
    char err[2048];
    int status;
    in_child(frame_without_function, err, sizeof err, &status);
    cr_assert_not_null(strstr(err, " has no function (func is NULL); set it before the push\n"), "%s", err);
    expect_abort(frame_pushed_twice, "freecheck: the frame stack loops back to twice's frame (a frame pushed twice "
                                     "without a pop in between)\n");
    expect_abort(frames_in_a_loop, "freecheck: the frame stack loops back to ");
    expect_abort(frame_without_root_array,
                 "freecheck: noroots's frame has 2 roots but no root array (roots is NULL)\n");
}

/* ---- Writes to freed objects (SGC_POISON) -------------------------------------- */

static void barrier_on_evacuated(void) {
    setenv("SGC_POISON", "1", 1);
    node *x = NULL;
    SGC_FRAME(&x);
    x = SGC_NEW(T_NODE, node);
    node *stale = x;
    sgc_collect_minor(); /* x moved; its old place is poisoned */
    SGC_SET(stale, a, x);
}

static void write_to_evacuated(void) {
    setenv("SGC_POISON", "1", 1);
    node *x = NULL;
    SGC_FRAME(&x);
    x = SGC_NEW(T_NODE, node);
    node *stale = x;
    sgc_collect_minor();
    stale->value = 5;    /* into the poisoned half */
    sgc_collect_minor(); /* the next one reuses that half */
}

static void write_to_freed_old(void) {
    setenv("SGC_POISON", "1", 1);
    static node *keep, *other;
    sgc_global_root(&keep);
    sgc_global_root(&other);
    keep = SGC_NEW(T_NODE, node);
    other = SGC_NEW(T_NODE, node); /* keeps the block in use */
    sgc_collect_minor();
    node *stale = keep;
    keep = NULL;
    sgc_collect_major(); /* frees and poisons the slot */
    stale->value = 5;
    sgc_collect_major(); /* its sweep finds the write */
}

static void write_to_freed_block(void) {
    setenv("SGC_POISON", "1", 1);
    static node *keep;
    sgc_global_root(&keep);
    keep = SGC_NEW(T_NODE, node);
    sgc_collect_minor();
    node *stale = keep;
    keep = NULL;
    sgc_collect_major(); /* the block is empty: back to the pool, poisoned */
    stale->value = 5;
    keep = SGC_NEW(T_NODE, node);
    sgc_collect_minor(); /* the promotion takes the block again */
}

static void write_to_freed_large(void) {
    setenv("SGC_POISON", "1", 1);
    uint64_t *big = sgc_alloc(T_BYTES, 100000);
    sgc_collect_minor(); /* frees and poisons it */
    big[100] = 7;
    sgc_alloc(T_BYTES, 100000); /* reuses its chunk */
}

Test(api, writes_to_freed_objects_caught_with_poison) {
    expect_abort(barrier_on_evacuated, "freecheck: sgc_write_barrier on ");
    char err[2048];
    int status;
    in_child(barrier_on_evacuated, err, sizeof err, &status);
    cr_assert_not_null(strstr(err, ", which is not a live object (header 0xdbdbdbdbdbdbdbdb: freed memory, "
                                   "SGC_POISON); a pointer kept across the collection that freed it\n"),
                       "%s", err);
    expect_abort(write_to_evacuated, "freecheck: a freed object was written after it died: byte 24 of the nursery "
                                     "space the previous minor collection evacuated is 0x05, not the poison 0xdb "
                                     "(SGC_POISON); a pointer kept across a collection\n");
    expect_abort(write_to_freed_old, "freecheck: a freed object was written after it died: byte 24 of the old slot ");
    in_child(write_to_freed_old, err, sizeof err, &status);
    cr_assert_not_null(strstr(err, " (32 bytes, freed by a major collection) is 0x05, not the poison 0xdb "
                                   "(SGC_POISON); a pointer kept across a collection\n"),
                       "%s", err);
    expect_abort(write_to_freed_block, "freecheck: a freed object was written after it died: byte 88 of a freed "
                                       "old-generation block ");
    expect_abort(write_to_freed_large, "freecheck: a freed object was written after it died: byte 832 of a freed "
                                       "large object's chunk is 0x07, not the poison 0xdb (SGC_POISON); a pointer "
                                       "kept across a collection\n");
}
