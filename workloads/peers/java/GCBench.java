// GCBench.java - freecheck's gcbench workload (workloads/gcbench.c, Boehm's
// GCBench) in Java, the peer for HotSpot's heap sampling (see Peer.java).
//
// The same plan (depths and array size from --size), the same trees built
// top-down and bottom-up in the same order, the same walk hashes and array sum
// mixed into the same checksum as freecheck's workload.
final class GCBench {
    static final int MIN_TREE_DEPTH = 4;

    static final class Node {
        Node left; // null at the leaves
        Node right;
        final long index; // heap-order position: root 1, children 2i and 2i+1
        final long depth; // levels below this node

        Node(long index, long depth) {
            this.index = index;
            this.depth = depth;
        }
    }

    static int stretchDepth, maxDepth;
    static long arraySize, nodesPerDepth;

    static void planFor(long size) {
        long nodes = size * 1024;
        int log2n = 63 - Long.numberOfLeadingZeros(nodes);
        stretchDepth = Math.max(Math.min(log2n - 2, 18), MIN_TREE_DEPTH + 2);
        maxDepth = stretchDepth - 2;
        arraySize = Math.min(size * 512, 500000);
        nodesPerDepth = nodes;
    }

    static long iterationsAt(int depth) {
        long n = nodesPerDepth / ((1L << (depth + 1)) - 1);
        return n > 0 ? n : 1;
    }

    static long walkStep(long h, long index, long depth) {
        return (h ^ index) * 0x100000001b3L + depth;
    }

    static Node newNode(long index, long depth) {
        Alt.tick();
        Peer.objects++;
        return new Node(index, depth);
    }

    static void populate(int depth, Node node) {
        if (depth <= 0) {
            return;
        }
        depth--;
        node.left = newNode(node.index * 2, depth);
        node.right = newNode(node.index * 2 + 1, depth);
        populate(depth, node.left);
        populate(depth, node.right);
    }

    static Node makeTree(int depth, long index) {
        if (depth <= 0) {
            return newNode(index, 0);
        }
        Node left = makeTree(depth - 1, index * 2);
        Node right = makeTree(depth - 1, index * 2 + 1);
        Node node = newNode(index, depth);
        node.left = left;
        node.right = right;
        return node;
    }

    static long walkTree(Node node, long h) {
        while (node != null) {
            h = walkStep(h, node.index, node.depth);
            h = walkTree(node.left, h);
            node = node.right;
        }
        return h;
    }

    static void timeConstruction(Peer p, int depth) {
        long iters = iterationsAt(depth);
        long topDown = 0, bottomUp = 0;
        for (long i = 0; i < iters; i++) {
            Node tree = newNode(1, depth);
            populate(depth, tree);
            topDown += walkTree(tree, 0);
        }
        for (long i = 0; i < iters; i++) {
            Node tree = makeTree(depth, 1);
            bottomUp += walkTree(tree, 0);
        }
        p.mix(depth);
        p.mix(topDown);
        p.mix(bottomUp);
    }

    public static void main(String[] args) {
        Peer p = Peer.start("gcbench", "Boehm's GCBench in Java (freecheck's gcbench)", args, 800, 1 << 20, 0, 0, 0);
        planFor(p.size);

        Node stretch = makeTree(stretchDepth, 1);
        p.mix(walkTree(stretch, 0));
        stretch = null;

        Node longLived = newNode(1, maxDepth);
        populate(maxDepth, longLived);

        Alt.tick();
        Peer.objects++;
        double[] array = new double[(int) arraySize];
        for (int i = 0; i < arraySize / 2; i++) {
            array[i] = 1.0 / (double) (i + 1);
        }

        for (int d = MIN_TREE_DEPTH; d <= maxDepth; d += 2) {
            timeConstruction(p, d);
        }

        p.mix(walkTree(longLived, 0));
        double total = 0.0;
        for (int i = 0; i < arraySize; i++) {
            total += array[i];
        }
        p.mixDouble(total);
        p.finish();
    }
}
