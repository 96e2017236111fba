#!/bin/sh
# format-check.sh - fails (exit 1) naming every C file of the tree whose
# layout differs from .clang-format; `make format` fixes them.  Run by
# `make format-check`, which `make test` includes.
cd "$(dirname "$0")/.." || exit 1
command -v clang-format >/dev/null 2>&1 ||
    { echo "format-check: clang-format not found; install it with: sudo apt-get install clang-format (make deps does it)" >&2; exit 1; }
files=$(sh scripts/format-files.sh) || exit 1
bad=""
for f in $files; do
    clang-format --style=file --dry-run --Werror "$f" >/dev/null 2>&1 || bad="$bad $f"
done
if [ -n "$bad" ]; then
    echo "format-check: these files differ from .clang-format (make format rewrites them):"
    for f in $bad; do echo "  $f"; done
    exit 1
fi
echo "format-check: $(echo $files | wc -w) C files follow .clang-format"
