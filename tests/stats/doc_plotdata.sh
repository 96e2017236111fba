#!/bin/sh
# doc_plotdata.sh ANALYZE DOC - the plot-data tables of DOC (docs/STATISTICS.md)
# state every file of analyze's plot-data table (`analyze
# --print-plotdata-columns`) with exactly its columns, in order, and name no
# file the table does not have.
analyze=$1 doc=$2
cols=$("$analyze" --print-plotdata-columns) || { echo "FAIL: $analyze --print-plotdata-columns"; exit 1; }
fail=0
n=0
for name in $(echo "$cols" | awk '{ print $1 }'); do
    want=$(echo "$cols" | awk -v f="$name" '$1 == f { for (i = 2; i <= NF; i++) { sub(/:.*/, "", $i); printf "%s%s", (i > 2 ? " " : ""), $i } }')
    # The row: | `NAME.dat` | figures | `columns` (notes) |
    got=$(grep "^| \`$name.dat\` |" "$doc" | awk -F'|' '{ print $4 }' | sed 's/^ *`\([^`]*\)`.*/\1/')
    rows=$(grep -c "^| \`$name.dat\` |" "$doc")
    if [ "$rows" -ne 1 ]; then
        echo "FAIL: $name.dat: $rows rows in $doc, want 1"; fail=1
    elif [ "$got" != "$want" ]; then
        echo "FAIL: $name.dat: $doc says '$got', analyze writes '$want'"; fail=1
    else
        n=$((n + 1))
    fi
done
for f in $(grep -o '^| `[a-z_]*\.dat` |' "$doc" | sed 's/^| `\([a-z_]*\)\.dat` |/\1/'); do
    echo "$cols" | awk -v f="$f" '$1 == f { found = 1 } END { exit !found }' ||
        case "$f" in
        compare | validation | inproc) ;; # written by compare and validation, not analyze
        *) echo "FAIL: $doc has a row for $f.dat, which analyze does not write"; fail=1 ;;
        esac
done
echo "$n plot-data files stated as analyze writes them"
[ "$fail" -eq 0 ] && [ "$n" -eq "$(echo "$cols" | wc -l)" ]
