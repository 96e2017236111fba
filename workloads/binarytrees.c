/* binarytrees.c - the Computer Language Benchmarks Game's binary-trees on the freecheck runtime.
 *
 * What it models: a tree-allocation benchmark with one long-lived tree and
 * very many short-lived complete binary trees, built bottom-up and checked
 * by a full traversal.  Almost everything dies young; the long-lived tree is
 * promoted once.  It stands beside the paper's gcbench as a second, purely
 * tree-shaped allocation workload (it is not one of the paper's four).
 *
 * This is the version whose nodes carry an item (item, 2*item-1, 2*item
 * for the children) and whose check is item + check(left) - check(right),
 * so corrupted data, not only a wrong shape, changes the result.
 *
 * Scaling: --depth D is the Benchmarks Game's argument n (the maximum tree
 * depth, at least 6).  The iterated phase builds, at each depth d = 4, 6,
 * ..., D, N * 2^(D - d) pairs of trees (items +i and -i), so work is linear
 * in --size N; N = 16 is exactly the Benchmarks Game's 2^(D - d + 4)
 * iterations.  The stretch tree (depth D+1) and the long-lived tree (depth
 * D) are built once.
 *
 * Checksum: the check value and the node count of every phase.  Both have
 * closed forms (check of a tree with item x is x for depth 0 and x - 1
 * otherwise; a tree of depth d has 2^(d+1) - 1 nodes), which the reference
 * uses.
 */
#include "wl_common.h"

typedef struct TreeNode {
    struct TreeNode *left;  /* NULL at the leaves */
    struct TreeNode *right; /* NULL at the leaves */
    int64_t item;           /* the Benchmarks Game's item value */
} TreeNode;

static uint32_t t_tree_node; /* "BinaryTrees.TreeNode" */
enum { kMinDepth = 4 };

static TreeNode *bottom_up_tree(int64_t item, int depth) {
    TreeNode *left = NULL, *right = NULL, *node = NULL;
    SGC_FRAME(&left, &right, &node);
    if (depth > 0) {
        left = bottom_up_tree(2 * item - 1, depth - 1);
        right = bottom_up_tree(2 * item, depth - 1);
    }
    node = SGC_NEW(t_tree_node, TreeNode);
    node->left = left;
    node->right = right;
    node->item = item;
    sgc_write_barrier(node);
    return node;
}

/* item + check(left) - check(right); counts the nodes visited into *nodes.
 * Allocates nothing, so the tree cannot move under it. */
static int64_t item_check(TreeNode *node, int64_t *nodes) {
    SGC_FRAME(&node);
    ++*nodes;
    if (!node->left)
        return node->item;
    return node->item + item_check(node->left, nodes) - item_check(node->right, nodes);
}

/* Builds, checks and drops one tree. */
static void check_one(int64_t item, int depth, int64_t *check, int64_t *nodes) {
    TreeNode *tree = NULL;
    SGC_FRAME(&tree);
    tree = bottom_up_tree(item, depth);
    *check += item_check(tree, nodes);
}

/* Pairs of trees built at this depth. */
static int64_t iterations_at(int64_t size, int max_depth, int depth) { return size << (max_depth - depth); }

static void binarytrees(int max_depth, int64_t size, wl_checksum *sum) {
    TreeNode *long_lived = NULL;
    SGC_FRAME(&long_lived);
    int64_t check = 0, nodes = 0;

    check_one(0, max_depth + 1, &check, &nodes); /* the stretch tree */
    wl_mix(sum, (uint64_t)check);
    wl_mix(sum, (uint64_t)nodes);

    long_lived = bottom_up_tree(0, max_depth);

    for (int d = kMinDepth; d <= max_depth; d += 2) {
        int64_t iters = iterations_at(size, max_depth, d);
        check = 0;
        nodes = 0;
        for (int64_t i = 1; i <= iters; i++) {
            check_one(i, d, &check, &nodes);
            check_one(-i, d, &check, &nodes);
        }
        wl_mix(sum, (uint64_t)d);
        wl_mix(sum, (uint64_t)check);
        wl_mix(sum, (uint64_t)nodes);
    }

    nodes = 0;
    check = item_check(long_lived, &nodes);
    wl_mix(sum, (uint64_t)check);
    wl_mix(sum, (uint64_t)nodes);
}

/* Closed forms: check and node count of one tree of this depth and item. */
static int64_t tree_check(int64_t item, int depth) { return depth == 0 ? item : item - 1; }
static int64_t tree_nodes(int depth) { return ((int64_t)1 << (depth + 1)) - 1; }

static int64_t opt_depth = 16;

static uint64_t expected(const wl_run *run) {
    int max_depth = (int)opt_depth;
    wl_checksum sum = WL_CHECKSUM_INIT;
    wl_mix(&sum, (uint64_t)tree_check(0, max_depth + 1));
    wl_mix(&sum, (uint64_t)tree_nodes(max_depth + 1));
    for (int d = kMinDepth; d <= max_depth; d += 2) {
        int64_t iters = iterations_at(run->size, max_depth, d);
        int64_t check = 0;
        for (int64_t i = 1; i <= iters; i++)
            check += tree_check(i, d) + tree_check(-i, d);
        wl_mix(&sum, (uint64_t)d);
        wl_mix(&sum, (uint64_t)check);
        wl_mix(&sum, (uint64_t)(2 * iters * tree_nodes(d)));
    }
    wl_mix(&sum, (uint64_t)tree_check(0, max_depth));
    wl_mix(&sum, (uint64_t)tree_nodes(max_depth));
    return wl_checksum_value(&sum);
}

int main(int argc, char **argv) {
    static const wl_option options[] = {
        {"--depth", WL_OPT_INT, &opt_depth, kMinDepth + 2, 24,
         "maximum tree depth, the Benchmarks Game's n (default 16)"},
        {0},
    };
    static const wl_spec spec = {
        .name = "binarytrees",
        .summary = "the Benchmarks Game's binary-trees: many short-lived complete trees, one "
                   "long-lived tree",
        .default_size = 5,
        .min_size = 1,
        .max_size = 1 << 20,
        .size_help = "tree pairs per depth d, times 2^(depth - d) (16 = Benchmarks Game)",
        .options = options,
    };
    wl_run run = wl_start(&spec, argc, argv);
    t_tree_node = wl_type("BinaryTrees.TreeNode", sizeof(TreeNode), WL_PTR(TreeNode, left) | WL_PTR(TreeNode, right),
                          SGC_VAR_NONE);
    wl_checksum sum = WL_CHECKSUM_INIT;
    binarytrees((int)opt_depth, run.size, &sum);
    return wl_finish(&run, &sum, expected);
}
