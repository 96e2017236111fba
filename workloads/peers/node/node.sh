#!/bin/sh
# node.sh - prints the path of the node on PATH if it is Node.js 20 or later
# (whose V8 keeps the samples of collected objects when the inspector's
# HeapProfiler.startSampling asks for it); otherwise prints nothing and
# exits 1.  Used by workloads/peers/module.mk.
node=$(command -v node) || exit 1
major=$("$node" -p 'process.versions.node.split(".")[0]' 2>/dev/null) || exit 1
[ -n "$major" ] && [ "$major" -ge 20 ] || exit 1
readlink -f "$node"
