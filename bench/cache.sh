#!/bin/bash
# The cost of a private write layer (cache = PATH, issue 27) on a warm
# build, against the same paths plainly rw: run by bench.sh (BENCH_PARTS
# "cache"), as the calling user, offline.
#
#  - go build: a tiny module using one dependency from the module cache
#    (served once by a file:// proxy of this script's), the build cache
#    warm; every build follows an edit of main.go (the main package is
#    compiled and linked, everything else comes from ~/.cache/go-build and
#    ~/go/pkg/mod, through the overlay);
#  - cargo build: a tiny crate, its target/ warm, src/main.rs edited
#    before every build; rustc and the standard library come from
#    ~/.rustup, through the overlay (devbackend's cache rule).
#
# BENCH_CACHE_PAIRS pairs of builds, rw then cache, the order swapped
# every pair; the cost is the median of the pairs' own ratios (bench.sh,
# overhead(), says why pairs). Target: <= 5 %.
set -u
export LC_ALL=C
SBX=${SBX:?set SBX to the sbx binary}
PAIRS=${BENCH_CACHE_PAIRS:-15}
work=$(mktemp -d "${BENCH_CACHE_DIR:-$PWD}/sbx-bench-cache.XXXXXX")
trap 'chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"' EXIT
home=$work/home state=$work/state
mkdir -p "$home/.cache" "$state"
export XDG_STATE_HOME=$state   # the layers, kept out of the caller's home

# timed_ms (bench/pairs.sh)
. "$(dirname "$0")/pairs.sh"

# profiles KIND PATH...: $work/KIND.ini, default plus KIND = PATH each
profile() {
    local kind=$1 p
    shift
    { printf '[profile]\ninclude = default\n[filesystem]\n'
      for p in "$@"; do printf '%s = %s\n' "$kind" "$p"; done; } >"$work/$kind.ini"
}

# measure NAME DIR EDIT-CMD BUILD-CMD...: pairs of warm builds under rw.ini
# and cache.ini, EDIT-CMD before each
measure() {
    local name=$1 dir=$2 edit=$3 a b i pairs=$work/pairs.$RANDOM
    shift 3
    cd "$dir" || exit 1
    for k in rw cache rw cache; do   # warm-up: the layers' first copy-ups, the caches
        sh -c "$edit" && timed_ms "$SBX" run -q -p "$work/$k.ini" -- "$@" >/dev/null ||
            { echo "bench: $name under $k failed:"; "$SBX" run -p "$work/$k.ini" -- "$@"; exit 1; }
    done
    : >"$pairs"
    for i in $(seq "$PAIRS"); do
        sh -c "$edit"
        if [ $((i % 2)) = 1 ]; then
            a=$(timed_ms "$SBX" run -q -p "$work/rw.ini" -- "$@") && sh -c "$edit" &&
                b=$(timed_ms "$SBX" run -q -p "$work/cache.ini" -- "$@")
        else
            b=$(timed_ms "$SBX" run -q -p "$work/cache.ini" -- "$@") && sh -c "$edit" &&
                a=$(timed_ms "$SBX" run -q -p "$work/rw.ini" -- "$@")
        fi || { echo "bench: a build of $name failed"; exit 1; }
        echo "$a $b" >>"$pairs"
    done
    sort -n -k1 "$pairs" | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }' >"$work/a"
    sort -n -k2 "$pairs" | awk '{ b[NR] = $2 } END { print b[int((NR + 1) / 2)] }' >"$work/b"
    awk '{ print ($2 / $1 - 1) * 100 }' "$pairs" | sort -n |
        awk '{ r[NR] = $1 } END { printf "%.1f %.1f %.1f\n", r[int((NR + 1) / 2)], r[int(NR / 4) + 1], r[int(3 * NR / 4) + 1] }' >"$work/r"
    read -r med q1 q3 <"$work/r"
    printf '  %-34s rw %8.1f ms   cache %8.1f ms   cost %+.1f %% (quartiles %+.1f, %+.1f; target <= 5 %%)\n' \
        "$name" "$(cat "$work/a")" "$(cat "$work/b")" "$med" "$q1" "$q3"
}

