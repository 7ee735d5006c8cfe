# TAP helpers for sbx's integration tests (POSIX sh + a few bash-isms are
# avoided on purpose: tests run under /bin/sh as well as bash).
#
#   . "$SBX_TOP_SRCDIR/tests/integration/lib.sh"
#   plan 3
#   run_sbx run --profile qa -- true      # sets $status, $out, $err
#   is "$status" 0 "true exits 0"
#   like "$err" "sbx: " "message is prefixed"
#   done_testing
#
# Environment (set by `make check`, see Makefile.am): SBX (the binary),
# SBX_TEST_HELPERS (built helper programs), SBX_TOP_SRCDIR, SBX_TOP_BUILDDIR.
# Run one test by hand:  make check TESTS=tests/integration/NAME.sh

set -u

: "${SBX:?run through make check, or set SBX to the sbx binary}"
: "${SBX_TOP_SRCDIR:?}"
: "${SBX_TEST_HELPERS:=$SBX_TOP_BUILDDIR/tests/helpers}"

# Each test script keeps sbx's state (the cache rules' write layers) in a
# directory of its own, removed when it ends: never in the developer's
# ~/.local/state, where every temporary profile of every run would leave
# its layers. In the build tree, which the sandboxes see (not /tmp). A
# test wanting another one sets XDG_STATE_HOME itself (escape-layers.sh:
# HOME=... XDG_STATE_HOME= for the default place).
test_state=
lib_cleanup() {
    if [ -n "$test_state" ] && [ -d "$test_state" ]; then
        # Go's module cache and overlayfs' work/work are not writable
        chmod -R u+rwx "$test_state" 2>/dev/null
        rm -rf "$test_state"
    fi
}
_state_base=${SBX_TOP_BUILDDIR:-$PWD}/tests/state
if mkdir -p "$_state_base" 2>/dev/null &&
    test_state=$(mktemp -d "$_state_base/$(basename "$0" .sh).XXXXXX" 2>/dev/null); then
    XDG_STATE_HOME=$test_state
    export XDG_STATE_HOME
    trap 'lib_cleanup' EXIT
else
    echo "Bail out! cannot make a state directory in $_state_base for XDG_STATE_HOME"
    exit 1
fi

tap_n=0
tap_failed=0
tap_planned=

plan() { tap_planned=$1; echo "1..$1"; }

diag() { printf '%s\n' "$*" | sed 's/^/# /'; }

pass() { tap_n=$((tap_n + 1)); echo "ok $tap_n - $*"; }

fail() { tap_n=$((tap_n + 1)); tap_failed=$((tap_failed + 1)); echo "not ok $tap_n - $*"; }

ok() { # ok CONDITION-STATUS DESCRIPTION  (use: ok $? "desc" or test ...; ok $? ...)
    if [ "$1" -eq 0 ]; then shift; pass "$*"; else shift; fail "$*"; fi
}

# A test that cannot run says why. CI sets SBX_TEST_NO_SKIP=1 and every
# skip becomes a failure there, because CI can run everything.
skip() {
    tap_n=$((tap_n + 1))
    if [ "${SBX_TEST_NO_SKIP:-0}" = 1 ]; then
        tap_failed=$((tap_failed + 1))
        echo "not ok $tap_n - $* # skip not allowed in CI (SBX_TEST_NO_SKIP=1)"
    else
        echo "ok $tap_n # SKIP $*"
    fi
}

is() { # is GOT WANT DESCRIPTION
    if [ "$1" = "$2" ]; then pass "$3"; else
        fail "$3"; diag "got:  '$1'"; diag "want: '$2'"; fi
}

isnt() {
    if [ "$1" != "$2" ]; then pass "$3"; else
        fail "$3"; diag "got '$1', wanted anything else"; fi
}

like() { # like TEXT SUBSTRING DESCRIPTION
    case "$1" in
        *"$2"*) pass "$3" ;;
        *) fail "$3"; diag "'$2' not found in:"; diag "$1" ;;
    esac
}

unlike() {
    case "$1" in
        *"$2"*) fail "$3"; diag "'$2' unexpectedly found in:"; diag "$1" ;;
        *) pass "$3" ;;
    esac
}

# run_sbx ARGS...: runs $SBX with stdin from /dev/null; sets status, out, err.
run_sbx() {
    _o=$(mktemp) _e=$(mktemp)
    "$SBX" "$@" </dev/null >"$_o" 2>"$_e"
    status=$?
    out=$(cat "$_o") err=$(cat "$_e")
    rm -f "$_o" "$_e"
}

