#!/bin/sh
# The GitHub Action (.github/actions/sbx) and the GitLab job
# (docs/ci/gitlab-ci.yml) run here as their CI systems would run them: the
# steps read from the YAML (tests/integration/yaml-flat.awk), in order, each in
# `sh -e` with the variables GitHub (GITHUB_*) or GitLab (CI_*) sets, the
# action's inputs substituted, GITHUB_PATH honoured between steps, later
# steps skipped after a failure unless `if: always()`, and the artifact
# upload done by copying what it names. The project has one false green:
# the job must fail, the summary and the JUnit file name the test; the same
# project with the test fixed must pass, so neither check is vacuous. "sbx"
# is the build tree's: nothing is downloaded. The install step runs each
# of its ways: sbx on PATH, the .deb docs/agents.md's workflow gives (made
# from this build tree), and from this source checkout (see below).
. "$SBX_TOP_SRCDIR/tests/integration/lib.sh"

command -v python3 >/dev/null 2>&1 ||
    { skip "python3 is not installed (apt-get install python3): the sample project's suite is unittest"; done_testing; }

make_build_tmpdir ci-action
work=$tmpdir
mkdir "$work/bin"
ln -s "$SBX" "$work/bin/sbx"
flat=$SBX_TOP_SRCDIR/tests/integration/yaml-flat.awk
action=$SBX_TOP_SRCDIR/.github/actions/sbx

# project DIR lenient|strict: a unittest suite whose network test returns
# early on EPERM (lenient: the false green) or lets it fail (strict).
project() {
    mkdir -p "$1/tests"
    : >"$1/tests/__init__.py"
    if [ "$2" = lenient ]; then
        handler='        except PermissionError:
            return  # no network here: the test passes without testing'
    else
        handler='        except PermissionError:
            raise'
    fi
    cat >"$1/tests/test_net.py" <<PY
import socket, unittest

class Net(unittest.TestCase):
    def test_server_replies(self):
        try:
            s = socket.socket()
            s.bind(("127.0.0.1", 0))
$handler
        s.listen()
        c = socket.create_connection(s.getsockname())
        conn, _ = s.accept()
        c.sendall(b"ping")
        self.assertEqual(conn.recv(4), b"ping")
        for x in (c, conn, s):
            x.close()

    def test_sum(self):
        self.assertEqual(1 + 1, 2)
PY
}

# --- GitHub -----------------------------------------------------------------
awk -f "$flat" "$action/action.yml" >"$work/action.flat"
ok $? "action.yml is in the YAML subset the test reads"

# The value of one flattened key ("" when absent).
get() { awk -F '\t' -v k="$2" '$1 == k { print substr($0, length(k) + 2) }' "$1"; }

# expr VALUE: GitHub's ${{ inputs.NAME }}, the only expression the action
# may use (anything else fails, so the test notices a new kind).
expr_value() {
    case $1 in
        *'${{'*)
            _n=$(printf '%s' "$1" | sed -n 's/^\${{ *inputs\.\([A-Za-z0-9_-]*\) *}}$/\1/p')
            [ -n "$_n" ] || { echo "unsupported expression: $1" >&2; return 1; }
            _v=$(get "$work/inputs" "$_n")
            [ -n "$_v" ] || _v=$(get "$work/action.flat" "inputs.$_n.default")
            printf '%s' "$_v" ;;
        *) printf '%s' "$1" ;;
    esac
}

