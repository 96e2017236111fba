#!/bin/sh
# embed.sh NAME FILE - prints a C header defining `static const char NAME[]`
# holding FILE's text, so a program carries a file of the repository (e.g.
# contracts/schema.sql) that it was built from.  Used by the Makefile only.
set -e
[ $# -eq 2 ] || { echo "usage: sh scripts/embed.sh NAME FILE" >&2; exit 2; }
[ -r "$2" ] || { echo "embed.sh: $2: cannot read" >&2; exit 2; }
echo "/* Generated from $2 by scripts/embed.sh: edit $2, not this file. */"
echo "static const char $1[] ="
sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/    "/' -e 's/$/\\n"/' "$2"
echo "    ;"
