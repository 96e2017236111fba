#!/bin/sh
# settings_doc.sh - docs/RUNTIME.md's settings table and docs/HARNESS.md's
# table of what the sweep does with each setting are SGC_SETTINGS's rows
# (contracts/sgc_settings_table.h), as settings_doc prints them: a row added,
# changed or left out on either side fails, naming the difference.
# Environment: SETTINGS_DOC, the program.
set -u
fail=0
# table FILE HEADER: the rows under the header line and its |---| line, to
# the first line that is not a row.
table() {
    awk -v h="$2" 'found == 2 && /^\|/ { print; next } found == 2 { exit }
        found == 1 { found = 2; next } $0 == h { found = 1 }' "$1"
}
check() { # FILE HEADER WHICH
    tmp=$(mktemp)
    "$SETTINGS_DOC" "$3" > "$tmp" || { echo "settings_doc $3 failed"; fail=1; }
    if [ "$(table "$1" "$2" | wc -l)" -eq 0 ]; then
        echo "$1: no table under '$2'"
        fail=1
    elif ! table "$1" "$2" | diff -u "$tmp" - ; then
        echo "$1: the settings table differs from SGC_SETTINGS (contracts/sgc_settings_table.h; - the table, + the document)"
        fail=1
    else
        echo "$1: $(wc -l < "$tmp") rows agree"
    fi
    rm -f "$tmp"
}
check docs/RUNTIME.md '| variable | meaning | accepted | default |' runtime
check docs/HARNESS.md '| variable | unit | sweep | a run'"'"'s stats record confirms it by |' harness
exit $fail
