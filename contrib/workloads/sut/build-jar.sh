#!/bin/sh
# build-jar.sh: compile slicelab-sut's sources and pack them into an executable jar.
# usage: build-jar.sh JAVAC JAR OUT.jar CLASSES_DIR SOURCE.java...
# Called by meson (contrib/workloads/meson.build); a separate script because a jar needs two
# tools run in sequence, and the classes directory is emptied first so a removed source
# cannot leave a stale class behind.
set -eu
javac=$1 jar=$2 out=$3 classes=$4
shift 4
rm -rf -- "$classes"
mkdir -p -- "$classes"
"$javac" --release 17 -Xlint:all -Werror -encoding UTF-8 -d "$classes" "$@"
rm -f -- "$out"
"$jar" --create --file "$out" --main-class slicelab.sut.Main -C "$classes" .
