/* binarytrees.c - freecheck's binarytrees workload (workloads/binarytrees.c) as a
 * plain C program on malloc/free, the C peer for an allocator's sampler.
 *
 * The same trees built in the same order (left subtree, right subtree, then
 * the node), checked by the same traversal and mixed into the same checksum
 * as freecheck's workload at the same --size and --depth; every short-lived
 * tree is freed after its check, the long-lived tree stays allocated until
 * exit.
 */
#include "pr_common.h"

typedef struct TreeNode {
    struct TreeNode *left;  /* NULL at the leaves */
    struct TreeNode *right; /* NULL at the leaves */
    int64_t item;
} TreeNode;

enum { kMinDepth = 4 };

static TreeNode *bottom_up_tree(int64_t item, int depth) {
    TreeNode *left = NULL, *right = NULL;
    if (depth > 0) {
        left = bottom_up_tree(2 * item - 1, depth - 1);
        right = bottom_up_tree(2 * item, depth - 1);
    }
    TreeNode *node = pr_alloc(sizeof *node);
    node->left = left;
    node->right = right;
    node->item = item;
    return node;
}

static int64_t item_check(const TreeNode *node, int64_t *nodes) {
    ++*nodes;
    if (!node->left)
        return node->item;
    return node->item + item_check(node->left, nodes) - item_check(node->right, nodes);
}

static void free_tree(TreeNode *node) {
    if (node->left) {
        free_tree(node->left);
        free_tree(node->right);
    }
    free(node);
}

static void check_one(int64_t item, int depth, int64_t *check, int64_t *nodes) {
    TreeNode *tree = bottom_up_tree(item, depth);
    *check += item_check(tree, nodes);
    free_tree(tree);
}

static void binarytrees(int max_depth, int64_t size, pr_checksum *sum) {
    int64_t check = 0, nodes = 0;
    check_one(0, max_depth + 1, &check, &nodes); /* the stretch tree */
    pr_mix(sum, (uint64_t)check);
    pr_mix(sum, (uint64_t)nodes);

    TreeNode *long_lived = bottom_up_tree(0, max_depth);
    for (int d = kMinDepth; d <= max_depth; d += 2) {
        int64_t iters = size << (max_depth - d);
        check = 0;
        nodes = 0;
        for (int64_t i = 1; i <= iters; i++) {
            check_one(i, d, &check, &nodes);
            check_one(-i, d, &check, &nodes);
        }
        pr_mix(sum, (uint64_t)d);
        pr_mix(sum, (uint64_t)check);
        pr_mix(sum, (uint64_t)nodes);
    }
    nodes = 0;
    check = item_check(long_lived, &nodes);
    pr_mix(sum, (uint64_t)check);
    pr_mix(sum, (uint64_t)nodes);
}

int main(int argc, char **argv) {
    static const pr_spec spec = {
        .name = "binarytrees",
        .summary = "the Benchmarks Game's binary-trees on malloc/free (freecheck's binarytrees)",
        .default_size = 5,
        .max_size = 1 << 20,
        .default_depth = 16,
        .depth_min = kMinDepth + 2,
        .depth_max = 24,
    };
    pr_run run = pr_start(&spec, argc, argv);
    pr_checksum sum = PR_CHECKSUM_INIT;
    binarytrees((int)run.depth, run.size, &sum);
    return pr_finish(&run, &sum);
}
