// gcbench.js - freecheck's gcbench workload (workloads/gcbench.c, Boehm's
// GCBench) in JavaScript, the peer for V8's allocation sampler (see
// common.js).
//
// The same plan (depths and array size from --size), the same trees built
// top-down and bottom-up in the same order, the same walk hashes and array
// sum mixed into the same checksum as freecheck's workload.  The 64-bit walk
// hash is kept as 16-bit limbs in a typed array, so hashing allocates
// nothing; the array of doubles is a Float64Array (common.js: its elements
// are outside V8's heap).
"use strict";

const peer = require("./common.js");

const MIN_TREE_DEPTH = 4;
const NODE_BYTES = 56; // V8's size of a Node: three header words and four fields

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
    peer.tick();
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

// The walk hash h = (h ^ index) * 0x100000001b3 + depth (mod 2^64), as four
// 16-bit limbs in an Int32Array (h[0] the lowest), so that every
// intermediate is a small integer and hashing allocates nothing in any of
// V8's tiers.  0x100000001b3 = 2^40 + 435: h * 435 plus (h * 256) << 32.
const h = new Int32Array(4);

function walkStep(index, depth) {
    const x0 = h[0] ^ (index & 0xffff), x1 = h[1] ^ ((index >>> 16) & 0xffff), x2 = h[2], x3 = h[3];
    let a0 = x0 * 435, a1 = x1 * 435, a2 = x2 * 435, a3 = x3 * 435; // below 2^25
    a1 += a0 >>> 16;
    a2 += a1 >>> 16;
    a3 += a2 >>> 16;
    let y0 = x0 * 256, y1 = x1 * 256; // (h * 256)'s two low limbs, shifted into limbs 2 and 3
    y1 += y0 >>> 16;
    let r0 = (a0 & 0xffff) + depth;
    let r1 = (a1 & 0xffff) + (r0 >>> 16);
    let r2 = (a2 & 0xffff) + (y0 & 0xffff) + (r1 >>> 16);
    let r3 = (a3 & 0xffff) + (y1 & 0xffff) + (r2 >>> 16);
    h[0] = r0 & 0xffff;
    h[1] = r1 & 0xffff;
    h[2] = r2 & 0xffff;
    h[3] = r3 & 0xffff;
}

function walk(node) {
    while (node !== null) {
        walkStep(node.index, node.depth);
        walk(node.left);
        node = node.right;
    }
}

function limbs(a) {
    return (BigInt(a[3]) << 48n) | (BigInt(a[2]) << 32n) | (BigInt(a[1]) << 16n) | BigInt(a[0]);
}

// walk_tree(tree, 0) of the C version: the hash as a BigInt.
function walkTree(tree) {
    h.fill(0);
    walk(tree);
    return limbs(h);
}

// acc += h (mod 2^64), both in limbs.
function addHash(acc) {
    let c = 0;
    for (let i = 0; i < 4; i++) {
        const v = acc[i] + h[i] + c;
        acc[i] = v & 0xffff;
        c = v >>> 16;
    }
}

const topDown = new Int32Array(4), bottomUp = new Int32Array(4);

function timeConstruction(p, depth, sum) {
    const iters = iterationsAt(p, depth);
    topDown.fill(0);
    bottomUp.fill(0);
    for (let i = 0; i < iters; i++) {
        const tree = newNode(1, depth);
        populate(depth, tree);
        h.fill(0);
        walk(tree);
        addHash(topDown);
    }
    for (let i = 0; i < iters; i++) {
        const tree = makeTree(depth, 1);
        h.fill(0);
        walk(tree);
        addHash(bottomUp);
    }
    sum.mixNumber(depth);
    sum.mix(limbs(topDown));
    sum.mix(limbs(bottomUp));
}

function gcbench(p, sum) {
    sum.mix(walkTree(makeTree(p.stretchDepth, 1))); // the stretch tree

    const longLived = newNode(1, p.maxDepth);
    populate(p.maxDepth, longLived);
    peer.snapshotPoint();

    peer.tickOther(0); // the array: its elements are outside V8's heap
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
    nodeBytes: NODE_BYTES,
    defaultDepth: 0,
    depthMin: 0,
    depthMax: 0,
});
const sum = new peer.Checksum();
gcbench(planFor(run.size), sum);
peer.finish(sum);
