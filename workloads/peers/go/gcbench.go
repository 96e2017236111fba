// gcbench.go - freecheck's gcbench workload (workloads/gcbench.c, Boehm's
// GCBench) in Go, the peer for Go's allocation sampler (runtime.MemProfileRate).
//
// The same plan (depths and array size from --size), the same trees built
// top-down and bottom-up in the same order, the same walk hashes and array
// sum mixed into the same checksum as freecheck's workload.
package main

import (
	"math"
	"math/bits"
	"unsafe"
)

type node struct {
	left, right *node // nil at the leaves
	index       int64 // heap-order position: root 1, children 2i and 2i+1
	depth       int64 // levels below this node
}

const minTreeDepth = 4

var gcNodeSize = uint64(unsafe.Sizeof(node{}))

type plan struct {
	stretchDepth, maxDepth   int
	arraySize, nodesPerDepth int64
}

func planFor(size int64) plan {
	var p plan
	nodes := size * 1024
	log2n := 63 - bits.LeadingZeros64(uint64(nodes))
	p.stretchDepth = log2n - 2
	if p.stretchDepth > 18 {
		p.stretchDepth = 18
	}
	if p.stretchDepth < minTreeDepth+2 {
		p.stretchDepth = minTreeDepth + 2
	}
	p.maxDepth = p.stretchDepth - 2
	p.arraySize = size * 512
	if p.arraySize > 500000 {
		p.arraySize = 500000
	}
	p.nodesPerDepth = nodes
	return p
}

func iterationsAt(p *plan, depth int) int64 {
	n := p.nodesPerDepth / (int64(1)<<uint(depth+1) - 1)
	if n > 0 {
		return n
	}
	return 1
}

func walkStep(h uint64, index, depth int64) uint64 {
	return (h^uint64(index))*0x100000001b3 + uint64(depth)
}

func newNode(index, depth int64) *node {
	altTick()
	bytesAllocated += gcNodeSize
	objectsAllocated++
	return &node{index: index, depth: depth}
}

func populate(depth int, n *node) {
	if depth <= 0 {
		return
	}
	depth--
	n.left = newNode(n.index*2, int64(depth))
	n.right = newNode(n.index*2+1, int64(depth))
	populate(depth, n.left)
	populate(depth, n.right)
}

func makeTree(depth int, index int64) *node {
	if depth <= 0 {
		return newNode(index, 0)
	}
	left := makeTree(depth-1, index*2)
	right := makeTree(depth-1, index*2+1)
	n := newNode(index, int64(depth))
	n.left = left
	n.right = right
	return n
}

func walkTree(n *node, h uint64) uint64 {
	for n != nil {
		h = walkStep(h, n.index, n.depth)
		h = walkTree(n.left, h)
		n = n.right
	}
	return h
}

func timeConstruction(p *plan, depth int, sum *checksum) {
	iters := iterationsAt(p, depth)
	var topDown, bottomUp uint64
	for i := int64(0); i < iters; i++ {
		tree := newNode(1, int64(depth))
		populate(depth, tree)
		topDown += walkTree(tree, 0)
	}
	for i := int64(0); i < iters; i++ {
		tree := makeTree(depth, 1)
		bottomUp += walkTree(tree, 0)
	}
	sum.mix(uint64(depth))
	sum.mix(topDown)
	sum.mix(bottomUp)
}

func runGCBench(p *plan, sum *checksum) {
	stretch := makeTree(p.stretchDepth, 1)
	sum.mix(walkTree(stretch, 0))
	stretch = nil

	longLived := newNode(1, int64(p.maxDepth))
	populate(p.maxDepth, longLived)

	altTick()
	bytesAllocated += uint64(p.arraySize) * 8
	objectsAllocated++
	array := make([]float64, p.arraySize)
	for i := int64(0); i < p.arraySize/2; i++ {
		array[i] = 1.0 / float64(i+1)
	}

	for d := minTreeDepth; d <= p.maxDepth; d += 2 {
		timeConstruction(p, d, sum)
	}

	sum.mix(walkTree(longLived, 0))
	total := 0.0
	for _, v := range array {
		total += v
	}
	sum.mix(math.Float64bits(total))
}

func main() {
	s := &spec{
		name:        "gcbench",
		summary:     "Boehm's GCBench in Go (freecheck's gcbench)",
		defaultSize: 800,
		maxSize:     1 << 20,
	}
	r := start(s)
	p := planFor(r.size)
	sum := newChecksum()
	runGCBench(&p, &sum)
	finish(s, &sum)
}