# gh_job WORKSPACE INPUT=VALUE...: the action as one job's steps; sets
# job_status, the artifact under $WORKSPACE/../artifact. Each step's
# environment is the runner's (GITHUB_*, no make's variables) with what
# earlier steps wrote to GITHUB_PATH and GITHUB_ENV. job_start_path: the
# PATH the job starts with (default: the build tree's sbx first);
# job_enter: a command each step runs under (the runner's own system);
# job_flat and job_steps: the steps read (default: the action's,
# runs.steps; a workflow's are jobs.ID.steps, its run: steps in bash).
gh_job() {
    jf=${job_flat:-$work/action.flat} js=${job_steps:-runs.steps}
    ws=$1; shift
    : >"$work/inputs"
    for kv; do printf '%s\t%s\n' "${kv%%=*}" "${kv#*=}" >>"$work/inputs"; done
    rt=$ws.runner; mkdir -p "$rt/temp" "$ws.artifact"
    : >"$rt/summary.md"; : >"$rt/path"; : >"$rt/env"
    job_status=0; job_path=${job_start_path:-$work/bin:$PATH}
    n=0
    while grep -q "^$js\.$n\." "$jf"; do
        cond=$(get "$jf" "$js.$n.if")
        if [ "$job_status" != 0 ] && [ "$cond" != "always()" ]; then
            n=$((n + 1)); continue
        fi
        : >"$rt/step.env"
        for k in $(awk -F '\t' -v p="$js.$n.env." 'index($1, p) == 1 { print substr($1, length(p) + 1) }' "$jf"); do
            v=$(expr_value "$(get "$jf" "$js.$n.env.$k")") || return 1
            printf '%s=%s\n' "$k" "$v" >>"$rt/step.env"
        done
        run=$(get "$jf" "$js.$n.run")
        uses=$(get "$jf" "$js.$n.uses")
        if [ -n "$run" ]; then
            printf '%s\n' "$run" >"$rt/step.sh"
            # GitHub: shell sh is `sh -e {0}`, none (a workflow's default on
            # Linux) `bash --noprofile --norc -eo pipefail {0}`
            case $(get "$jf" "$js.$n.shell") in
                sh) shell="sh -e" ;;
                "") [ "$js" != runs.steps ] || { echo "step $n: a composite action's step names its shell" >&2; return 1; }
                    shell="bash --noprofile --norc -eo pipefail" ;;
                *) echo "step $n: shell $(get "$jf" "$js.$n.shell") is not one this test runs" >&2; return 1 ;;
            esac
            (
                cd "$ws" || exit 1
                unset MAKEFLAGS MFLAGS MAKELEVEL
                # GITHUB_ENV: NAME=VALUE lines (the heredoc form is not read)
                while IFS= read -r kv; do export "${kv%%=*}=${kv#*=}"; done <"$rt/env"
                while IFS= read -r kv; do export "${kv%%=*}=${kv#*=}"; done <"$rt/step.env"
                PATH=$job_path CI=true GITHUB_ACTIONS=true GITHUB_WORKSPACE=$ws \
                GITHUB_ACTION_PATH=$action GITHUB_STEP_SUMMARY=$rt/summary.md \
                GITHUB_PATH=$rt/path GITHUB_ENV=$rt/env GITHUB_OUTPUT=$rt/output \
                RUNNER_TEMP=$rt/temp GITHUB_JOB=test GITHUB_RUN_ID=1 \
                    ${job_enter:-} $shell "$rt/step.sh"
            ) >"$rt/step$n.log" 2>&1 || job_status=$?
            # GITHUB_PATH: each line first on PATH, for the later steps
            while IFS= read -r d; do job_path=$d:$job_path; done <"$rt/path"
            : >"$rt/path"
        elif [ "$uses" = actions/checkout@v4 ]; then
            : # the workspace is the project already
        elif [ "$uses" = actions/upload-artifact@v4 ]; then
            get "$jf" "$js.$n.with.path" | while IFS= read -r p; do
                p=$(expr_value "$p") || exit 1
                [ -z "$p" ] || [ ! -e "$ws/$p" ] || cp "$ws/$p" "$ws.artifact/"
            done
        else
            echo "step $n: uses '$uses', which this test cannot run" >&2; return 1
        fi
        n=$((n + 1))
    done
    summary=$(cat "$rt/summary.md")
}

