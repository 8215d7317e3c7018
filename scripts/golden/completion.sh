#!/bin/sh
# Shell completion (issue: the CLI, item 9): `tprof completion bash|zsh`
# prints a script made from the binary's own command table, options and
# column keys.  Each case runs bash's completion function as bash would for
# a command line and checks what it offers.
# Prints "ok NAME" / "FAIL NAME: why" / "skip NAME: why"; run from the repo root.
top=$(cd "$(dirname "$0")/../.." && pwd)
T=$top/cli/tprof
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
check() {   # NAME CONDITION-RESULT WHY
    if [ "$2" = 0 ]; then echo "ok completion.$1"; else echo "FAIL completion.$1: $3"; fi
}
if ! command -v bash >/dev/null 2>&1; then
    echo "skip completion: no bash"
    exit 0
fi
"$T" completion bash >"$tmp/c.bash"
check bash-syntax $? "tprof completion bash failed"
bash -n "$tmp/c.bash"
check bash-parses $? "bash -n rejects the script"

# offers WORDS... : what bash would offer for the command line WORDS (the last
# word is the one being completed)
offers() {
    bash -c '. "$0"; COMP_WORDS=("$@"); COMP_CWORD=$(( $# - 1 )); COMPREPLY=(); _tprof; printf "%s\n" "${COMPREPLY[@]}"' \
        "$tmp/c.bash" "$@" 2>&1 | sort -u | tr '\n' ' '
}
case_() {   # NAME WANT WORDS... : WANT (a space-separated list) is what is offered, exactly
    name=$1; want=$2; shift 2
    got=$(cd "$tmp" && offers "$@")
    [ "$got" = "$want " ]
    check "$name" $? "[$*]: got '$got', want '$want'"
}
case_ view-prefix "kernel-types kernels" tprof ker
case_ column-key "name" tprof kernels -c na
case_ column-list-item "name,calls" tprof kernels -c name,cal
case_ sort-descending "-total" tprof kernels --sort -tot
case_ view-option "--columns --comm" tprof dist --co
case_ no-foreign-view-option "--columns" tprof kernels --co
case_ timeunit "ms" tprof --timeunit m
case_ header-values "keys" tprof --header k
case_ help-topic "kernel-types kernels" tprof help kern
case_ completion-shell "zsh" tprof completion z
case_ value-of-top "" tprof kernels --top 1

# every view's own options and every column key are offered for it
bad=""
for v in $("$T" --help | awk '/^  [a-z]/ { print $1 }'); do
    [ "$v" = help ] && continue   # `tprof help VIEW` lists VIEW's options, not its own
    "$T" help "$v" >"$tmp/h" 2>/dev/null || continue
    # the first "columns" list (diff has a second one, for --summary)
    keys=$(awk '/^columns/ { on++; next } on == 1 && /^  [a-z_0-9]+ / && $1 != "key" { print $1 } /^$/ && on { on++ }' "$tmp/h" | sort -u | tr '\n' ' ')
    [ -n "$keys" ] || continue
    got=$(cd "$tmp" && offers tprof "$v" -c "")
    [ "$got" = "$keys" ] || bad="$bad $v(columns)"
    opts=$(awk '/^options \(besides/ { on = 1; next } /^columns/ { on = 0 } on && /^  --/ { print $1 }' "$tmp/h" | sort | tr '\n' ' ')
    for o in $opts; do
        case " $(cd "$tmp" && offers tprof "$v" --) " in *" $o "*) ;; *) bad="$bad $v($o)" ;; esac
    done
done
[ -z "$bad" ]
check every-view-columns-and-options $? "not offered:$bad"

if command -v zsh >/dev/null 2>&1; then
    "$T" completion zsh >"$tmp/_tprof"
    zsh -c "autoload -U compinit; compinit -u; source '$tmp/_tprof'" >/dev/null 2>&1
    check zsh-loads $? "zsh could not load it"
else
    "$T" completion zsh | head -1 | grep -q "^#compdef tprof$"
    check zsh-header $? "no #compdef line"
    echo "skip completion.zsh-loads: no zsh"
fi
"$T" completion fish >/dev/null 2>"$tmp/err"
[ $? = 2 ] && grep -q "usage: tprof completion bash|zsh" "$tmp/err"
check unknown-shell $? "$(cat "$tmp/err")"
