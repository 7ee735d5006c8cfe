# The action's third step: the command in the sandbox. Its exit status is
# sbx's: 3 for a false green (audit, or run --strict after denials), 4 for
# incomplete evidence, the command's own otherwise; any of them fails the job.
set -eu
# The command is shell words: split here, so that sbx audit sees the
# runner's own argv and judges test by test. xargs splits them (quotes and
# backslashes as in the shell, nothing else: `;`, `$(...)` and globs stay
# words); each word comes back single-quoted, so the eval that sets them as
# arguments runs no code of the input's (see tests/integration/ci-action.sh).
quoted=$(printf '%s\n' "$SBX_ACTION_COMMAND" | xargs sh -c '
    for a; do printf "%s" "$a" | sed "s/'"'"'/'"'"'\\\\'"'"''"'"'/g; 1s/^/'"'"'/; \$s/\$/'"'"' /"; done' sbx-action) ||
    { echo "sbx action: the input 'command' is not shell words: $SBX_ACTION_COMMAND" >&2; exit 2; }
eval "set -- $quoted"
[ $# -gt 0 ] || { echo "sbx action: the input 'command' is empty" >&2; exit 2; }
status=0
case ${SBX_ACTION_MODE:-audit} in
    audit)
        # sbx audit appends its table to $GITHUB_STEP_SUMMARY itself.
        sbx audit --profile "$SBX_ACTION_PROFILE" --against "$SBX_ACTION_AGAINST" \
            --junit "$SBX_ACTION_JUNIT" -- "$@" || status=$?
        ;;
    run)
        sbx run --profile "$SBX_ACTION_PROFILE" --strict --report "$SBX_ACTION_REPORT" -- "$@" || status=$?
        if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
            {
                echo "### sbx run: $*"
                echo
                echo "exit status $status under profile \`$SBX_ACTION_PROFILE\`"
                if [ -s "$SBX_ACTION_REPORT" ] && sbx explain "$SBX_ACTION_REPORT" >"$SBX_ACTION_REPORT.fix" 2>/dev/null &&
                   [ -s "$SBX_ACTION_REPORT.fix" ]; then
                    echo
                    echo "Profile lines that would answer the refusals (\`sbx explain\`):"
                    echo
                    echo '```'
                    cat "$SBX_ACTION_REPORT.fix"
                    echo '```'
                fi
                rm -f "$SBX_ACTION_REPORT.fix"
            } >>"$GITHUB_STEP_SUMMARY"
        fi
        ;;
    *)
        echo "sbx action: mode '$SBX_ACTION_MODE' is neither audit nor run" >&2
        exit 2
        ;;
esac
exit "$status"
