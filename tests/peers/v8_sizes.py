#!/usr/bin/env python3
"""v8_sizes.py SNAPSHOT CLASS BYTES MIN - checks a V8 heap snapshot: every
object of class CLASS has self_size BYTES, and there are at least MIN of them
(the live tree the snapshot was taken with).  Exit 0 or 1 with the reason."""
import json
import sys


def main(path, cls, size, least):
    snap = json.load(open(path))
    meta = snap["snapshot"]["meta"]
    fields = meta["node_fields"]
    types = meta["node_types"][0]
    nf = len(fields)
    ti, ni, si = fields.index("type"), fields.index("name"), fields.index("self_size")
    nodes, strings = snap["nodes"], snap["strings"]
    sizes = {}
    for i in range(0, len(nodes), nf):
        if types[nodes[i + ti]] == "object" and strings[nodes[i + ni]] == cls:
            s = nodes[i + si]
            sizes[s] = sizes.get(s, 0) + 1
    total = sum(sizes.values())
    if total < least:
        print("%s: %d objects of class %s, expected at least %d" % (path, total, cls, least))
        return 1
    if set(sizes) != {size}:
        print("%s: objects of class %s have sizes %s (size: count), the peer counts %d bytes each" %
              (path, cls, sizes, size))
        return 1
    print("%d objects of class %s, %d bytes each" % (total, cls, size))
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 5:
        print("usage: v8_sizes.py SNAPSHOT CLASS BYTES MIN", file=sys.stderr)
        sys.exit(2)
    sys.exit(main(sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])))
