#!/bin/sh
# node.sh [--include] - prints the path of the node on PATH if it is Node.js
# 20 or later (whose V8 keeps the samples of collected objects when the
# inspector's HeapProfiler.startSampling asks for it) and its headers are
# installed (node_api.h, for the native addon fcthread.node); with
# --include, the headers' directory instead.  Otherwise prints nothing and
# exits 1.  Used by workloads/peers/module.mk.
node=$(command -v node) || exit 1
major=$("$node" -p 'process.versions.node.split(".")[0]' 2>/dev/null) || exit 1
[ -n "$major" ] && [ "$major" -ge 20 ] || exit 1
node=$(readlink -f "$node")
include=$(dirname "$(dirname "$node")")/include/node
[ -f "$include/node_api.h" ] || exit 1
if [ "${1:-}" = --include ]; then echo "$include"; else echo "$node"; fi
