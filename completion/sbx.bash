# bash completion for sbx(1)                                 -*- shell-script -*-
#
# Installed as "sbx" in bash-completion's completionsdir, where it is loaded
# on the first <TAB> after "sbx". Self-contained: it does not need the
# bash-completion package's helpers, only bash's own `compgen`.
#
# Profile names come from `sbx profile list`, so they follow the same search
# path sbx uses ($SBX_PROFILE_PATH, ~/.config/sbx/profiles, /etc/sbx/profiles,
# the shipped ones). tests/integration/docs-completion.sh keeps the option
# lists below equal to `sbx help run|audit|probe`.

_sbx_run_options='--profile --chdir --rw --ro --tmpfs --hide --setenv --unsetenv
    --keepenv --nofile --timeout --network --outbound --allow --fallback --report --strict --verbose --quiet --help'
_sbx_audit_options="$_sbx_run_options --against --against-timeout --runner --junit --tap"
_sbx_probe_options='--json --tap --profile'

# Options of run/audit/probe that take a value (the next word).
_sbx_option_takes_value()
{
    case $1 in
        -p|--profile|--against|--against-timeout|--runner|-C|--chdir|--rw|--ro|--tmpfs|--hide|--setenv|\
        --unsetenv|--keepenv|--nofile|--timeout|--network|--allow|--fallback|--report|--junit) return 0 ;;
        # audit's --tap writes a FILE; probe's prints TAP (no value). $sub
        # is the caller's (bash's dynamic scope).
        --tap) [[ ${sub-} == audit ]] && return 0 ;;
    esac
    return 1
}

# The names `sbx profile list` prints: the first word of each line that is
# not indented (indented lines hold the file), after the header.
_sbx_profile_names()
{
    "$1" profile list 2>/dev/null | while IFS= read -r _sbx_line; do
        case $_sbx_line in
            NAME\ *|''|[[:space:]]*) ;;
            *) printf '%s\n' "${_sbx_line%% *}" ;;
        esac
    done | sort -u
}