project "$work/gh" lenient
gh_job "$work/gh" command='python3 -m unittest -v'
isnt "$job_status" 0 "GitHub: the job fails on the false green"
is "$(get "$work/action.flat" runs.steps.3.if)" "always()" "GitHub: the upload runs after a failed step"
grep -q '^ok' "$work/gh.runner/step1.log"
ok $? "GitHub: sbx probe --tap ran as the second step"
like "$summary" "false-green | tests.test_net.Net.test_server_replies" "GitHub: the step summary names the false green"
[ -s "$work/gh.artifact/sbx-junit.xml" ] &&
    grep -q 'name="tests.test_net.Net.test_server_replies"' "$work/gh.artifact/sbx-junit.xml" &&
    grep -q 'type="false-green"' "$work/gh.artifact/sbx-junit.xml"
ok $? "GitHub: the uploaded JUnit file has the test as a false-green failure"

project "$work/gh2" strict
gh_job "$work/gh2" command='python3 -m unittest -v'
is "$job_status" 0 "GitHub: the same job passes once the test fails on EPERM" ||
    diag "$(cat "$work/gh2.runner/step2.log")"
unlike "$summary" "false-green |" "GitHub: no false green in that summary"

# mode: run, with --strict: exit 3 after denials, and the summary says so.
project "$work/gh3" lenient
gh_job "$work/gh3" command='python3 -m unittest -v' mode=run profile=restrictive
is "$job_status" 3 "GitHub, mode run: sbx run --strict fails the job (exit 3) after denials"
like "$summary" "exit status 3 under profile \`restrictive\`" "GitHub, mode run: the summary gives the status"
[ -s "$work/gh3.artifact/sbx-run.json" ]
ok $? "GitHub, mode run: the run record is uploaded"

# A command input with shell syntax is words, never code.
argv_py='import sys; open(sys.argv[1], "w").write(" ".join(sys.argv[2:]))'
project "$work/gh4" strict
printf '%s\n' "$argv_py" >"$work/gh4/argv.py"
gh_job "$work/gh4" command='python3 argv.py argv.txt "a b" ; touch pwned $(touch pwned2) *'
is "$job_status" 0 "GitHub: a command input with shell syntax runs" || diag "$(cat "$work/gh4.runner/step2.log")"
is "$(cat "$work/gh4/argv.txt")" 'a b ; touch pwned $(touch pwned2) *' "GitHub: quotes group words; ';', \$(...), '*' are words"
[ ! -e "$work/gh4/pwned" ] && [ ! -e "$work/gh4/pwned2" ]
ok $? "GitHub: nothing ran outside sbx from the command input"

# Vendored into another repository, with no sbx and no .deb: the install
# step fails saying what to give, rather than build that repository.
mkdir -p "$work/vendored/.github/actions" "$work/emptybin"
cp -R "$action" "$work/vendored/.github/actions/sbx"
echo 'AC_INIT([other], [1])' >"$work/vendored/configure.ac"
for t in sh cat grep id; do ln -s "$(command -v $t)" "$work/emptybin/$t"; done
out=$(cd "$work/vendored" && PATH=$work/emptybin GITHUB_ACTION_PATH=$work/vendored/.github/actions/sbx \
      SBX_ACTION_DEB= sh -e "$work/vendored/.github/actions/sbx/install.sh" 2>&1)
st=$?
isnt "$st" 0 "GitHub: vendored, without sbx or a .deb, the install step fails"
like "$out" "give the .deb (input deb) or install sbx" "and says what to give"

