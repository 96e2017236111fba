// binarytrees.go - freecheck's binarytrees workload (workloads/binarytrees.c)
// in Go, the peer for Go's allocation sampler (runtime.MemProfileRate).
//
// The same trees built in the same order (left subtree, right subtree, then
// the node), the same checks and the same checksum as freecheck's workload
// at the same --size and --depth.
package main

import "unsafe"

type treeNode struct {
	left, right *treeNode // nil at the leaves
	item        int64
}

const minDepth = 4

var nodeSize = uint64(unsafe.Sizeof(treeNode{}))

func bottomUpTree(item int64, depth int) *treeNode {
	var left, right *treeNode
	if depth > 0 {
		left = bottomUpTree(2*item-1, depth-1)
		right = bottomUpTree(2*item, depth-1)
	}
	altTick()
	bytesAllocated += nodeSize
	objectsAllocated++
	return &treeNode{left: left, right: right, item: item}
}

func itemCheck(node *treeNode, nodes *int64) int64 {
	*nodes++
	if node.left == nil {
		return node.item
	}
	return node.item + itemCheck(node.left, nodes) - itemCheck(node.right, nodes)
}

func checkOne(item int64, depth int, check, nodes *int64) {
	tree := bottomUpTree(item, depth)
	*check += itemCheck(tree, nodes)
}

func binarytrees(maxDepth int, size int64, sum *checksum) {
	var check, nodes int64
	checkOne(0, maxDepth+1, &check, &nodes) // the stretch tree
	sum.mix(uint64(check))
	sum.mix(uint64(nodes))

	longLived := bottomUpTree(0, maxDepth)
	for d := minDepth; d <= maxDepth; d += 2 {
		iters := size << uint(maxDepth-d)
		check, nodes = 0, 0
		for i := int64(1); i <= iters; i++ {
			checkOne(i, d, &check, &nodes)
			checkOne(-i, d, &check, &nodes)
		}
		sum.mix(uint64(d))
		sum.mix(uint64(check))
		sum.mix(uint64(nodes))
	}
	nodes = 0
	check = itemCheck(longLived, &nodes)
	sum.mix(uint64(check))
	sum.mix(uint64(nodes))
}

func main() {
	s := &spec{
		name:         "binarytrees",
		summary:      "the Benchmarks Game's binary-trees in Go (freecheck's binarytrees)",
		defaultSize:  5,
		maxSize:      1 << 20,
		defaultDepth: 16,
		depthMin:     minDepth + 2,
		depthMax:     24,
	}
	r := start(s)
	sum := newChecksum()
	binarytrees(int(r.depth), r.size, &sum)
	finish(s, &sum)
}