# Profile NAMEs, or file names once the word looks like a path.
_sbx_complete_profile()
{
    local sbx=$1 cur=$2
    case $cur in
        */*|.*|~*)
            compopt -o filenames 2>/dev/null
            COMPREPLY=($(compgen -f -- "$cur"))
            ;;
        *)
            COMPREPLY=($(compgen -W "$(_sbx_profile_names "$sbx")" -- "$cur"))
            ;;
    esac
}

_sbx_complete_value()
{
    local sbx=$1 opt=$2 cur=$3
    case $opt in
        -p|--profile|--against)
            _sbx_complete_profile "$sbx" "$cur" ;;
        -C|--chdir)
            compopt -o filenames 2>/dev/null
            COMPREPLY=($(compgen -d -- "$cur")) ;;
        --rw|--ro|--tmpfs|--hide|--report|--junit|--tap)
            compopt -o filenames 2>/dev/null
            COMPREPLY=($(compgen -f -- "$cur")) ;;
        --network)
            COMPREPLY=($(compgen -W 'loopback none host' -- "$cur")) ;;
        --fallback)
            COMPREPLY=($(compgen -W 'none landlock' -- "$cur")) ;;
        --nofile)
            COMPREPLY=($(compgen -W 'max unlimited inherit' -- "$cur")) ;;
        --unsetenv|--keepenv)
            COMPREPLY=($(compgen -e -- "$cur")) ;;
        --setenv)
            compopt -o nospace 2>/dev/null
            COMPREPLY=($(compgen -e -S = -- "$cur")) ;;
        *)
            COMPREPLY=() ;;
    esac
}

_sbx()
{
    local sbx=${1:-sbx} cur=${COMP_WORDS[COMP_CWORD]}
    local i word sub='' subi=0
    COMPREPLY=()

    for ((i = 1; i < COMP_CWORD; i++)); do
        case ${COMP_WORDS[i]} in
            -*) ;;
            *) sub=${COMP_WORDS[i]}; subi=$i; break ;;
        esac
    done

    if [[ -z $sub ]]; then
        case $cur in
            -*) COMPREPLY=($(compgen -W '--help --version' -- "$cur")) ;;
            *) COMPREPLY=($(compgen -W 'run audit probe profile cache hook explain help' -- "$cur")) ;;
        esac
        return 0
    fi

    # The word before the cursor, and the option a value belongs to;
    # "--profile=q" reaches us as "--profile" "=" "q".
    # Without "=" in COMP_WORDBREAKS it is one word: complete the value and
    # give the "--profile=" back as a prefix.
    local prev=${COMP_WORDS[COMP_CWORD - 1]} prev_opt='' prefix=''
    if [[ $prev == = && COMP_CWORD -ge 2 ]]; then
        prev_opt=${COMP_WORDS[COMP_CWORD - 2]}
    elif [[ $cur == --*=* ]]; then
        prev_opt=${cur%%=*}
        prefix=$prev_opt=
        cur=${cur#*=}
    elif ((COMP_CWORD - 1 > subi)) && _sbx_option_takes_value "$prev"; then
        prev_opt=$prev
    fi

    case $sub in
        run|audit)
            # Past the command (the first non-option word, or the word
            # after "--") words are the command's: complete file names.
            local cmd_at=0
            for ((i = subi + 1; i < COMP_CWORD; i++)); do
                word=${COMP_WORDS[i]}
                if [[ $word == -- ]]; then
                    cmd_at=$((i + 1))
                    break
                elif [[ $word == -* ]]; then
                    if [[ $word != *=* ]] && _sbx_option_takes_value "$word"; then
                        [[ ${COMP_WORDS[i + 1]} == = ]] && ((i++))
                        ((i++))
                    fi
                else
                    cmd_at=$i
                    break
                fi
            done
            if ((cmd_at == COMP_CWORD)); then
                COMPREPLY=($(compgen -c -- "$cur"))
                return 0
            elif ((cmd_at > 0)); then
                compopt -o filenames 2>/dev/null
                COMPREPLY=($(compgen -f -- "$cur"))
                return 0
            fi
            if [[ -n $prev_opt ]]; then
                _sbx_complete_value "$sbx" "$prev_opt" "$cur"
            elif [[ $cur == -* ]]; then
                local opts=$_sbx_run_options
                [[ $sub == audit ]] && opts=$_sbx_audit_options
                COMPREPLY=($(compgen -W "$opts --" -- "$cur"))
            else
                COMPREPLY=($(compgen -c -- "$cur"))
            fi
            ;;
        probe)
            if [[ $prev_opt == -p || $prev_opt == --profile ]]; then
                _sbx_complete_profile "$sbx" "$cur"
            else
                COMPREPLY=($(compgen -W "$_sbx_probe_options" -- "$cur"))
            fi
            ;;
        profile)
            if ((COMP_CWORD == subi + 1)); then
                COMPREPLY=($(compgen -W 'list show check learn --help' -- "$cur"))
            else
                case ${COMP_WORDS[subi + 1]} in
                    show)
                        ((COMP_CWORD == subi + 2)) && _sbx_complete_profile "$sbx" "$cur" ;;
                    check)
                        compopt -o filenames 2>/dev/null
                        COMPREPLY=($(compgen -f -X '!*.ini' -- "$cur") $(compgen -d -- "$cur")) ;;
                esac
            fi
            ;;
        cache)
            if ((COMP_CWORD == subi + 1)); then
                COMPREPLY=($(compgen -W 'list clear --help' -- "$cur"))
            elif ((COMP_CWORD == subi + 2)); then
                _sbx_complete_profile "$sbx" "$cur"
            fi
            ;;
        hook)
            if ((COMP_CWORD == subi + 1)); then
                COMPREPLY=($(compgen -W 'claude-code codex' -- "$cur"))
            elif [[ $prev_opt == -p || $prev_opt == --profile ]]; then
                _sbx_complete_profile "$sbx" "$cur"
            else
                COMPREPLY=($(compgen -W '--audit --profile --help' -- "$cur"))
            fi
            ;;
        explain)
            if [[ $cur == -* ]]; then
                COMPREPLY=($(compgen -W '--profile --help' -- "$cur"))
            else
                compopt -o filenames 2>/dev/null
                COMPREPLY=($(compgen -f -X '!*.json' -- "$cur") $(compgen -d -- "$cur"))
            fi
            ;;
        help)
            ((COMP_CWORD == subi + 1)) &&
                COMPREPLY=($(compgen -W 'run audit probe profile cache hook explain' -- "$cur"))
            ;;
    esac
    if [[ -n $prefix ]] && ((${#COMPREPLY[@]})); then
        COMPREPLY=("${COMPREPLY[@]/#/$prefix}")
    fi
    return 0
}

complete -F _sbx sbx
