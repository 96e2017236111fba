#!/bin/sh
# format-files.sh - the C files of the tree that .clang-format governs: the
# tracked *.c and *.h files (in a checkout without git: every *.c and *.h
# outside build/ and results/).
cd "$(dirname "$0")/.." || exit 1
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    git ls-files '*.c' '*.h'
else
    find . -path ./build -prune -o -path ./results -prune -o -name '*.[ch]' -print | sed 's|^\./||' | sort
fi
