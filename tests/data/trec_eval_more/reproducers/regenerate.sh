#!/bin/sh
# Remake the expected.*.txt files of this folder: run from this folder with the two builds,
#   sh regenerate.sh /path/to/trec_eval-9.0.8/trec_eval /path/to/trec_eval-10.0-fixed/trec_eval
# (see README.md for the builds). Each command of commands.tsv (short name, TAB, options and
# files) is run with both; stdout goes to expected.<version>.<name>.txt, stderr (when not empty)
# to expected.<version>.<name>.stderr.txt, and the exit status to status.tsv.
set -u
TE908=$1
TE10=$2
printf 'version\tname\tstatus\n' > status.tsv
while IFS="$(printf '\t')" read -r name args; do
    for v in 9.0.8 10.0; do
        if [ "$v" = 9.0.8 ]; then te=$TE908; else te=$TE10; fi
        # shellcheck disable=SC2086
        "$te" $args > "expected.$v.$name.txt" 2> "expected.$v.$name.stderr.txt"
        rc=$?
        [ -s "expected.$v.$name.stderr.txt" ] || rm "expected.$v.$name.stderr.txt"
        printf '%s\t%s\t%s\n' "$v" "$name" "$rc" >> status.tsv
    done
done < commands.tsv
