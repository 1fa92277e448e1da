#!/bin/sh
# Help topics: every `irt help WORD` that the help texts, the man page, the README, the docs or
# irt's own messages point to must answer (exit 0, text on stdout); unknown topics are refused.
# Runs beside other tests: irt help only prints.
. "$IRT_TOP/tests/cli/lib.sh"

# every command's help, the man page, the docs and the sources, as one text to search
"$IRT" help >"$T/texts" 2>&1
for c in $("$IRT" help | sed -n 's/^  \([a-z][a-z]*\)  .*/\1/p'); do
	"$IRT" help "$c" >>"$T/texts" 2>&1
done
"$IRT" help --man >>"$T/texts"
cat "$IRT_TOP/README.md" "$IRT_TOP"/docs/*.md "$IRT_TOP"/docs/irt.1 "$IRT_TOP"/src/*.c "$IRT_TOP"/src/*/*.c >>"$T/texts"
# "irt help WORD" (man pages escape the dash of --man: irt help \-\-man)
words=$(grep -o 'irt help [a-z][a-z-]*' "$T/texts" | awk '{print $3}' | sort -u)
check "the texts point to help topics ($(echo $words))" [ -n "$words" ]
for w in $words; do
	check_exit 0 "irt help $w" "$IRT" help "$w"
	check "irt help $w prints its text" [ -s "$OUT" ]
done
check_exit 0 "irt help loads" "$IRT" help loads
for t in cpu mem pipe fork io compile cmd; do
	check_out "^  $t: " "irt help loads lists the $t type"
done
check_out '^  keys of every type:' "irt help loads lists the common keys"
check_out '^    user .*; a user name or uid shorter than 64 characters$' "irt help loads: what user= accepts"
check_out '^    dir .*; a directory path shorter than 256 characters$' "irt help loads: what dir= accepts"
check_out '^    cpu:N is cpu:threads=N$' "irt help loads says what a bare count is"
check_out '^    \(no cmd:N: the type has no count\)$' "irt help loads says cmd has no count"
check_exit 0 "irt help personas" "$IRT" help personas
check_out '^  audio ' "irt help personas lists audio"
check_exit 0 "irt help sim" "$IRT" help sim
check_out '^usage: .*irt sim --like RESULT\.json' "irt help sim's usage has the --like form, as irt sim's own usage line"
check_exit 0 "irt help --man" "$IRT" help --man
check_exit 0 "irt --help" "$IRT" --help
check_out "irt help loads" "the top-level help names the loads topic"
check_usage "an unknown topic" "^irt: help: unknown command or topic 'nope' \(topics: personas, loads; see irt help\)$" \
	"$IRT" help nope

# every option a command's help lists, its parser accepts: the option (with its default value,
# or 1) and then one no command has; the parser must get as far as that one, so nothing runs
for c in $("$IRT" help | sed -n 's/^  \([a-z][a-z]*\)  .*/\1/p'); do
	"$IRT" help "$c" | sed -n 's/^ *\(-[a-zA-Z], \)\{0,1\}\(--[a-z0-9-]*\)\( [^ ]\)\{0,1\}.*/\2 \3/p' >"$T/opts"
	bad=""
	while read -r name arg; do
		set -- "$name"
		if [ -n "$arg" ]; then
			def=$("$IRT" help "$c" | sed -n "s/^ *\(-[a-zA-Z], \)\{0,1\}$name .*\[default: \([^]]*\)\]\$/\2/p" | head -1)
			set -- "$name" "${def:-1}"
		fi
		"$IRT" "$c" "$@" --zz-no-option >/dev/null 2>"$T/err"
		grep -q '^irt: --zz-no-option: unknown option' "$T/err" || bad="$bad $* ($(head -1 "$T/err"))"
	done <"$T/opts"
	check "irt $c: every option its help lists is accepted by its parser$bad" [ -z "$bad" ]
done
# ...and the options a command refuses or ignores are not listed (they were, and the commands
# refused them after parsing)
unlisted() {   # unlisted COMMAND OPTION...: none of the options is in its help
	c=$1; shift
	"$IRT" help "$c" >"$T/h"
	for o in "$@"; do
		grep -Eq -- "^ *(-[a-zA-Z], )?$o( |$)" "$T/h" && { fail "irt help $c lists $o, which it refuses"; return; }
	done
	pass
}
unlisted monitor --json --csv --count --duration --hist-buckets --hist-sum
unlisted watch --attribute
unlisted knobs --csv --seed --hist-buckets --hist-sum
unlisted report --csv --hist-buckets --hist-sum
unlisted compare --hist-buckets --hist-sum
unlisted check --format --csv --seed --hist-buckets --hist-sum
unlisted sweep --json --csv --hist-buckets --hist-sum --svg --hold
check_exit 0 "irt help sweep" "$IRT" help sweep
check_out "^  -f, --format FORMAT +output on stdout: table, none \[default: table\]$" "irt help sweep: its --format values only"
check_exit 0 "irt help monitor" "$IRT" help monitor
check_out "^  -f, --format FORMAT +output on stdout: none, openmetrics \[default: none\]$" "irt help monitor: its --format values only"
check_exit 0 "irt help knobs" "$IRT" help knobs
check_out "^  -f, --format FORMAT +output on stdout: table, none \[default: table\]$" "irt help knobs: its --format values only"
check_out "irt knobs: the tunables \(schema irt-knobs/1\)" "irt help knobs: -o writes irt-knobs/1"
finish
