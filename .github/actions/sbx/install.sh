# The action's first step: sbx on PATH for the next steps.
# A .deb when given; else the sbx already installed (an earlier step, the
# runner's image); else this action's own checkout, built and installed.
set -eu
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }
if [ -n "${SBX_ACTION_DEB:-}" ]; then
    case $SBX_ACTION_DEB in /*|./*) deb=$SBX_ACTION_DEB ;; *) deb=./$SBX_ACTION_DEB ;; esac
    as_root apt-get install -y "$deb"
elif command -v sbx >/dev/null 2>&1; then
    echo "sbx: using $(command -v sbx)"
else
    # Only sbx's own checkout can be built: a copy of the action vendored
    # into another repository sits in that repository's tree.
    src=$(cd "$GITHUB_ACTION_PATH/../../.." && pwd)
    grep -q 'AC_INIT(\[sbx\]' "$src/configure.ac" 2>/dev/null || {
        echo "sbx action: no sbx on PATH, no 'deb' input, and $src is not sbx's source tree: give the .deb (input deb) or install sbx in an earlier step" >&2
        exit 1
    }
    as_root apt-get update
    # shellcheck disable=SC2046 # one package a word
    as_root apt-get install -y --no-install-recommends $(cat "$src/tests/debian-packages")
    build=${RUNNER_TEMP:-/tmp}/sbx-build
    mkdir -p "$build"
    (cd "$src" && autoreconf -fi)
    (cd "$build" && "$src/configure" -q && make -j"$(nproc)" && as_root make install)
fi
# Ubuntu 24.04 restricts unprivileged user namespaces with AppArmor; the
# package's /etc/apparmor.d/sbx grants them to /usr/bin/sbx only. sbx
# probe names the restriction; lift it where this sbx is not covered.
f=/proc/sys/kernel/apparmor_restrict_unprivileged_userns
sbx=$(command -v sbx || true)
if [ -r "$f" ] && [ "$(cat "$f")" = 1 ] && [ "$sbx" != /usr/bin/sbx ]; then
    as_root sysctl -w kernel.apparmor_restrict_unprivileged_userns=0
fi
sbx --version
