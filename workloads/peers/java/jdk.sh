#!/bin/sh
# jdk.sh - prints the home directory of the JDK whose javac is on PATH, if it
# is Java 17 or later and has the JNI/JVMTI headers; otherwise prints nothing
# and exits 1.  Used by workloads/peers/module.mk.
javac=$(command -v javac) || exit 1
home=$(dirname "$(dirname "$(readlink -f "$javac")")")
[ -f "$home/include/jni.h" ] && [ -f "$home/include/jvmti.h" ] && [ -x "$home/bin/java" ] || exit 1
major=$("$javac" -version 2>&1 | sed -n 's/^javac \([0-9]*\).*/\1/p')
[ -n "$major" ] && [ "$major" -ge 17 ] || exit 1
echo "$home"
