#!/bin/sh
# The bash completion (completion/sbx.bash): sourced in a bash without the
# bash-completion package, it must complete subcommands, options and the
# profile names that `sbx profile list` finds on the search path, and offer
# exactly the long options `sbx help run|audit|probe` document.
. "$SBX_TOP_SRCDIR/tests/integration/lib.sh"
make_tmpdir

completion=$SBX_TOP_SRCDIR/completion/sbx.bash
sbx_dir=$(dirname "$SBX")

if ! command -v bash >/dev/null 2>&1; then
    skip "bash is not installed (apt-get install bash)"
    done_testing
fi

# complete WORD... : the words of the line, the last one being completed
# (as bash splits them: "--profile=q" is "--profile" "=" "q"). Prints the
# sorted candidates, one a line. `sbx` is the build tree's, through PATH.
complete_words() {
    cd "$tmpdir" && PATH="$sbx_dir:$PATH" bash -c '
        . "$1" || exit 99
        shift
        complete -p sbx >/dev/null || exit 98
        COMP_WORDS=("$@")
        COMP_CWORD=$(($# - 1))
        COMP_LINE="$*"
        COMP_POINT=${#COMP_LINE}
        _sbx sbx "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
        printf "%s\n" "${COMPREPLY[@]}" | sort
    ' complete "$completion" "$@" 2>&1
}

got=$(complete_words sbx r)
is "$got" "run" "sbx r<TAB> completes to run"

got=$(complete_words sbx run --pro)
is "$got" "--profile" "sbx run --pro<TAB> completes to --profile"

got=$(complete_words sbx run -p qa-s)
is "$got" "qa-session" "sbx run -p qa-s<TAB> completes to the shipped profile qa-session"

got=$(complete_words sbx run --profile = q)
is "$got" "$(printf 'qa\nqa-session')" "sbx run --profile=q<TAB> offers qa and qa-session"

got=$(complete_words sbx run -p '')
want=$(ls "$SBX_TOP_SRCDIR/profiles" | sed -n 's/\.ini$//p' | sort)
is "$got" "$want" "sbx run -p <TAB> offers every shipped profile"

# A user's profile on $SBX_PROFILE_PATH is found through `sbx profile list`.
mkdir "$tmpdir/profiles"
printf '[profile]\ndescription = mine\ninclude = qa\n' >"$tmpdir/profiles/quux.ini"
got=$(SBX_PROFILE_PATH=$tmpdir/profiles complete_words sbx audit --against qu)
is "$got" "quux" "sbx audit --against qu<TAB> finds a profile on \$SBX_PROFILE_PATH"
got=$(SBX_PROFILE_PATH=$tmpdir/profiles complete_words sbx profile show q)
is "$got" "$(printf 'qa\nqa-session\nquux')" "sbx profile show q<TAB> lists every q... profile"

got=$(complete_words sbx run -p ./profi)   # $tmpdir/profiles, made above
case $got in ./profiles) pass "sbx run -p ./profi<TAB> completes a path" ;;
    *) fail "sbx run -p ./profi<TAB> completes a path"; diag "got: $got" ;; esac

got=$(complete_words sbx run --network '')
is "$got" "$(printf 'host\nloopback\nnone')" "--network offers loopback, none, host"
got=$(complete_words sbx run --nofile m)
is "$got" "max" "--nofile m<TAB> completes to max"
got=$(complete_words sbx pro)
is "$got" "$(printf 'probe\nprofile')" "sbx pro<TAB> offers probe and profile"
got=$(complete_words sbx profile '')
is "$got" "$(printf -- '--help\ncheck\nlearn\nlist\nshow')" "sbx profile <TAB> offers list, show, check, learn"
got=$(complete_words sbx hook '')
is "$got" "$(printf 'claude-code\ncodex')" "sbx hook <TAB> offers claude-code and codex"
got=$(complete_words sbx e)
is "$got" "explain" "sbx e<TAB> completes to explain"
got=$(complete_words sbx help a)
is "$got" "audit" "sbx help a<TAB> completes to audit"
got=$(complete_words sbx probe --j)
is "$got" "--json" "sbx probe --j<TAB> completes to --json"
got=$(complete_words sbx --v)
is "$got" "--version" "sbx --v<TAB> completes to --version"

# After the command, words belong to it: no sbx options offered there.
got=$(complete_words sbx run -p qa -- tru)
case $got in *true*) pass "sbx run -p qa -- tru<TAB> completes a command" ;;
    *) fail "sbx run -p qa -- tru<TAB> completes a command"; diag "got: $got" ;; esac
got=$(complete_words sbx run -p qa make --pro)
unlike "$got" "--profile" "options after the command are not sbx's"
got=$(complete_words sbx run --rw /tmp true --str)
unlike "$got" "--strict" "an option's value is skipped when finding the command"

# The option lists stay equal to the help text.
help_options() {
    "$SBX" "$@" | grep -o -- '--[a-z][a-z0-9-]*' | sort -u
}
for sub in run audit probe; do
    want=$(help_options help $sub)
    got=$(complete_words sbx $sub - | grep -v '^--$' | sort -u)
    is "$got" "$want" "sbx $sub -<TAB> offers exactly the long options of 'sbx help $sub'"
done

done_testing