# --- the install step, both ways, as the runner runs it ----------------------
# No sbx on PATH: the job starts with the directories of a runner's PATH
# that hold none. The .deb is what `make install` installs from this build
# tree, packed by dpkg-deb under the control fields of debian/control (the
# package dpkg-buildpackage makes is the same files, built the Debian way:
# minutes, not seconds); "from source" is this checkout, configured and
# built in place, so the step's make has nothing left to compile and its
# make install is the real one. As root (a GitHub runner's sudo) the job
# runs in a mount namespace of its own whose /usr, /etc and /var/{lib,
# cache,log} are overlays on a tmpfs: apt-get and dpkg install for real,
# and the machine is left as it was. Another user has no sudo here: the
# step installs into $RUNNER_TEMP/sbx-root (dpkg-deb -x, make install
# DESTDIR) for the next steps (GITHUB_PATH, GITHUB_ENV).
plain_path=
for d in /usr/local/sbin /usr/local/bin /usr/sbin /usr/bin /sbin /bin; do
    [ -x "$d/sbx" ] || plain_path=${plain_path:+$plain_path:}$d
done
prefix=$(sed -n 's/^prefix = //p' "$SBX_TOP_BUILDDIR/Makefile")
(cd "$SBX_TOP_BUILDDIR" && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s install DESTDIR="$work/destdir") \
    >"$work/install.log" 2>&1
ok $? "make install DESTDIR= of the build tree (the files of the .deb)" || diag "$(tail -5 "$work/install.log")"
# the workflow of docs/agents.md: its deb and profile inputs are the ones used
guide_with=$(sed -n '/^\*\*GitHub Actions, with the action\.\*\*/,/^```$/p' "$SBX_TOP_SRCDIR/docs/agents.md" |
    sed -n '/^```yaml$/,/^```$/p' | sed '1d;$d' | awk -f "$flat")
guide_deb=$(printf '%s\n' "$guide_with" | awk -F '\t' '$1 ~ /\.with\.deb$/ { print $2 }')
guide_profile=$(printf '%s\n' "$guide_with" | awk -F '\t' '$1 ~ /\.with\.profile$/ { print $2 }')
like "$guide_deb" ".deb" "docs/agents.md's workflow gives the action a .deb ($guide_deb) and a profile ($guide_profile)"
mkdir -p "$work/destdir/DEBIAN"
{
    echo "Package: sbx"
    echo "Version: $("$SBX" --version | sed -n '1s/^sbx \([^ ]*\).*/\1/p')"
    echo "Architecture: $(dpkg --print-architecture)"
    sed -n 's/^\(Maintainer\|Description\): /&/p' "$SBX_TOP_SRCDIR/debian/control"
} >"$work/destdir/DEBIAN/control"
if is_root; then
    # a system of the runner's own for each job (see above)
    cat >"$work/system.sh" <<'EOF_SYSTEM'
#!/bin/sh
# system.sh DIR: holds a mount namespace whose /usr, /etc, /var/lib/dpkg,
# /var/lib/apt, /var/cache and /var/log are overlays with their upper
# layers on a tmpfs
# at DIR; prints "ready" when it is, then waits to be killed. The host's
# AppArmor userns switch, if any, is a file of its own there (a step may
# write it). apt has no sources: nothing is downloaded.
set -e
mount -t tmpfs tmpfs "$1"
# the tmpfs through a descriptor, and /var/lib's package databases only,
# not /var/lib: a build tree may be below it (CI's sanitizers suite and
# the package build have theirs there), and the job's workspace and what
# it writes there must stay the host's, where the test reads them
exec 9<"$1"
t=/proc/self/fd/9
for d in /usr /etc /var/lib/dpkg /var/lib/apt /var/cache /var/log; do
    n=$(echo "$d" | tr / _)
    mkdir "$t/$n.upper" "$t/$n.work"
    mount -t overlay overlay -o "lowerdir=$d,upperdir=$t/$n.upper,workdir=$t/$n.work" "$d"
