#!/bin/sh
# The multi-part example on 2 CPU parts names the same top 10 as on one part (vertex ids only:
# a printed rank may differ in its last digit, the split sums rounding differently).
exe=$1
graph=$2
one=$("$exe" "$graph" 1 cpu) || exit 1
two=$("$exe" "$graph" 2 cpu) || exit 1
printf '%s\n' "$two"
ids() { printf '%s\n' "$1" | awk '/ vertex /{print $1, $3}'; }
case $two in *" on 2 parts,"*) ;; *) echo "the run did not report 2 parts"; exit 1 ;; esac
[ "$(ids "$one" | wc -l)" -eq 10 ] || { echo "the one-part run printed no top 10"; exit 1; }
[ "$(ids "$one")" = "$(ids "$two")" ] || { printf 'one part gave:\n%s\n' "$one"; exit 1; }
