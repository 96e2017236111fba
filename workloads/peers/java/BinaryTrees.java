// BinaryTrees.java - freecheck's binarytrees workload (workloads/binarytrees.c)
// in Java, the peer for HotSpot's heap sampling (see Peer.java).
//
// The same trees built in the same order (left subtree, right subtree, then
// the node), the same checks and the same checksum as freecheck's workload at
// the same --size and --depth.
final class BinaryTrees {
    static final int MIN_DEPTH = 4;

    static final class TreeNode {
        final TreeNode left; // null at the leaves
        final TreeNode right;
        final long item;

        TreeNode(TreeNode left, TreeNode right, long item) {
            this.left = left;
            this.right = right;
            this.item = item;
        }
    }

    static TreeNode bottomUpTree(long item, int depth) {
        TreeNode left = null, right = null;
        if (depth > 0) {
            left = bottomUpTree(2 * item - 1, depth - 1);
            right = bottomUpTree(2 * item, depth - 1);
        }
        Alt.tick();
        Peer.objects++;
        return new TreeNode(left, right, item);
    }

    static long itemCheck(TreeNode node, long[] nodes) {
        nodes[0]++;
        if (node.left == null) {
            return node.item;
        }
        return node.item + itemCheck(node.left, nodes) - itemCheck(node.right, nodes);
    }

    static long checkOne(long item, int depth, long[] nodes) {
        TreeNode tree = bottomUpTree(item, depth);
        return itemCheck(tree, nodes);
    }

    public static void main(String[] args) {
        Peer p = Peer.start("binarytrees", "the Benchmarks Game's binary-trees in Java (freecheck's binarytrees)",
                args, 5, 1 << 20, 16, MIN_DEPTH + 2, 24);
        int maxDepth = (int) p.depth;
        long[] nodes = {0};
        long check = checkOne(0, maxDepth + 1, nodes); // the stretch tree
        p.mix(check);
        p.mix(nodes[0]);

        TreeNode longLived = bottomUpTree(0, maxDepth);
        for (int d = MIN_DEPTH; d <= maxDepth; d += 2) {
            long iters = p.size << (maxDepth - d);
            check = 0;
            nodes[0] = 0;
            for (long i = 1; i <= iters; i++) {
                check += checkOne(i, d, nodes);
                check += checkOne(-i, d, nodes);
            }
            p.mix(d);
            p.mix(check);
            p.mix(nodes[0]);
        }
        nodes[0] = 0;
        check = itemCheck(longLived, nodes);
        p.mix(check);
        p.mix(nodes[0]);
        p.finish();
    }
}
