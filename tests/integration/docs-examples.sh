#!/bin/sh
# The examples of the man pages and README run and do what their text says
# (issue 29; docs/agents.md's are docs-agents.sh's): each command of
# sbx(1)'s EXAMPLES, taken from the page itself, runs
# in a fixture project (a crate, a Makefile, a package.json, a Go module);
# the profile of sbx-profile(5)'s EXAMPLE passes `profile check` without a
# warning and reaches a database port on the host's loopback, as its text
# says. The EXAMPLE as it was (forward without outbound = yes) is shown to
# fail first.
. "$SBX_TOP_SRCDIR/tests/integration/lib.sh"
. "$SBX_TOP_SRCDIR/tests/integration/run-common.sh"
plan 18

for cmd in cargo npm go make git; do
    command -v $cmd >/dev/null 2>&1 || { fail "$cmd is needed (tests/debian-packages)"; exit 1; }
done
make_visible_tmpdir docs-examples
man1=$SBX_TOP_SRCDIR/docs/sbx.1
man5=$SBX_TOP_SRCDIR/docs/sbx-profile.5
# .EX blocks of section $2 of page $1, groff escapes undone, continuation
# lines ("\e" at the end, a shell backslash) joined
examples() {
    sed -n "/^\.SH $2\$/,/^\.SH /p" "$1" | sed -n '/^\.EX/,/^\.EE/p' | grep -v '^\.E[XE]' |
        sed -e 's/\\-/-/g' -e 's/\\e$/\\/' | sed -e ':a' -e '/\\$/N; s/\\\n//; ta'
}

# --- sbx-profile(5) EXAMPLE: a database on the host's port 5432 ----------------
example=$(examples "$man5" EXAMPLE)
like "$example" "forward = 5432" "sbx-profile(5)'s EXAMPLE forwards port 5432"
"$H/net-probe" serve 127.0.0.1 0 host-database "$tmpdir/db.port" &
server=$!
trap 'kill $server 2>/dev/null; rm -rf "$tmpdir"' EXIT
wait_for_text "$tmpdir/db.port" . || diag "the stand-in database did not start"
port=$(cat "$tmpdir/db.port")
# the port the test could get instead of 5432, which may be taken
printf '%s\n' "$example" | sed "s/5432/$port/g" >"$tmpdir/example.ini"
sed '/^outbound = yes$/d' "$tmpdir/example.ini" >"$tmpdir/example-before.ini"
mkdir -p "$tmpdir/service" && echo "SECRET=1" >"$tmpdir/service/.env"
# the probe in the project, which the sandbox shows (a build tree under
# /tmp is behind the sandbox's private /tmp)
cp "$H/net-probe" "$tmpdir/service/net-probe" || exit 1
cd "$tmpdir/service" || exit 1
git init -q .
run_sbx profile check "$tmpdir/example-before.ini"
like "$err" "forward = $port without outbound = yes" "the EXAMPLE as it was: profile check warns (it was 'ok')"
run_sbx run -p "$tmpdir/example-before.ini" -- ./net-probe tcp 127.0.0.1 "$port"
like "$out" "Connection refused" "and the tests' connection is refused (the test can fail)"
run_sbx profile check "$tmpdir/example.ini"
is "$status:$out:$err" "0:$tmpdir/example.ini: ok:" "the EXAMPLE: profile check says ok, without a warning"
run_sbx run -p "$tmpdir/example.ini" -- ./net-probe tcp 127.0.0.1 "$port"
is "$out" "reply host-database" "the EXAMPLE: the tests reach the database on the host's port"
run_sbx run -p "$tmpdir/example.ini" -- sh -c 'echo "$DATABASE_URL"; cat .env'
is "$out" "postgres://127.0.0.1:$port/test" "the EXAMPLE: DATABASE_URL is set, .env is hidden"
run_sbx profile show "$tmpdir/example.ini"
like "$out" "timeout = 45m" "the EXAMPLE: a 45 min timeout"
kill $server 2>/dev/null

# --- sbx(1) EXAMPLES, each command as the page writes it -----------------------
proj=$tmpdir/proj
mkdir -p "$proj" "$tmpdir/home/.cache/go-build"
cd "$proj" || exit 1
git init -q .
mkdir src
printf '[package]\nname = "excrate"\nversion = "0.1.0"\nedition = "2018"\n' >Cargo.toml
printf '#[test]\nfn it_works() { assert_eq!(2 + 2, 4); }\n' >src/lib.rs
printf 'check:\n\ttrue\n' >Makefile
printf '{"name":"ex","version":"1.0.0","scripts":{"test":"node -e \\"console.log(42)\\""}}\n' >package.json
printf 'module example.com/ex\n\ngo 1.19\n' >go.mod
printf 'package ex\n\nimport "testing"\n\nfunc TestX(t *testing.T) {}\n' >ex_test.go
examples "$man1" EXAMPLES >"$tmpdir/commands"
n=$(grep -c '^sbx ' "$tmpdir/commands")
[ "$n" -ge 7 ]; ok $? "sbx(1) EXAMPLES: $n commands read from the page"
while IFS= read -r line; do
    case $line in sbx\ *) ;; *) continue ;; esac
    # sbx is the build tree's; ~ is the test's home, so the system's
    # toolchains (a rustup proxy in PATH would want ~/.rustup); npm's
    # update check is traffic of npm's own, which --strict would rightly count
    cmd="\"\$SBX\"${line#sbx}"
    run_cmd env HOME="$tmpdir/home" PATH=/usr/local/bin:/usr/bin:/bin \
        npm_config_update_notifier=false sh -c "$cmd"
    case $line in
    *"probe --profile qa --json"*)
        printf '%s' "$out" | jq -e . >/dev/null
        ok $? "'$line': prints JSON" ;;
    *"probe"*)
        like "$out$err" "sandbox" "'$line': says what this environment can validate" ;;
    *"profile show qa"*)
        like "$out" "qa.ini" "'$line': names the file that set each line" ;;
    *)
        is "$status" 0 "'$line' works (exit 0)"
        [ "$status" = 0 ] || diag "$(printf '%s\n' "$err" | tail -5)" ;;
    esac
done <"$tmpdir/commands"

# --- README: the quick start's sbx command, and the first example -----------------
readme=$SBX_TOP_SRCDIR/README.md
quick=$(grep -o '\./src/sbx run [^&]*$' "$readme" | head -1)
like "$quick" "loopback-fds" "README's quick start ends with an sbx run of loopback-fds"
(cd "$SBX_TOP_BUILDDIR" && sh -c "\"\$SBX\"${quick#./src/sbx}") >"$tmpdir/quick.out" 2>&1
is "$?" 0 "README's quick start: '$quick' works from the build tree (exit 0)"
first=$(sed -n '/^```$/,/^```$/p' "$readme" | grep -m1 '^sbx run')
cd "$proj" || exit 1
run_cmd env HOME="$tmpdir/home" PATH=/usr/local/bin:/usr/bin:/bin sh -c "\"\$SBX\"${first#sbx}"
is "$status" 0 "README's first example, '$first', works in a crate (exit 0)"

done_testing
