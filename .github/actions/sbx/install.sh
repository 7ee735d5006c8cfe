# The action's first step: sbx on PATH for the next steps.
# A .deb when given; else the sbx already installed (an earlier step, the
# runner's image); else this action's own checkout, built and installed.
# For the system when this step can be root (root, or GitHub's runners'
# passwordless sudo); else, as a self-hosted runner's plain user, into
# $RUNNER_TEMP/sbx-root, which the next steps find through GITHUB_PATH and
# GITHUB_ENV (SBX_PROFILE_PATH: the profiles of that tree).
# Both ways are run by tests/integration/ci-action.sh: as root in a mount
# namespace whose /usr, /etc and /var/lib are throwaway overlays, and as
# uid 65534.
set -eu
if [ "$(id -u)" = 0 ]; then
    system=yes
    as_root() { "$@"; }
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    system=yes
    as_root() { sudo "$@"; }
else
    system=no
    as_root() { echo "sbx action: '$*' needs root, and this runner's user has no passwordless sudo" >&2; return 1; }
fi
root=${RUNNER_TEMP:-/tmp}/sbx-root
# A tree installed under $root: its sbx first on PATH, its profiles found.
use_tree() {
    exe=$(find "$root" -path '*/bin/sbx' -type f | head -n 1)
    qa=$(find "$root" -path '*/sbx/profiles/qa.ini' -type f | head -n 1)
    [ -n "$exe" ] && [ -n "$qa" ] || { echo "sbx action: no bin/sbx and profiles in $root" >&2; exit 1; }
    PATH=${exe%/sbx}:$PATH
    SBX_PROFILE_PATH=${qa%/qa.ini}
    export PATH SBX_PROFILE_PATH
    echo "${exe%/sbx}" >>"${GITHUB_PATH:-/dev/null}"
    echo "SBX_PROFILE_PATH=$SBX_PROFILE_PATH" >>"${GITHUB_ENV:-/dev/null}"
}
if [ -n "${SBX_ACTION_DEB:-}" ]; then
    case $SBX_ACTION_DEB in /*|./*) deb=$SBX_ACTION_DEB ;; *) deb=./$SBX_ACTION_DEB ;; esac
    if [ "$system" = yes ]; then
        as_root apt-get install -y "$deb"
    else
        dpkg-deb -x "$deb" "$root"
        use_tree
    fi
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
    if [ -f "$src/config.status" ]; then
        # configured in place (an earlier step): its configure found the
        # dependencies, and make builds what is not built yet
        build=$src
    else
        missing=
        for p in $(grep -v '^#' "$src/tests/debian-packages"); do
            dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing="$missing $p"
        done
        if [ -n "$missing" ]; then
            as_root apt-get update
            # shellcheck disable=SC2086 # one package a word
            as_root apt-get install -y --no-install-recommends $missing
        fi
        [ -x "$src/configure" ] || (cd "$src" && autoreconf -fi)
        build=${RUNNER_TEMP:-/tmp}/sbx-build
        mkdir -p "$build"
        (cd "$build" && "$src/configure" -q)
    fi
    make -C "$build" -j"$(nproc)"
    if [ "$system" = yes ]; then
        as_root make -C "$build" install
    else
        make -C "$build" install DESTDIR="$root"
        use_tree
    fi
fi
# Ubuntu 24.04 restricts unprivileged user namespaces with AppArmor; the
# package's /etc/apparmor.d/sbx grants them to /usr/bin/sbx only. sbx
# probe names the restriction; lift it where this sbx is not covered.
f=/proc/sys/kernel/apparmor_restrict_unprivileged_userns
sbx=$(command -v sbx || true)
if [ -r "$f" ] && [ "$(cat "$f")" = 1 ] && [ "$sbx" != /usr/bin/sbx ]; then
    as_root sysctl -w kernel.apparmor_restrict_unprivileged_userns=0
fi
echo "sbx: $sbx"
sbx --version
