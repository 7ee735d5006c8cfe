#!/bin/bash
# The cost of the write observer (sbx(1) REFUSED WRITES: every call that
# may write a path stops for the supervisor, which judges it after it let
# it through): run by bench.sh (BENCH_PARTS "writes"), as the calling user.
#
#  - a real compile: BENCH_WRITES_FILES C files (each including a few libc
#    headers) compiled by make -j2 from clean, gcc writing each object,
#    its dependency file (-MMD) and its temporaries: the writes of a build;
#  - the stat-heavy build of bench.sh: a no-op make over BENCH_BUILD_FILES
#    up-to-date objects (the observer sees no call there);
#  - the worst case, nothing but observed calls (touch of 20000 files);
#  - sbx's start-up, observe_writes = yes against no (the observer's
#    filter and its listener's handoff).
#
# BENCH_WRITES_PAIRS pairs of runs, observe_writes = no then yes under the
# default profile, the order swapped every pair; the cost is the median of
# the pairs' own ratios (bench.sh, overhead(), says why pairs). Target:
# <= 3 % on a build.
set -u
export LC_ALL=C
SBX=${SBX:?set SBX to the sbx binary}
# timed_ms, pair_runs, pair_summary (bench/pairs.sh), read before the cd below
. "$(dirname "$0")/pairs.sh"
PAIRS=${BENCH_WRITES_PAIRS:-10}
FILES=${BENCH_WRITES_FILES:-120}
BUILD_FILES=${BENCH_BUILD_FILES:-30000}
work=$(mktemp -d "${BENCH_WRITES_DIR:-$PWD}/sbx-bench-writes.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1

printf '[profile]\ninclude = default\n[filesystem]\nobserve_writes = no\n' >"$work/off.ini"
printf '[profile]\ninclude = default\n[filesystem]\nobserve_writes = yes\n' >"$work/on.ini"

# pairs NAME LABEL CMD...: observe_writes = no and yes, back to back
pairs() {
    local name=$1 label=$2
    shift 2
    local -a off=("$SBX" run -q -p "$work/off.ini" -- "$@") on=("$SBX" run -q -p "$work/on.ini" -- "$@")
    timed_ms "${on[@]}" >/dev/null && timed_ms "${off[@]}" >/dev/null ||
        { echo "bench: $name failed; inside sbx it says:"; "${on[@]}"; exit 1; }
    pair_runs "$work/$name.pairs" "$PAIRS" "${on[@]}" ::pair:: "${off[@]}" ||
        { echo "bench: a run of $name failed"; exit 1; }
    pair_summary "$work/$name.pairs" "$label" \
        "  %-36s observed %8.1f ms, not %8.1f ms: cost %5.1f %%\n" 36
}

echo "== the write observer: observe_writes = yes against no, $PAIRS pairs (target <= 3 % on a build)"
# The compile: from clean every time (the rm is part of the build's writes).
mkdir -p compile/src
for i in $(seq 1 "$FILES"); do
    printf '#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\nint f%d(const char *s) { char b[64]; snprintf(b, sizeof b, "%%s%d", s); return (int)strlen(b) + atoi(s); }\n' \
        "$i" "$i" >"compile/src/f$i.c"
done
cat >compile/Makefile <<'MAKEFILE'
SRCS := $(wildcard src/*.c)
OBJS := $(SRCS:src/%.c=obj/%.o)
all: $(OBJS)
obj/%.o: src/%.c
	@mkdir -p obj
	gcc -O1 -MMD -c $< -o $@
-include $(OBJS:.o=.d)
MAKEFILE
cd compile && pairs compile "make -j2: $FILES C files from clean" sh -c 'rm -rf obj && make -s -j2' && cd "$work"

# The stat-heavy no-op make of bench.sh
tree=$work/build-tree
mkdir -p "$tree/include" && touch -d '1 minute ago' "$tree/include/a.h"
for d in $(seq 0 99); do mkdir -p "$tree/src/d$d" "$tree/obj/d$d"; done
seq 0 $((BUILD_FILES - 1)) | awk '{ printf "src/d%d/f%d.c\n", $1 % 100, $1 }' | (cd "$tree" && xargs touch -d '1 minute ago')
seq 0 $((BUILD_FILES - 1)) | awk '{ printf "obj/d%d/f%d.o\n", $1 % 100, $1 }' | (cd "$tree" && xargs touch)
cat >"$tree/Makefile" <<'MAKEFILE'
SRCS := $(wildcard src/*/*.c)
OBJS := $(SRCS:src/%.c=obj/%.o)
all: $(OBJS)
obj/%.o: src/%.c include/a.h
	cp $< $@
MAKEFILE
cd "$tree" && pairs noop "no-op make, $BUILD_FILES objects" make -s && cd "$work"

# The worst case: nothing but observed calls (touch: an openat with
# O_CREAT and a utimensat per file), for the cost of one notification
mkdir -p "$work/touch" && cd "$work/touch" &&
    pairs touch "touch 20000 files (40000 observed calls)" sh -c 'seq -f f%g 20000 | xargs touch' &&
    cd "$work"

# Start-up alone
pairs startup "sbx run -- true (start-up)" true