echo "== private write layers (cache = PATH) against rw, warm builds, $PAIRS pairs each"

# --- go build ----------------------------------------------------------------------
if command -v go >/dev/null && command -v python3 >/dev/null; then
    gp=$work/goproxy/example.com/dep/@v app=$work/goapp
    mkdir -p "$gp" "$app"
    python3 - "$gp" <<'PY'
import json, sys, zipfile
d = sys.argv[1] + "/"
mod = "module example.com/dep\n\ngo 1.19\n"
open(d + "list", "w").write("v1.0.0\n")
open(d + "v1.0.0.info", "w").write(json.dumps({"Version": "v1.0.0", "Time": "2024-01-01T00:00:00Z"}))
open(d + "v1.0.0.mod", "w").write(mod)
with zipfile.ZipFile(d + "v1.0.0.zip", "w") as z:
    z.writestr("example.com/dep@v1.0.0/go.mod", mod)
    z.writestr("example.com/dep@v1.0.0/dep.go", 'package dep\n\nimport "strings"\n\nfunc Msg() string { return strings.ToUpper("dep") }\n')
PY
    printf 'module example.com/app\n\ngo 1.19\n\nrequire example.com/dep v1.0.0\n' >"$app/go.mod"
    printf 'package main\n\nimport (\n\t"fmt"\n\t"net/http"\n\t"example.com/dep"\n)\n\nfunc main() { fmt.Println(dep.Msg(), http.StatusOK) }\n' >"$app/main.go"
    export HOME=$home GOCACHE=$home/.cache/go-build GOMODCACHE=$home/go/pkg/mod GOPATH=$home/go \
        GOSUMDB=off GOFLAGS=-mod=mod GOTOOLCHAIN=local XDG_CACHE_HOME=
    (cd "$app" && GOPROXY=file://$work/goproxy go build -o app.bin . ) ||
        { echo "bench: go cannot build the bench's module offline"; exit 1; }
    export GOPROXY=off
    profile rw "$home/.cache" "$home/go/pkg/mod"
    profile cache "$home/.cache" "$home/go/pkg/mod"
    measure "go build (edit main.go)" "$app" "echo '// edit' >>main.go" go build -o app.bin .
else
    echo "  go build: not measured (go or python3 is missing: apt-get install golang-go python3)"
fi

# --- cargo build ---------------------------------------------------------------------
rustup_home=${RUSTUP_HOME:-${CALLER_HOME:-$(getent passwd "$(id -u)" | cut -d: -f6)}/.rustup}
cargo_home=${CARGO_HOME:-$(dirname "$rustup_home")/.cargo}
if [ -x "$cargo_home/bin/cargo" ] && [ -d "$rustup_home/toolchains" ]; then
    crate=$work/crate
    mkdir -p "$crate/src"
    printf '[package]\nname = "benchcrate"\nversion = "0.1.0"\nedition = "2021"\n' >"$crate/Cargo.toml"
    printf 'use std::collections::HashMap;\nfn main() {\n    let mut m = HashMap::new();\n    m.insert("a", 1);\n    println!("{:?}", m);\n}\n' >"$crate/src/main.rs"
    export RUSTUP_HOME=$rustup_home CARGO_HOME=$cargo_home
    (cd "$crate" && "$cargo_home/bin/cargo" build --offline -q) ||
        { echo "bench: cargo cannot build the bench's crate offline"; exit 1; }
    profile rw "$rustup_home" "$cargo_home/registry"
    profile cache "$rustup_home" "$cargo_home/registry"
    mkdir -p "$cargo_home/registry"
    measure "cargo build (edit src/main.rs)" "$crate" "echo '// edit' >>src/main.rs" \
        "$cargo_home/bin/cargo" build --offline -q
else
    echo "  cargo build: not measured (no cargo and rustup toolchain in $cargo_home, $rustup_home)"
fi
