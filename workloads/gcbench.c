/* gcbench.c - Boehm's GCBench on the freecheck runtime (the paper's "gcbench").
 *
 * What it models: the classic generational-GC stress test by Hans Boehm
 * (after John Ellis and Pete Kovac).  A long-lived binary tree and a
 * long-lived array of doubles stay alive throughout, while many short-lived
 * trees of growing depth are built top-down (allocate a node, then fill in
 * its children: old-to-young stores) and bottom-up (children first: only
 * young-to-young stores).  Most nodes die young; the long-lived data is
 * promoted once and then only scanned by major collections.  The paper's
 * "gcbench" is the Python port of this program.
 *
 * Scaling: --size N makes each tree depth build about N*1024 nodes in each
 * direction, so work is linear in N.  The depths follow from N the way
 * GCBench's constants relate: stretch depth S = log2(N*1024) - 2 (at most
 * 18), trees of depth 4, 6, ... up to S - 2 (at most 16), a long-lived tree
 * of that largest depth and a long-lived array of min(500000, N*512)
 * doubles.  At N = 1024 these are exactly GCBench's kStretchTreeDepth 18,
 * kLongLivedTreeDepth 16, kMaxTreeDepth 16 and kArraySize 500000.
 *
 * Checksum: every node carries its heap-order index and its depth; every
 * tree built is walked once and a position-sensitive hash of its nodes is
 * mixed in, followed by the long-lived tree and the sum of the array.  The
 * reference computes the same per-depth walk hashes directly from the
 * indices (no heap) and the array sum with plain doubles.
 */
#include "wl_common.h"

typedef struct Node {
    struct Node *left;  /* NULL at the leaves */
    struct Node *right; /* NULL at the leaves */
    int64_t index;      /* heap-order position: root 1, children 2i and 2i+1 */
    int64_t depth;      /* levels below this node (0 at the leaves) */
} Node;

static uint32_t t_node;         /* "GCBench.Node" */
static uint32_t t_double_array; /* "GCBench.DoubleArray" */

enum { kMinTreeDepth = 4 };

/* The tree shape GCBench uses at this size. */
typedef struct gc_plan {
    int stretch_depth;       /* depth of the stretch tree */
    int max_depth;           /* deepest short-lived tree; depth of the long-lived tree */
    int64_t array_size;      /* elements of the long-lived array */
    int64_t nodes_per_depth; /* nodes built per depth and direction */
} gc_plan;

static gc_plan plan_for(int64_t size) {
    gc_plan p;
    int64_t nodes = size * 1024;
    int log2n = 63 - __builtin_clzll((unsigned long long)nodes);
    p.stretch_depth = log2n - 2;
    if (p.stretch_depth > 18)
        p.stretch_depth = 18;
    if (p.stretch_depth < kMinTreeDepth + 2)
        p.stretch_depth = kMinTreeDepth + 2;
    p.max_depth = p.stretch_depth - 2;
    p.array_size = size * 512 < 500000 ? size * 512 : 500000;
    p.nodes_per_depth = nodes;
    return p;
}

static int64_t tree_size(int depth) { return ((int64_t)1 << (depth + 1)) - 1; }

static int64_t iterations_at(const gc_plan *p, int depth) {
    int64_t n = p->nodes_per_depth / tree_size(depth);
    return n > 0 ? n : 1;
}

/* The walk hash's step for one node: a multiply-add over the nodes in
 * pre-order, so a missing, duplicated, swapped or corrupted node changes it. */
static inline uint64_t walk_step(uint64_t h, int64_t index, int64_t depth) {
    return (h ^ (uint64_t)index) * 0x100000001b3ull + (uint64_t)depth;
}

static Node *new_node(int64_t index, int64_t depth) {
    Node *n = SGC_NEW(t_node, Node);
    n->index = index;
    n->depth = depth;
    return n;
}

/* GCBench's Populate: builds the children of node top-down, so each store
 * may put a young child into an already promoted parent. */
static void populate(int depth, Node *node) {
    Node *child = NULL;
    SGC_FRAME(&node, &child);
    if (depth <= 0)
        return;
    depth--;
    child = new_node(node->index * 2, depth);
    SGC_SET(node, left, child);
    child = new_node(node->index * 2 + 1, depth);
    SGC_SET(node, right, child);
    populate(depth, node->left);
    populate(depth, node->right);
}

/* GCBench's MakeTree: builds a tree bottom-up (children before parent). */
static Node *make_tree(int depth, int64_t index) {
    Node *left = NULL, *right = NULL, *node = NULL;
    SGC_FRAME(&left, &right, &node);
    if (depth <= 0)
        return new_node(index, 0);
    left = make_tree(depth - 1, index * 2);
    right = make_tree(depth - 1, index * 2 + 1);
    node = new_node(index, depth);
    node->left = left; /* node is the youngest object: no barrier needed, but keep the rule */
    node->right = right;
    sgc_write_barrier(node);
    return node;
}

