#!/bin/sh
# Remake the expected.*.txt files of this folder: run from this folder with the builds,
#   sh regenerate.sh TE908 TE10 [TE10_RELEASE [TE10_RELEASE_O2]]
# TE908 is trec_eval 9.0.8 and TE10 the 10.0-fixed build; the optional two are 10.0 as
# released (NIST's Makefile) and 10.0 as released built with -O2, which show 10.0's defects
# (see README.md for the builds). Each command of commands.tsv (short name, TAB, options and
# files, and optionally TAB and a file given on standard input; /dev/null otherwise) is run
# with TE908 and TE10, each of commands.release.tsv with the release builds when given.
# stdout goes to expected.<version>.<name>.txt, stderr (when not empty) to
# expected.<version>.<name>.stderr.txt, and the exit status to status.tsv.
set -u
TE908=$1
TE10=$2
TE10REL=${3:-}
TE10RELO2=${4:-}
run() {  # version binary name args stdin
    # shellcheck disable=SC2086
    "$2" $4 < "${5:-/dev/null}" > "expected.$1.$3.txt" 2> "expected.$1.$3.stderr.txt"
    rc=$?
    [ -s "expected.$1.$3.stderr.txt" ] || rm "expected.$1.$3.stderr.txt"
    printf '%s\t%s\t%s\n' "$1" "$3" "$rc" >> status.tsv
}
printf 'version\tname\tstatus\n' > status.tsv
while IFS="$(printf '\t')" read -r name args stdin; do
    run 9.0.8 "$TE908" "$name" "$args" "$stdin"
    run 10.0 "$TE10" "$name" "$args" "$stdin"
done < commands.tsv
if [ -n "$TE10REL" ] && [ -f commands.release.tsv ]; then
    while IFS="$(printf '\t')" read -r name args stdin; do
        run 10.0-release "$TE10REL" "$name" "$args" "$stdin"
        [ -z "$TE10RELO2" ] || run 10.0-release-O2 "$TE10RELO2" "$name" "$args" "$stdin"
    done < commands.release.tsv
fi
