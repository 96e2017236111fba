// gcbench.js - freecheck's gcbench workload (workloads/gcbench.c, Boehm's
// GCBench) in JavaScript, the peer for V8's allocation sampler (see
// common.js).
//
// The same plan (depths and array size from --size), the same trees built
// top-down and bottom-up in the same order, the same walk hashes and array
// sum mixed into the same checksum as freecheck's workload.  The 64-bit walk
// hash is kept as two 32-bit halves in a typed array, so hashing allocates
// nothing; the array of doubles is a Float64Array (common.js: its elements
// are outside V8's heap).
"use strict";

const peer = require("./common.js");

const MIN_TREE_DEPTH = 4;
const NODE_BYTES = 56; // V8's size of a Node: three header words and four fields
const TWO32 = 4294967296;

class Node {
    constructor(index, depth) {
        this.left = null; // null at the leaves
        this.right = null;
        this.index = index; // heap-order position: root 1, children 2i and 2i+1
        this.depth = depth; // levels below this node
    }
}

function planFor(size) {
    const nodes = size * 1024;
    let stretch = Math.floor(Math.log2(nodes)) - 2;
    while (2 ** (stretch + 2) > nodes) stretch--; // log2n - 2 with log2n = floor(log2(nodes)) exactly,
    while (2 ** (stretch + 3) <= nodes) stretch++; // whatever Math.log2 rounds
    if (stretch > 18) stretch = 18;
    if (stretch < MIN_TREE_DEPTH + 2) stretch = MIN_TREE_DEPTH + 2;
    return {
        stretchDepth: stretch,
        maxDepth: stretch - 2,
        arraySize: Math.min(size * 512, 500000),
        nodesPerDepth: nodes,
    };
}

function iterationsAt(p, depth) {
    const n = Math.floor(p.nodesPerDepth / (2 ** (depth + 1) - 1));
    return n > 0 ? n : 1;
}

function newNode(index, depth) {
    peer.tick(NODE_BYTES);
    return new Node(index, depth);
}

function populate(depth, node) {
    if (depth <= 0) return;
    depth--;
    node.left = newNode(node.index * 2, depth);
    node.right = newNode(node.index * 2 + 1, depth);
    populate(depth, node.left);
    populate(depth, node.right);
}

function makeTree(depth, index) {
    if (depth <= 0) return newNode(index, 0);
    const left = makeTree(depth - 1, index * 2);
    const right = makeTree(depth - 1, index * 2 + 1);
    const node = newNode(index, depth);
    node.left = left;
    node.right = right;
    return node;
}

// The walk hash h = (h ^ index) * 0x100000001b3 + depth (mod 2^64), in
// halves: w[0] the high 32 bits, w[1] the low.  0x100000001b3 = 2^40 + 435.
const w = new Uint32Array(2);

function walkStep(index, depth) {
    const xlo = (w[1] ^ index) >>> 0;
    const xhi = w[0];
    const m = xlo * 435; // below 2^41: exact
    let lo = m >>> 0;
    let hi = (xhi * 435 + Math.floor(m / TWO32) + ((xlo << 8) >>> 0)) >>> 0; // + (x << 40)'s high word
    lo += depth;
    if (lo >= TWO32) {
        lo -= TWO32;
        hi = (hi + 1) >>> 0;
    }
    w[0] = hi;
    w[1] = lo;
}

function walk(node) {
    while (node !== null) {
        walkStep(node.index, node.depth);
        walk(node.left);
        node = node.right;
    }
}

// walk_tree(tree, 0) of the C version: the hash as a BigInt.
function walkTree(tree) {
    w[0] = 0;
    w[1] = 0;
    walk(tree);
    return (BigInt(w[0]) << 32n) | BigInt(w[1]);
}

// A 64-bit sum in halves (acc[0] high, acc[1] low), adding w.
function addHash(acc) {
    let lo = acc[1] + w[1];
    let carry = 0;
    if (lo >= TWO32) {
        lo -= TWO32;
        carry = 1;
    }
    acc[0] = (acc[0] + w[0] + carry) >>> 0;
    acc[1] = lo;
}

const topDown = new Uint32Array(2), bottomUp = new Uint32Array(2);

function halves(a) {
    return (BigInt(a[0]) << 32n) | BigInt(a[1]);
}

function timeConstruction(p, depth, sum) {
    const iters = iterationsAt(p, depth);
    topDown[0] = topDown[1] = bottomUp[0] = bottomUp[1] = 0;
    for (let i = 0; i < iters; i++) {
        const tree = newNode(1, depth);
        populate(depth, tree);
        w[0] = w[1] = 0;
        walk(tree);
        addHash(topDown);
    }
    for (let i = 0; i < iters; i++) {
        const tree = makeTree(depth, 1);
        w[0] = w[1] = 0;
        walk(tree);
        addHash(bottomUp);
    }
    sum.mixNumber(depth);
    sum.mix(halves(topDown));
    sum.mix(halves(bottomUp));
}

function gcbench(p, sum) {
    sum.mix(walkTree(makeTree(p.stretchDepth, 1))); // the stretch tree

    const longLived = newNode(1, p.maxDepth);
    populate(p.maxDepth, longLived);

    peer.tick(0); // the array: its elements are outside V8's heap
    const array = new Float64Array(p.arraySize);
    const half = Math.floor(p.arraySize / 2);
    for (let i = 0; i < half; i++) array[i] = 1.0 / (i + 1);

    for (let d = MIN_TREE_DEPTH; d <= p.maxDepth; d += 2) timeConstruction(p, d, sum);

    sum.mix(walkTree(longLived));
    let total = 0.0;
    for (let i = 0; i < p.arraySize; i++) total += array[i];
    sum.mixDouble(total);
}

const run = peer.start({
    name: "gcbench",
    summary: "Boehm's GCBench in JavaScript on V8 (freecheck's gcbench)",
    defaultSize: 800,
    maxSize: 1 << 20,
    defaultDepth: 0,
    depthMin: 0,
    depthMax: 0,
});
const sum = new peer.Checksum();
gcbench(planFor(run.size), sum);
peer.finish(sum);