# run_cmd CMD ARGS...: the same for any command.
run_cmd() {
    _o=$(mktemp) _e=$(mktemp)
    "$@" </dev/null >"$_o" 2>"$_e"
    status=$?
    out=$(cat "$_o") err=$(cat "$_e")
    rm -f "$_o" "$_e"
}

is_root() { [ "$(id -u)" = 0 ]; }

# A scratch directory removed at exit.
make_tmpdir() {
    tmpdir=$(mktemp -d "${TMPDIR:-/tmp}/sbx-test.XXXXXX")
    trap 'rm -rf "$tmpdir"; lib_cleanup' EXIT
}

# make_build_tmpdir NAME: a scratch directory ($tmpdir, removed at exit) in
# the build tree, else the current directory: for a test whose sandboxes
# need to see only their working directory inside it (a tree under
# /var/tmp is fine then; make_visible_tmpdir is for more).
make_build_tmpdir() {
    tmpdir=$(mktemp -d "$SBX_TOP_BUILDDIR/tests/$1.XXXXXX" 2>/dev/null ||
             mktemp -d "$PWD/$1.XXXXXX") || exit 1
    trap 'rm -rf "$tmpdir"' EXIT
}

# make_visible_tmpdir NAME: a scratch directory ($tmpdir, removed at exit)
# that a sandbox of the shipped profiles sees outside its working
# directory. They put a tmpfs on /tmp and /var/tmp, so a fixture there (a
# checkout under /tmp, mktemp's default) is simply absent inside, and a
# check that a planted secret is unreadable would pass without testing
# anything. The build tree first, else $HOME, else the account's own home
# (a package build under /var/tmp whose $HOME debhelper put in the tree);
# each candidate is proven visible by a sandbox before it is used. None
# is: the test's remaining planned tests are skipped, saying why.
make_visible_tmpdir() {
    tmpdir=
    _account_home=$(getent passwd "$(id -u)" 2>/dev/null | cut -d: -f6)
    for _base in "$PWD" "${HOME:-}" "$_account_home"; do
        case $_base in "" | / | /tmp | /tmp/* | /var/tmp | /var/tmp/*) continue ;; esac
        _d=$(mktemp -d "$_base/$1.XXXXXX" 2>/dev/null) || continue
        mkdir "$_d/cwd" && : >"$_d/visible"
        if (cd "$_d/cwd" && "$SBX" run -- test -e "$_d/visible") </dev/null >/dev/null 2>&1; then
            rm -rf "$_d/cwd" "$_d/visible"
            tmpdir=$_d
            trap 'rm -rf "$tmpdir"; lib_cleanup' EXIT
            return 0
        fi
        rm -rf "$_d"
    done
    _why="no scratch directory a sandbox can see: $PWD, \$HOME (${HOME:-unset}) and your home (${_account_home:-none}) are under /tmp or /var/tmp (the shipped profiles replace both with a tmpfs) or not writable; build the tree elsewhere"
    _left=$(( ${tap_planned:-1} - tap_n ))
    [ "$_left" -gt 0 ] || _left=1
    while [ "$_left" -gt 0 ]; do skip "$_why"; _left=$((_left - 1)); done
    done_testing
}

# copy_sbx_for_others DIR: for a root test that runs sbx as another uid
# (65534), which may not reach the build tree (a clone in /root, mode
# 0700: exec fails with EACCES, and a check for "Permission denied" would
# pass without sbx running). Copies sbx and the shipped profiles into DIR,
# readable by all; sets $sbx_copy and $sbx_copy_profiles (for
# SBX_PROFILE_PATH: the copy is outside the build tree, whose profiles only
# the binary in it finds).
copy_sbx_for_others() {
    mkdir -p "$1/profiles" && cp "$SBX" "$1/sbx" &&
        cp "$SBX_TOP_SRCDIR"/profiles/*.ini "$1/profiles/" && chmod -R a+rX "$1" || return 1
    sbx_copy=$1/sbx sbx_copy_profiles=$1/profiles
}

done_testing() {
    [ -n "$tap_planned" ] || echo "1..$tap_n"
    if [ -n "$tap_planned" ] && [ "$tap_planned" -ne "$tap_n" ]; then
        diag "planned $tap_planned tests, ran $tap_n"
        exit 1
    fi
    lib_cleanup
    [ "$tap_failed" -eq 0 ]
    exit $?
}
