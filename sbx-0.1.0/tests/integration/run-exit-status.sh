#!/bin/sh
# Every exit status of SPEC's table.
. "$SBX_TOP_SRCDIR/tests/integration/lib.sh"
. "$SBX_TOP_SRCDIR/tests/integration/run-common.sh"
plan 23
make_tmpdir

sbx_run -- true
is "$status" 0 "0: the command's own"
sbx_run -- sh -c 'exit 42'
is "$status" 42 "42: the command's own"
sbx_run -- sh -c 'exit 125'
is "$status" 125 "a command exiting 125 gives 125"
is "$err" "" "... without any message from sbx"
sbx_run -- sh -c 'kill -SEGV $$'
is "$status" 139 "SIGSEGV gives 139"
sbx_run -- sh -c 'kill -ABRT $$'
is "$status" 134 "SIGABRT gives 134"
sbx_run -- sh -c 'kill -KILL $$'
is "$status" 137 "SIGKILL gives 137"

sbx_run -- /nonexistent/command
is "$status" 127 "127: not found (path)"
like "$err" "sbx: cannot execute '/nonexistent/command': No such file or directory" "127 is explained"
sbx_run -- sbx-no-such-command-anywhere
is "$status" 127 "127: not found in PATH"
sbx_run -- /etc/passwd
is "$status" 126 "126: found but not executable"
like "$err" "Permission denied" "126 is explained"

# A script whose #! interpreter is missing: execve() says ENOENT of the
# script itself, which names nothing useful (without sbx: env's message).
printf '#!/nonexistent/python -u\nprint(1)\n' >"$tmpdir/script.py"
chmod 755 "$tmpdir/script.py"
run_cmd env "$tmpdir/script.py"
like "$status:$err" "127:env: " "without sbx, a missing interpreter reads as a missing script"
unlike "$err" "python" "... whose message does not name the interpreter"
sbx_run --ro "$tmpdir" -- "$tmpdir/script.py"
is "$status" 127 "127, as shells give: a script found whose interpreter is missing"
like "$err" "sbx: cannot execute '$tmpdir/script.py': its interpreter '/nonexistent/python' (the #! line of $tmpdir/script.py) does not exist inside the sandbox" \
    "the error names the interpreter"
sbx_run --ro "$tmpdir" --setenv PATH="$tmpdir:/usr/bin:/bin" -- script.py
is "$status" 127 "127: the same script found in PATH"
like "$err" "sbx: cannot execute 'script.py': its interpreter '/nonexistent/python' (the #! line of $tmpdir/script.py)" \
    "the error names the interpreter and the file found in PATH"

sbx_run --nofile 99999999999 -- true
is "$status" 125 "125: sbx itself failed (impossible limit)"

sbx_run --timeout 1s -- sleep 30
is "$status" 124 "124: timeout, command ends on SIGTERM"
like "$err" "timeout 1s expired" "the timeout is announced"
# A command that ignores SIGTERM is killed after the 5 s grace.
start=$(date +%s)
sbx_run --timeout 500ms -- sh -c 'trap "" TERM; sleep 30'
end=$(date +%s)
is "$status" 124 "124: timeout, SIGTERM ignored, SIGKILL after the grace"
elapsed=$((end - start))
if [ $elapsed -ge 5 ] && [ $elapsed -le 15 ]; then pass "SIGKILL came after the 5 s grace (${elapsed}s)"; else fail "SIGKILL after the 5 s grace"; diag "elapsed ${elapsed}s"; fi

done_testing
