/* gcbench.c - freecheck's gcbench workload (workloads/gcbench.c, Boehm's
 * GCBench) as a plain C program on malloc/free, the C peer for an
 * allocator's sampler.
 *
 * The same plan (depths and array size from --size), the same trees built
 * top-down and bottom-up in the same order, the same walk hashes and array
 * sum mixed into the same checksum as freecheck's workload.  Each
 * short-lived tree is freed after its walk; the long-lived tree and array
 * stay allocated until exit.
 */
#include "pr_common.h"

typedef struct Node {
    struct Node *left;  /* NULL at the leaves */
    struct Node *right; /* NULL at the leaves */
    int64_t index;      /* heap-order position: root 1, children 2i and 2i+1 */
    int64_t depth;      /* levels below this node */
} Node;

enum { kMinTreeDepth = 4 };

typedef struct gc_plan {
    int stretch_depth;
    int max_depth;
    int64_t array_size;
    int64_t nodes_per_depth;
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

static int64_t iterations_at(const gc_plan *p, int depth) {
    int64_t n = p->nodes_per_depth / (((int64_t)1 << (depth + 1)) - 1);
    return n > 0 ? n : 1;
}

static inline uint64_t walk_step(uint64_t h, int64_t index, int64_t depth) {
    return (h ^ (uint64_t)index) * 0x100000001b3ull + (uint64_t)depth;
}

static Node *new_node(int64_t index, int64_t depth) {
    Node *n = pr_alloc(sizeof *n);
    n->left = n->right = NULL;
    n->index = index;
    n->depth = depth;
    return n;
}

static void populate(int depth, Node *node) {
    if (depth <= 0)
        return;
    depth--;
    node->left = new_node(node->index * 2, depth);
    node->right = new_node(node->index * 2 + 1, depth);
    populate(depth, node->left);
    populate(depth, node->right);
}

static Node *make_tree(int depth, int64_t index) {
    if (depth <= 0)
        return new_node(index, 0);
    Node *left = make_tree(depth - 1, index * 2);
    Node *right = make_tree(depth - 1, index * 2 + 1);
    Node *node = new_node(index, depth);
    node->left = left;
    node->right = right;
    return node;
}

static uint64_t walk_tree(const Node *node, uint64_t h) {
    while (node) {
        h = walk_step(h, node->index, node->depth);
        h = walk_tree(node->left, h);
        node = node->right;
    }
    return h;
}

static void free_tree(Node *node) {
    while (node) {
        Node *right = node->right;
        free_tree(node->left);
        free(node);
        node = right;
    }
}

static void stretch_heap(int depth, pr_checksum *sum) {
    Node *tree = make_tree(depth, 1);
    pr_mix(sum, walk_tree(tree, 0));
    free_tree(tree);
}

static void time_construction(const gc_plan *p, int depth, pr_checksum *sum) {
    int64_t iters = iterations_at(p, depth);
    uint64_t top_down = 0, bottom_up = 0;
    for (int64_t i = 0; i < iters; i++) {
        Node *tree = new_node(1, depth);
        populate(depth, tree);
        top_down += walk_tree(tree, 0);
        free_tree(tree);
    }
    for (int64_t i = 0; i < iters; i++) {
        Node *tree = make_tree(depth, 1);
        bottom_up += walk_tree(tree, 0);
        free_tree(tree);
    }
    pr_mix(sum, (uint64_t)depth);
    pr_mix(sum, top_down);
    pr_mix(sum, bottom_up);
}

static void run_gcbench(const gc_plan *p, pr_checksum *sum) {
    stretch_heap(p->stretch_depth, sum);

    Node *long_lived = new_node(1, p->max_depth);
    populate(p->max_depth, long_lived);

    double *array = pr_calloc((size_t)p->array_size * sizeof(double));
    for (int64_t i = 0; i < p->array_size / 2; i++)
        array[i] = 1.0 / (double)(i + 1);

    for (int d = kMinTreeDepth; d <= p->max_depth; d += 2)
        time_construction(p, d, sum);

    pr_mix(sum, walk_tree(long_lived, 0));
    double total = 0.0;
    for (int64_t i = 0; i < p->array_size; i++)
        total += array[i];
    pr_mix_double(sum, total);
}

int main(int argc, char **argv) {
    static const pr_spec spec = {
        .name = "gcbench",
        .summary = "Boehm's GCBench on malloc/free (freecheck's gcbench)",
        .default_size = 800,
        .max_size = 1 << 20,
    };
    pr_run run = pr_start(&spec, argc, argv);
    gc_plan p = plan_for(run.size);
    pr_checksum sum = PR_CHECKSUM_INIT;
    run_gcbench(&p, &sum);
    return pr_finish(&run, &sum);
}
