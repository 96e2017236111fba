#!/bin/sh
# deps.sh - makes sure the Debian packages freecheck builds and tests with are
# installed: installs the missing ones with apt-get when run as root, and
# otherwise prints the exact command to run and fails.
# One package a line, so each module adds its own without touching the others'.
PACKAGES="
build-essential
pkg-config
clang
libclang-rt-14-dev
libcriterion-dev
libpfm4-dev
libgsl-dev
libsqlite3-dev
sqlite3
python3
gnuplot-nox
libgc-dev
valgrind
git
clang-format
zlib1g-dev
libdeflate-dev
libprotobuf-c-dev
protobuf-c-compiler
golang-github-google-pprof-dev
golang-go
libjemalloc-dev
libgoogle-perftools-dev
openjdk-17-jdk-headless
nodejs
slurm-wlm
munge
"

missing=""
for p in $PACKAGES; do
    status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null)
    case "$status" in
        *"install ok installed"*) ;;
        *) missing="$missing $p" ;;
    esac
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" = 0 ]; then
    echo "deps: installing:$missing"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -q >/dev/null || { echo "deps: apt-get update failed" >&2; exit 1; }
    apt-get install -y -q $missing >/dev/null ||
        { echo "deps: apt-get install failed for:$missing" >&2; exit 1; }
    exit 0
fi
echo "deps: missing Debian packages:$missing" >&2
echo "deps: install them with:  sudo apt-get install$missing" >&2
exit 1