/* Pre-order walk hash of a tree (no allocation, so node cannot move). */
static uint64_t walk_tree(Node *node, uint64_t h) {
    SGC_FRAME(&node);
    while (node) {
        h = walk_step(h, node->index, node->depth);
        h = walk_tree(node->left, h);
        node = node->right;
    }
    return h;
}

/* The same hash computed from the shape alone: what walk_tree must return
 * for a complete tree of this depth rooted at index. */
static uint64_t walk_expected(int depth, int64_t index, uint64_t h) {
    for (;;) {
        h = walk_step(h, index, depth);
        if (depth == 0)
            return h;
        h = walk_expected(depth - 1, index * 2, h);
        depth--;
        index = index * 2 + 1;
    }
}

static void stretch_heap(int depth, wl_checksum *sum) {
    Node *tree = NULL;
    SGC_FRAME(&tree);
    tree = make_tree(depth, 1);
    wl_mix(sum, walk_tree(tree, 0));
}

static void time_construction(const gc_plan *p, int depth, wl_checksum *sum) {
    Node *tree = NULL;
    SGC_FRAME(&tree);
    int64_t iters = iterations_at(p, depth);
    uint64_t top_down = 0, bottom_up = 0;
    for (int64_t i = 0; i < iters; i++) {
        tree = new_node(1, depth);
        populate(depth, tree);
        top_down += walk_tree(tree, 0);
        tree = NULL;
    }
    for (int64_t i = 0; i < iters; i++) {
        tree = make_tree(depth, 1);
        bottom_up += walk_tree(tree, 0);
        tree = NULL;
    }
    wl_mix(sum, (uint64_t)depth);
    wl_mix(sum, top_down);
    wl_mix(sum, bottom_up);
}

static void run_gcbench(const gc_plan *p, wl_checksum *sum) {
    Node *long_lived = NULL;
    double *array = NULL;
    SGC_FRAME(&long_lived, &array);

    stretch_heap(p->stretch_depth, sum);

    long_lived = new_node(1, p->max_depth);
    populate(p->max_depth, long_lived);

    array = sgc_alloc(t_double_array, (size_t)p->array_size * sizeof(double));
    for (int64_t i = 0; i < p->array_size / 2; i++)
        array[i] = 1.0 / (double)(i + 1);

    for (int d = kMinTreeDepth; d <= p->max_depth; d += 2)
        time_construction(p, d, sum);

    /* GCBench's final check that the long-lived data survived intact. */
    wl_mix(sum, walk_tree(long_lived, 0));
    double total = 0.0;
    for (int64_t i = 0; i < p->array_size; i++)
        total += array[i];
    wl_mix_double(sum, total);
}

static uint64_t expected(const wl_run *run) {
    gc_plan p = plan_for(run->size);
    wl_checksum sum = WL_CHECKSUM_INIT;
    wl_mix(&sum, walk_expected(p.stretch_depth, 1, 0));
    for (int d = kMinTreeDepth; d <= p.max_depth; d += 2) {
        uint64_t one = walk_expected(d, 1, 0);
        uint64_t iters = (uint64_t)iterations_at(&p, d);
        wl_mix(&sum, (uint64_t)d);
        wl_mix(&sum, one * iters); /* top-down trees */
        wl_mix(&sum, one * iters); /* bottom-up trees */
    }
    wl_mix(&sum, walk_expected(p.max_depth, 1, 0));
    double total = 0.0;
    for (int64_t i = 0; i < p.array_size; i++)
        total += i < p.array_size / 2 ? 1.0 / (double)(i + 1) : 0.0;
    wl_mix_double(&sum, total);
    return wl_checksum_value(&sum);
}

int main(int argc, char **argv) {
    static const wl_spec spec = {
        .name = "gcbench",
        .summary = "Boehm's GCBench: long-lived tree and array, short-lived trees built "
                   "top-down and bottom-up",
        .default_size = 800,
        .min_size = 1,
        .max_size = 1 << 20,
        .size_help = "thousands of nodes built per tree depth and direction (1024 = GCBench)",
    };
    wl_run run = wl_start(&spec, argc, argv);
    t_node = wl_type("GCBench.Node", sizeof(Node), WL_PTR(Node, left) | WL_PTR(Node, right), SGC_VAR_NONE);
    t_double_array = wl_type("GCBench.DoubleArray", 0, 0, SGC_VAR_DOUBLES);

    gc_plan p = plan_for(run.size);
    wl_checksum sum = WL_CHECKSUM_INIT;
    run_gcbench(&p, &sum);
    return wl_finish(&run, &sum, expected);
}
