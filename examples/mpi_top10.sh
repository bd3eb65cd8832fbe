#!/bin/sh
# The MPI example on 3 ranks of the CPU backend names the same top 10 as the one-part run of the
# multi-part example (vertex ids only: a printed rank may differ in its last digit).
mpirun=$1
mpi_exe=$2
one_exe=$3
graph=$4
one=$("$one_exe" "$graph" 1 cpu) || exit 1
three=$("$mpirun" -np 3 "$mpi_exe" "$graph" cpu) || { printf '%s\n' "$three"; exit 1; }
printf '%s\n' "$three"
ids() { printf '%s\n' "$1" | awk '/ vertex /{print $1, $3}'; }
case $three in *" on 3 ranks,"*) ;; *) echo "the run did not report 3 ranks"; exit 1 ;; esac
[ "$(ids "$one" | wc -l)" -eq 10 ] || { echo "the one-part run printed no top 10"; exit 1; }
[ "$(ids "$one")" = "$(ids "$three")" ] || { printf 'one part gave:\n%s\n' "$one"; exit 1; }
