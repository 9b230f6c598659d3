# SPDX-License-Identifier: Apache-2.0
# bash completion for clops(1): commands, each command's options (read from
# `clops COMMAND --help`, so they never go stale), operator names (from
# `clops ops` on the CPU device, which needs no OpenCL), dtypes, device
# selectors (from `clops devices --json -`) and file names for the options
# that take a file.  Installed as share/bash-completion/completions/clops.

# The words of a clops command's help that are long or short options.
_clops_options()
{
    "$1" "$2" --help 2>/dev/null | grep -oE -- '(^|[ ,[(])--?[a-zA-Z][a-zA-Z0-9-]*' |
        sed 's/^[ ,[(]//' | sort -u
}

# Qualified and base operator names, cached for the shell session.
_clops_ops()
{
    if [[ -z ${_clops_op_cache-} ]]; then
        _clops_op_cache=$(CLOPS_NO_OPENCL=1 CLOPS_PROGRESS=off "$1" ops --device cpu 2>/dev/null |
            awk 'NF && $1 ~ /^[a-z_][A-Za-z0-9_.]*$/ { print $1; sub(/\..*/, "", $1); print $1 }' |
            sort -u)
    fi
    printf '%s\n' "$_clops_op_cache"
}

# Device selectors: all, cpu, host, every index and label, vendor names.
_clops_devices()
{
    {
        printf '%s\n' all cpu host nvidia amd intel pocl
        CLOPS_PROGRESS=off "$1" devices --json - 2>/dev/null |
            grep -oE '"(index|label)":[[:space:]]*("[^"]*"|[0-9]+)' |
            sed -E 's/^"[a-z]+":[[:space:]]*"?([^"]*)"?$/\1/'
    } | awk '!seen[$0]++'
}

_clops()
{
    local cur prev
    cur=${COMP_WORDS[COMP_CWORD]}
    prev=${COMP_WORDS[COMP_CWORD - 1]}
    local exe=${COMP_WORDS[0]}
    local cmds
    cmds=$(printf '%s\n' devices cache ops check bench compare report run warmup tune help)
    local cmd="" i
    for ((i = 1; i < COMP_CWORD; i++)); do
        case ${COMP_WORDS[i]} in
        -*) ;;
        *) cmd=${COMP_WORDS[i]}; break ;;
        esac
    done
    local IFS=$'\n'
    if [[ -z $cmd ]]; then
        COMPREPLY=($(compgen -W "$cmds"$'\n'--help$'\n'--version -- "$cur"))
        return
    fi
    case $prev in
    -d | --device)
        COMPREPLY=($(compgen -W "$(_clops_devices "$exe")" -- "$cur"))
        return
        ;;
    --baseline)
        COMPREPLY=($(compgen -W "$(_clops_devices "$exe")"$'\n'torch -- "$cur"))
        return
        ;;
    --op | --table)
        COMPREPLY=($(compgen -W "$(_clops_ops "$exe")" -- "$cur"))
        return
        ;;
    --dtype)
        COMPREPLY=($(compgen -W "$(printf '%s\n' all float32 float64 float16 bfloat16 int8 int16 \
            int32 int64 uint8 bool)" -- "$cur"))
        return
        ;;
    --precision)
        COMPREPLY=($(compgen -W "$(printf '%s\n' float32 float64 all)" -- "$cur"))
        return
        ;;
    --json | -o | --out)
        COMPREPLY=($(compgen -f -- "$cur"))
        return
        ;;
    esac
    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "$(_clops_options "$exe" "$cmd")" -- "$cur"))
        return
    fi
    case $cmd in
    help) COMPREPLY=($(compgen -W "$cmds" -- "$cur")) ;;
    cache) COMPREPLY=($(compgen -W "$(printf '%s\n' info clear)" -- "$cur")) ;;
    tune) COMPREPLY=($(compgen -W gemm -- "$cur")) ;;
    run)
        # The first word after `run` is the op; later words are .npy files.
        local n=0
        for ((i = i + 1; i < COMP_CWORD; i++)); do
            [[ ${COMP_WORDS[i]} == -* ]] || n=$((n + 1))
        done
        if ((n == 0)); then
            COMPREPLY=($(compgen -W "$(_clops_ops "$exe")" -- "$cur"))
        else
            COMPREPLY=($(compgen -f -- "$cur"))
        fi
        ;;
    report) COMPREPLY=($(compgen -f -- "$cur")) ;;
    esac
}
complete -F _clops clops
