// binarytrees.js - freecheck's binarytrees workload (workloads/binarytrees.c)
// in JavaScript, the peer for V8's allocation sampler (see common.js).
//
// The same trees built in the same order (left subtree, right subtree, then
// the node), the same checks and the same checksum as freecheck's workload
// at the same --size and --depth.  Every item is a small integer (V8 would
// box a larger one into a heap number of its own, a different allocation),
// so --size times 2^depth must stay below 2^30.
"use strict";

const peer = require("./common.js");

const MIN_DEPTH = 4;
const NODE_BYTES = 48; // V8's size of a TreeNode: three header words and three fields

class TreeNode {
    constructor(left, right, item) {
        this.left = left; // null at the leaves
        this.right = right;
        this.item = item;
    }
}

function bottomUpTree(item, depth) {
    let left = null, right = null;
    if (depth > 0) {
        left = bottomUpTree(2 * item - 1, depth - 1);
        right = bottomUpTree(2 * item, depth - 1);
    }
    peer.tick();
    return new TreeNode(left, right, item);
}

// Nodes visited by itemCheck: low part below 2^30 and the 2^30s, in an
// Int32Array (no heap numbers in any tier).
const visits = new Int32Array(2);

function visited() {
    return visits[1] * 0x40000000 + visits[0];
}

function itemCheck(node) {
    if (++visits[0] === 0x40000000) {
        visits[0] = 0;
        visits[1]++;
    }
    if (node.left === null) return node.item;
    return node.item + itemCheck(node.left) - itemCheck(node.right);
}

function checkOne(item, depth) {
    return itemCheck(bottomUpTree(item, depth));
}

function binarytrees(maxDepth, size, sum) {
    visits[0] = visits[1] = 0;
    let check = checkOne(0, maxDepth + 1); // the stretch tree
    sum.mixNumber(check);
    sum.mixNumber(visited());

    const longLived = bottomUpTree(0, maxDepth);
    peer.snapshotPoint();
    for (let d = MIN_DEPTH; d <= maxDepth; d += 2) {
        const iters = size * 2 ** (maxDepth - d);
        check = 0;
        visits[0] = visits[1] = 0;
        for (let i = 1; i <= iters; i++) {
            check += checkOne(i, d);
            check += checkOne(-i, d);
        }
        sum.mixNumber(d);
        sum.mixNumber(check);
        sum.mixNumber(visited());
    }
    visits[0] = visits[1] = 0;
    check = itemCheck(longLived);
    sum.mixNumber(check);
    sum.mixNumber(visited());
}

const run = peer.start({
    name: "binarytrees",
    summary: "the Benchmarks Game's binary-trees in JavaScript on V8 (freecheck's binarytrees)",
    defaultSize: 5,
    maxSize: 1 << 20,
    nodeBytes: NODE_BYTES,
    defaultDepth: 16,
    depthMin: MIN_DEPTH + 2,
    depthMax: 24,
    check: (r) => {
        if (r.size * 2 ** r.depth >= 2 ** 30) {
            peer.usageError("binarytrees", `--size ${r.size} with --depth ${r.depth} makes items of 2^30 or more, ` +
                "which V8 would keep as heap numbers: keep size * 2^depth below 2^30");
        }
    },
});
const sum = new peer.Checksum();
binarytrees(run.depth, run.size, sum);
peer.finish(sum);