done
rm -rf /etc/apt/sources.list /etc/apt/sources.list.d/*
f=/proc/sys/kernel/apparmor_restrict_unprivileged_userns
if [ -e $f ]; then cat $f >"$t/restrict"; mount --bind "$t/restrict" $f; fi
echo ready
exec sleep 600
EOF_SYSTEM
    # enter.sh PID CMD...: CMD in PID's mount namespace, in this directory
    # (setns leaves the caller at that namespace's root)
    printf '%s\n' 'pid=$1; shift' \
        'exec nsenter --target "$pid" --mount -- sh -c '"'"'cd "$0" && exec "$@"'"'"' "$PWD" "$@"' >"$work/enter.sh"
    # system_job WORKSPACE INPUT=VALUE...: gh_job in a system of its own
    system_job() {
        mkdir -p "$1.system"
        unshare --mount --propagation private sh "$work/system.sh" "$1.system" >"$1.system.log" 2>&1 &
        holder=$!
        i=0
        while ! grep -q ready "$1.system.log" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
        job_enter="sh $work/enter.sh $holder" job_start_path=$plain_path ${job_runner:-gh_job} "$@"
        # what the system holds after the job, before it goes
        installed=$(nsenter --target $holder --mount sh -c 'dpkg-query -W -f="\${Status}" sbx 2>/dev/null; echo; ls -l "$0/bin/sbx" 2>&1' "$prefix")
        kill $holder; wait $holder 2>/dev/null
    }
    where=$prefix/bin/sbx
else
    system_job() { job_enter= job_start_path=$plain_path ${job_runner:-gh_job} "$@"; installed=; }
fi
cp -R "$work/destdir" "$work/debroot"
rm -rf "$work/destdir/DEBIAN"

project "$work/ghdeb" lenient
mkdir -p "$work/ghdeb/$(dirname "$guide_deb")"
dpkg-deb --root-owner-group -b "$work/debroot" "$work/ghdeb/$guide_deb" >"$work/deb.log" 2>&1
ok $? "the .deb built with dpkg-deb ($guide_deb)" || diag "$(cat "$work/deb.log")"
# installed_job WORKSPACE LABEL WANT: the checks of a job whose install
# step found no sbx: which sbx it installed (as root: WANT in what the
# runner's system holds after it), that the next steps used it, and the
# false green failing the job, named.
installed_job() {
    is_root || where=$1.runner/temp/sbx-root$prefix/bin/sbx
    like "$(cat "$1.runner/step0.log")" "sbx: $where" "GitHub, $2: the install step installed sbx ($where)" ||
        diag "$(tail -5 "$1.runner/step0.log")"
    if is_root; then
        like "$installed" "$3" "GitHub, $2: in the runner's system ($3)"
    else
        [ -x "$where" ] && grep -q "SBX_PROFILE_PATH=$1.runner/temp/sbx-root" "$1.runner/env"
        ok $? "GitHub, $2, no sudo: installed for the job, its profiles in GITHUB_ENV"
    fi
    grep -q '^ok' "$1.runner/step1.log"
    ok $? "GitHub, $2: sbx probe --tap of that sbx ran" || diag "$(tail -5 "$1.runner/step1.log")"
    isnt "$job_status" 0 "GitHub, $2: the job fails on the false green"
    like "$summary" "false-green | tests.test_net.Net.test_server_replies" "GitHub, $2: the summary names the test"
    grep -q 'name="tests.test_net.Net.test_server_replies"' "$1.artifact/sbx-junit.xml" 2>/dev/null &&
        grep -q 'type="false-green"' "$1.artifact/sbx-junit.xml"
    ok $? "GitHub, $2: the uploaded JUnit file has it"
}
system_job "$work/ghdeb" command='python3 -m unittest -v' profile="$guide_profile" deb="$guide_deb"
installed_job "$work/ghdeb" "deb input" "install ok installed"

# docs/agents.md's workflow of plain steps, as written, with the same .deb
# in the project: sudo apt-get install, the AppArmor switch, sbx probe,
# sbx audit of make check, the run record, the upload. On GitHub the
# runner's user has passwordless sudo, as root has here; another user has
# none, and the job stops at its install step.
sed -n '/^\*\*GitHub Actions, plain steps\*\*/,/^```$/p' "$SBX_TOP_SRCDIR/docs/agents.md" |
    sed -n '/^```yaml$/,/^```$/p' | sed '1d;$d' | awk -f "$flat" >"$work/workflow.flat"
grep -q "^jobs\.test\.steps\.1\.run	sudo apt-get install -y ./$guide_deb\$" "$work/workflow.flat"
ok $? "docs/agents.md's plain steps install $guide_deb with sudo apt-get"
project "$work/ghplain" lenient
printf 'check:\n\tpython3 -m unittest -v\n' >"$work/ghplain/Makefile"
mkdir -p "$work/ghplain/$(dirname "$guide_deb")"
cp "$work/ghdeb/$guide_deb" "$work/ghplain/$guide_deb"
job_flat=$work/workflow.flat job_steps=jobs.test.steps
system_job "$work/ghplain"
job_flat= job_steps=
if is_root || sudo -n true 2>/dev/null; then
    like "$installed" "install ok installed" "GitHub, plain steps: sudo apt-get installed the package"
    grep -q '^ok' "$work/ghplain.runner/step3.log"
    ok $? "GitHub, plain steps: sbx probe --tap ran" || diag "$(tail -5 "$work/ghplain.runner/step3.log")"
    # make check that runs unittest: the audit reads no test from it, and
    # a green run with denials is not called trustworthy (it was)
    isnt "$job_status" 0 "GitHub, plain steps: the job fails on the green with denials"
    like "$(cat "$work/ghplain.runner/step4.log")" "verdict: incomplete, not trustworthy" \
        "GitHub, plain steps: sbx audit of make check says the green proves nothing"
    [ -s "$work/ghplain.artifact/sbx-junit.xml" ]
    ok $? "GitHub, plain steps: the JUnit file is uploaded after the failed step"
else
    isnt "$job_status" 0 "GitHub, plain steps, no sudo: the job fails"
    [ ! -e "$work/ghplain.runner/step3.log" ]
    ok $? "GitHub, plain steps, no sudo: at its install step, before any test ran"
    like "$(cat "$work/ghplain.runner/step1.log")" "sudo" "GitHub, plain steps, no sudo: sudo said why"
    pass "(plain steps: the rest runs where sudo does)"; pass "(plain steps: the rest runs where sudo does)"
fi

# From source: the action in sbx's own checkout, no deb, no sbx on PATH.
if [ -f "$SBX_TOP_SRCDIR/config.status" ]; then
    project "$work/ghsrc" lenient
    system_job "$work/ghsrc" command='python3 -m unittest -v'
    installed_job "$work/ghsrc" "from source" "$prefix/bin/sbx"
else
    # a build directory apart from the sources: the step would configure
    # and build them again (a minute), which this test does not wait for
    for i in 1 2 3 4 5 6; do
        skip "the sources ($SBX_TOP_SRCDIR) are not configured in place: the from-source install would build sbx again"
    done
fi

# --- GitLab -----------------------------------------------------------------
awk -f "$flat" "$SBX_TOP_SRCDIR/docs/ci/gitlab-ci.yml" >"$work/gitlab.flat"
ok $? "gitlab-ci.yml is in the YAML subset the test reads"
job=$(awk -F '\t' '$1 ~ /\.script\.0$/ { sub(/\.script\.0$/, "", $1); print $1; exit }' "$work/gitlab.flat")

# gl_job WORKSPACE VAR=VALUE...: before_script and script in one shell (as
# GitLab's shell executor does, stopping at the first failing line), the
# job's variables under the pipeline's (which win, as in GitLab).
gl_job() {
    ws=$1; shift
    {
        awk -F '\t' -v p="$job.variables." 'index($1, p) == 1 {
            v = substr($0, length($1) + 2); gsub(/'\''/, "'\''\\'\'''\''", v)
            print "export " substr($1, length(p) + 1) "='\''" v "'\''" }' "$work/gitlab.flat"
        for kv; do
            v=$(printf '%s' "${kv#*=}" | sed "s/'/'\\\\''/g")
            echo "export ${kv%%=*}='$v'"
        done
        get "$work/gitlab.flat" "$job.before_script.0"
        get "$work/gitlab.flat" "$job.before_script.1"
        for i in 0 1 2 3 4 5 6 7 8 9; do get "$work/gitlab.flat" "$job.script.$i"; done
    } >"$ws.job.sh"
    job_status=0
    (cd "$ws" && unset MAKEFLAGS MFLAGS MAKELEVEL &&
        PATH=${job_start_path:-$work/bin:$PATH} CI=true GITLAB_CI=true CI_PROJECT_DIR=$ws \
        CI_JOB_NAME=$job CI_JOB_ID=1 CI_PIPELINE_ID=1 CI_COMMIT_SHA=0000000 \
        ${job_enter:-} sh -e "$ws.job.sh") >"$ws.log" 2>&1 || job_status=$?
}

project "$work/gl" lenient
gl_job "$work/gl" SBX_JOB_COMMAND='python3 -m unittest -v'
is "$job_status" 3 "GitLab: the job fails (exit 3) on the false green" || diag "$(cat "$work/gl.log")"
is "$(get "$work/gitlab.flat" "$job.artifacts.when")" always "GitLab: artifacts are kept when the job fails"
rep=$(get "$work/gitlab.flat" "$job.artifacts.reports.junit")
[ -n "$rep" ] && grep -q 'name="tests.test_net.Net.test_server_replies"' "$work/gl/$rep" &&
    grep -q 'type="false-green"' "$work/gl/$rep"
ok $? "GitLab: the JUnit report names the test as a false-green failure"

# The job's own install line (no sbx in the image): apt-get install of
# SBX_JOB_DEB, run by root as GitLab's container executor does; the
# runner's system is a throwaway one (see the GitHub jobs), its apt has no
# sources, so apt-get update reads nothing. Another user cannot install:
# the job stops before any test.
deb_var=$(get "$work/gitlab.flat" "$job.variables.SBX_JOB_DEB")
project "$work/gldeb" lenient
mkdir -p "$work/gldeb/$(dirname "$deb_var")"
cp "$work/ghdeb/$guide_deb" "$work/gldeb/$deb_var"
job_runner=gl_job
system_job "$work/gldeb" SBX_JOB_COMMAND='python3 -m unittest -v'
job_runner=
if is_root; then
    like "$installed" "install ok installed" "GitLab, no sbx in the image: before_script installed $deb_var" ||
        diag "$(tail -5 "$work/gldeb.log")"
    is "$job_status" 3 "GitLab, installed by the job: it fails (exit 3) on the false green"
else
    isnt "$job_status" 0 "GitLab, no sbx in the image, not root: the job fails"
    unlike "$(cat "$work/gldeb.log")" "test_server_replies" "before any test ran"
fi

project "$work/gl2" strict
gl_job "$work/gl2" SBX_JOB_COMMAND='python3 -m unittest -v'
is "$job_status" 0 "GitLab: the same job passes once the test fails on EPERM" || diag "$(cat "$work/gl2.log")"

project "$work/gl3" strict
printf '%s\n' "$argv_py" >"$work/gl3/argv.py"
gl_job "$work/gl3" SBX_JOB_COMMAND='python3 argv.py argv.txt ; touch pwned $(touch pwned2) *'
is "$(cat "$work/gl3/argv.txt")" '; touch pwned $(touch pwned2) *' "GitLab: ';', \$(...), '*' in SBX_JOB_COMMAND are words"
[ ! -e "$work/gl3/pwned" ] && [ ! -e "$work/gl3/pwned2" ]
ok $? "GitLab: nothing ran outside sbx from the variable"

done_testing
