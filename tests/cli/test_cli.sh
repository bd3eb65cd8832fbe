#!/bin/sh
# The psv program (tools/psv.c) as a user runs it: standard input and pipes give what the file
# gives (ids 1-based for Matrix Market, decided in the one read), hostile dimensions fail fast,
# exit status 3 when not converged, options a command does not take and bad numbers rejected
# naming the option, --output checked before anything is computed, no GPU explained,
# psv convert's .psv giving what its file gives, and the read options --undirected and
# --relabel (hashed ids giving the compacted file's ranks under the file's ids), the plan psv info
# shows and the options that override it, and tune-device (CUDA only; never run here on a GPU:
# it would measure the device for minutes).
# usage: test_cli.sh PSV DATA_DIR
PSV="$1"
DATA="$2"
T=$(mktemp -d /tmp/psv_cli_XXXXXX) || exit 1
trap 'rm -rf "$T"' EXIT
fails=0
checks=0
ok() { checks=$((checks + 1)); }
bad() { checks=$((checks + 1)); fails=$((fails + 1)); echo "FAIL: $*" >&2; }
K="$DATA/karate.mtx"
W="$DATA/wiki-Vote.txt.gz"

# --- standard input and pipes = the file -------------------------------------------------------
for f in "$K" "$W" "$DATA/west0067.mtx"; do
    for cmd in "pagerank" "hits" "rwr --query 5"; do
        $PSV $cmd "$f" --backend cpu > "$T/file.out" 2>/dev/null; r1=$?
        $PSV $cmd - --backend cpu < "$f" > "$T/dash.out" 2>/dev/null; r2=$?
        cat "$f" | $PSV $cmd /dev/stdin --backend cpu > "$T/pipe.out" 2>/dev/null; r3=$?
        if [ $r1 -eq 0 ] && [ $r2 -eq 0 ] && [ $r3 -eq 0 ] && [ -s "$T/file.out" ] &&
           cmp -s "$T/file.out" "$T/dash.out" && cmp -s "$T/file.out" "$T/pipe.out"; then ok
        else bad "$cmd $f: stdin/pipe differ from the file (exit $r1 $r2 $r3)"; fi
    done
done
# gzip through a pipe
gzip -c "$K" | $PSV pagerank - --backend cpu > "$T/gz.out" 2>/dev/null
$PSV pagerank "$K" --backend cpu > "$T/file.out" 2>/dev/null
if cmp -s "$T/gz.out" "$T/file.out"; then ok; else bad "gzip on stdin differs"; fi
# karate through a pipe: vertices 34, 1, 33 (1-based, as in the file)
top=$(cat "$K" | $PSV pagerank /dev/stdin --backend cpu --top 3 2>/dev/null | cut -d' ' -f1 | tr '\n' ' ')
if [ "$top" = "34 1 33 " ]; then ok; else bad "karate via a pipe: top 3 '$top', want '34 1 33 '"; fi
top=$($PSV pagerank - --backend cpu --top 3 < "$K" 2>/dev/null | cut -d' ' -f1 | tr '\n' ' ')
if [ "$top" = "34 1 33 " ]; then ok; else bad "karate via -: top 3 '$top'"; fi
# rwr from a pipe: 1-based queries accepted (vertex 34 exists only 1-based)
cat "$K" | $PSV rwr /dev/stdin --backend cpu --query 34 --top 1 > "$T/rwr.out" 2>"$T/err"; r=$?
if [ $r -eq 0 ] && [ "$(cut -d' ' -f1 "$T/rwr.out")" = "34" ]; then ok; else bad "rwr via a pipe: exit $r: $(cat "$T/err")"; fi

# --- hostile dimensions: fail fast, naming the sizes --------------------------------------------
avail=$(awk '/^MemAvailable:/ {print $2}' /proc/meminfo 2>/dev/null)
if [ -n "$avail" ] && [ "$avail" -lt 104857600 ]; then  # < 100 GiB (in kB): 2^31-1 cannot fit
    for f in "$DATA/hostile/mm_huge_dims.mtx" "$DATA/hostile/edge_huge_id.txt"; do
        for how in file stdin; do
            t0=$(date +%s)
            if [ $how = file ]; then timeout 60 $PSV pagerank "$f" --backend cpu > /dev/null 2> "$T/err"; r=$?
            else timeout 60 $PSV pagerank - --backend cpu < "$f" > /dev/null 2> "$T/err"; r=$?; fi
            dt=$(( $(date +%s) - t0 ))
            if [ $r -eq 1 ] && [ $dt -le 5 ] && grep -q PSV_ERROR_OUT_OF_MEMORY "$T/err" &&
               grep -q "2147483647 x 2147483647" "$T/err"; then ok
            else bad "$f ($how): exit $r after $dt s: $(cat "$T/err")"; fi
        done
    done
else
    echo "hostile-dimension checks skipped: ${avail:-?} kB available" >&2
fi

# --- not converged: exit 3, results written, stderr says so ------------------------------------
for cmd in "pagerank" "hits" "rwr --query 1"; do
    $PSV $cmd "$K" --backend cpu --max-iter 2 > "$T/out" 2> "$T/err"; r=$?
    if [ $r -eq 3 ] && [ "$(wc -l < "$T/out")" -eq 34 ] && grep -q "NOT converge" "$T/err"; then ok
    else bad "$cmd --max-iter 2: exit $r, $(wc -l < "$T/out") lines: $(cat "$T/err")"; fi
done
$PSV pagerank "$K" --backend cpu > /dev/null 2>&1; r=$?
if [ $r -eq 0 ]; then ok; else bad "a converged pagerank exits $r"; fi
if $PSV --help | grep -q "3 not converged"; then ok; else bad "--help does not document exit status 3"; fi

# --- options: not taken by the command, bad numbers -------------------------------------------
expect_usage() {  # expect_usage WORD1 WORD2 -- ARGS...: exit 2, stderr naming both words
    w1=$1; w2=$2; shift 3
    $PSV "$@" > "$T/out" 2> "$T/err"; r=$?
    if [ $r -eq 2 ] && grep -q -- "$w1" "$T/err" && grep -q -- "$w2" "$T/err" && [ ! -s "$T/out" ]; then ok
    else bad "$*: exit $r: $(cat "$T/err")"; fi
}
expect_usage hits --damping -- hits "$K" --damping 0.5
expect_usage info --tol -- info "$K" --tol 1e-3
expect_usage pagerank --query -- pagerank "$K" --query 1
expect_usage rwr --damping -- rwr "$K" --query 1 --damping 0.5
expect_usage --tol abc -- pagerank "$K" --tol abc
expect_usage --damping x -- pagerank "$K" --damping x
expect_usage --max-iter 0 -- pagerank "$K" --max-iter 0
expect_usage --top 1.5 -- hits "$K" --top 1.5
expect_usage --bogus unknown -- pagerank "$K" --bogus 1

# --- --output checked before computing ---------------------------------------------------------
$PSV pagerank "$K" --backend cpu --output /nonexistent/psv/dir/out.txt > "$T/out" 2> "$T/err"; r=$?
if [ $r -eq 1 ] && grep -q "cannot write /nonexistent/psv/dir/out.txt" "$T/err" &&
   ! grep -q "pagerank on" "$T/err"; then ok
else bad "--output to an unwritable path: exit $r: $(cat "$T/err")"; fi
$PSV pagerank "$K" --backend cpu --output "$T/ranks.txt" > "$T/out" 2>/dev/null; r=$?
if [ $r -eq 0 ] && [ ! -s "$T/out" ] && [ "$(wc -l < "$T/ranks.txt")" -eq 34 ]; then ok
else bad "--output to a file: exit $r"; fi

# --- convert: the .psv gives what the file gives (ids' base kept) ------------------------------
for f in "$K" "$W" "$DATA/west0067.mtx"; do
    if $PSV convert "$f" "$T/g.psv" --backend cpu 2>"$T/err" && [ ! -e "$T/g.psv.tmp" ]; then ok
    else bad "convert $f: $(cat "$T/err")"; fi
    for cmd in "pagerank" "hits" "rwr --query 5"; do
        $PSV $cmd "$f" --backend cpu > "$T/file.out" 2>/dev/null; r1=$?
        $PSV $cmd "$T/g.psv" --backend cpu > "$T/psv.out" 2>/dev/null; r2=$?
        if [ $r1 -eq 0 ] && [ $r2 -eq 0 ] && [ -s "$T/file.out" ] && cmp -s "$T/file.out" "$T/psv.out"; then ok
        else bad "$cmd $f: its .psv differs (exit $r1 $r2)"; fi
    done
done
$PSV convert "$K" "$T/k.psv" --backend cpu 2>/dev/null
top=$($PSV pagerank "$T/k.psv" --backend cpu --top 3 2>/dev/null | cut -d' ' -f1 | tr '\n' ' ')
if [ "$top" = "34 1 33 " ]; then ok; else bad "karate.psv: top 3 '$top', want '34 1 33 '"; fi
$PSV convert "$K" "$T/nodir/k.psv" --backend cpu > /dev/null 2> "$T/err"; r=$?
if [ $r -eq 1 ] && grep -q "PSV_ERROR_IO" "$T/err" && [ ! -e "$T/nodir" ]; then ok
else bad "convert to an unwritable path: exit $r: $(cat "$T/err")"; fi
$PSV convert "$K" > /dev/null 2> "$T/err"; r=$?
if [ $r -eq 2 ] && grep -q "output file" "$T/err"; then ok; else bad "convert without OUT: exit $r"; fi
$PSV convert "$K" "$T/x.psv" --damping 0.5 > /dev/null 2> "$T/err"; r=$?
if [ $r -eq 2 ] && grep -q -- "--damping" "$T/err" && [ ! -e "$T/x.psv" ]; then ok
else bad "convert --damping: exit $r"; fi

# --- read options: --undirected, --relabel --------------------------------------------------
# --undirected = the file with every edge also listed reversed (duplicates count once).
gzip -dc "$W" | awk '!/^[#%]/ { print; print $2, $1 }' > "$T/sym.txt"
$PSV pagerank "$W" --undirected --backend cpu > "$T/u.out" 2>/dev/null; r1=$?
$PSV pagerank "$T/sym.txt" --backend cpu > "$T/s.out" 2>/dev/null; r2=$?
if [ $r1 -eq 0 ] && [ $r2 -eq 0 ] && [ -s "$T/u.out" ] && cmp -s "$T/u.out" "$T/s.out"; then ok
else bad "pagerank --undirected differs from the symmetrized file (exit $r1 $r2)"; fi
# --relabel: ids near 2^62 (hashed-like) give the compacted file's ranks, printed with the
# file's ids; compact ids in order of first appearance, as the map below assigns them.
gzip -dc "$DATA/email-Eu-core.txt.gz" | awk '!/^[#%]/ {
    for (k = 1; k <= 2; ++k) { h[k] = sprintf("46116860184%08d", $k); if (!(h[k] in c)) { c[h[k]] = n + 0; print n + 0, h[k] > "'"$T"'/map"; ++n } }
    print h[1], h[2] > "'"$T"'/hashed.txt"; print c[h[1]], c[h[2]] > "'"$T"'/compact.txt" }'
$PSV pagerank "$T/hashed.txt" --relabel --backend cpu > "$T/h.out" 2>/dev/null; r1=$?
$PSV pagerank "$T/compact.txt" --backend cpu 2>/dev/null | awk 'NR == FNR { id[$1] = $2; next } { print id[$1], $2 }' "$T/map" - > "$T/c.out"
if [ $r1 -eq 0 ] && [ -s "$T/h.out" ] && cmp -s "$T/h.out" "$T/c.out"; then ok
else bad "pagerank --relabel on hashed ids differs from the compacted file (exit $r1)"; fi
$PSV pagerank "$T/hashed.txt" --backend cpu > /dev/null 2> "$T/err"; r=$?
if [ $r -eq 1 ] && grep -q -- "--relabel" "$T/err"; then ok
else bad "hashed ids without --relabel: exit $r: $(cat "$T/err")"; fi
# standard input = the file, both options, every command
q=$(sed -n 2p "$T/map" | cut -d' ' -f2)
for cmd in "pagerank" "hits" "rwr --query $q" "info"; do
    $PSV $cmd "$T/hashed.txt" --relabel --undirected --backend cpu > "$T/file.out" 2>/dev/null; r1=$?
    gzip -c "$T/hashed.txt" | $PSV $cmd - --relabel --undirected --backend cpu > "$T/dash.out" 2>/dev/null; r2=$?
    [ "$cmd" = info ] && sed -i '/^file\|^build/d' "$T/file.out" "$T/dash.out"
    if [ $r1 -eq 0 ] && [ $r2 -eq 0 ] && [ -s "$T/file.out" ] && cmp -s "$T/file.out" "$T/dash.out"; then ok
    else bad "$cmd --relabel --undirected: stdin differs from the file (exit $r1 $r2)"; fi
done
# rwr --query takes the file's ids; one no edge names is refused
top=$($PSV rwr "$T/hashed.txt" --relabel --query "$q" --top 1 --backend cpu 2>/dev/null | cut -d' ' -f1)
if [ "$top" = "$q" ]; then ok; else bad "rwr --relabel: top vertex '$top', want the query $q"; fi
$PSV rwr "$T/hashed.txt" --relabel --query 5 --backend cpu > /dev/null 2> "$T/err"; r=$?
if [ $r -eq 1 ] && grep -q "not in the graph" "$T/err"; then ok; else bad "rwr --relabel absent query: exit $r"; fi
# Matrix Market: the file's 1-based ids
top=$($PSV pagerank "$K" --relabel --backend cpu --top 3 2>/dev/null | cut -d' ' -f1 | tr '\n' ' ')
if [ "$top" = "34 1 33 " ]; then ok; else bad "karate --relabel: top 3 '$top', want '34 1 33 '"; fi
# convert keeps no labels: --relabel refused; --undirected taken
$PSV convert "$K" "$T/r.psv" --relabel > /dev/null 2> "$T/err"; r=$?
if [ $r -eq 2 ] && grep -q -- "--relabel" "$T/err" && [ ! -e "$T/r.psv" ]; then ok
else bad "convert --relabel: exit $r"; fi
$PSV convert "$W" "$T/u.psv" --undirected --backend cpu > /dev/null 2>&1 &&
    $PSV pagerank "$T/u.psv" --backend cpu > "$T/up.out" 2>/dev/null
if cmp -s "$T/up.out" "$T/u.out"; then ok; else bad "convert --undirected: ranks differ"; fi

# --- --backend cuda without a GPU says why -----------------------------------------------------
has_cuda=
$PSV info "$K" --backend cuda > /dev/null 2> "$T/err"; r=$?
if [ $r -eq 0 ]; then ok; has_cuda=1  # a GPU is there
elif [ $r -eq 1 ] && grep -q "BACKEND_UNAVAILABLE" "$T/err" && grep -q -i "cuda" "$T/err" &&
     [ "$(grep -c . "$T/err")" -ge 2 ] && ! grep -q "no reason given" "$T/err"; then ok
else bad "--backend cuda without a GPU: exit $r: $(cat "$T/err")"; fi

# --- the plan: psv info shows it and the tuning table; options override the choice ---------------
$PSV info "$K" --backend cpu > "$T/info" 2> "$T/err"; r=$?
if [ $r -eq 0 ] && grep -q "^plan  *tile-composite kernel, tile width" "$T/info" &&
   grep -q "^predicted  *no model" "$T/info" && ! grep -q "^runner-up" "$T/info" &&
   grep -q "^tuning  *.*no performance model" "$T/info"; then ok
else bad "info: plan, predicted, tuning lines: exit $r: $(cat "$T/info" "$T/err")"; fi
$PSV info "$K" --backend cpu --kernel csr --plan-choice rules --hot-columns 0 --rank-order 1 > "$T/info" 2> "$T/err"; r=$?
if [ $r -eq 0 ] && grep -q "^kernel  *csr$" "$T/info" && grep -q "^plan  *CSR loop$" "$T/info" &&
   grep -q "^tuning " "$T/info"; then ok
else bad "info --kernel csr ...: exit $r: $(cat "$T/info" "$T/err")"; fi
$PSV info "$K" --backend cpu --kernel tile-coo > "$T/info" 2>/dev/null
if grep -q "^plan  *CSR loop (tile-coo is a CUDA kernel)" "$T/info"; then ok
else bad "info --kernel tile-coo on the CPU: $(grep '^plan' "$T/info")"; fi
expect_usage --kernel tc -- info "$K" --kernel tc
expect_usage --plan-choice best -- info "$K" --plan-choice best
expect_usage --rank-order 2 -- info "$K" --rank-order 2
expect_usage --hot-columns -2 -- info "$K" --hot-columns -2
expect_usage pagerank --kernel -- pagerank "$K" --kernel csr

# --- tune-device: CUDA only; usage errors before anything is measured ---------------------------
$PSV tune-device --backend cpu --quick > "$T/out" 2> "$T/err"; r=$?
if [ $r -eq 1 ] && grep -q "NOT_IMPLEMENTED" "$T/err" && grep -q "performance model" "$T/err" &&
   grep -q "^tuning was .*no performance model" "$T/out"; then ok
else bad "tune-device --backend cpu: exit $r: $(cat "$T/out" "$T/err")"; fi
if [ -z "$has_cuda" ]; then  # the default backend is CUDA: none here, and it says why
    $PSV tune-device --quick --out "$T/t.tbl" > "$T/out" 2> "$T/err"; r=$?
    if [ $r -eq 1 ] && grep -q "BACKEND_UNAVAILABLE" "$T/err" && [ ! -e "$T/t.tbl" ]; then ok
    else bad "tune-device without CUDA: exit $r: $(cat "$T/err")"; fi
fi
expect_usage unexpected extra -- tune-device --quick extra
expect_usage tune-device --damping -- tune-device --damping 0.5
expect_usage --device x -- tune-device --device x
expect_usage --out value -- tune-device --out
expect_usage info --device -- info "$K" --device 1
if $PSV --help | grep -q "tune-device"; then ok; else bad "--help does not list tune-device"; fi

echo "$checks checks, $fails failed"
[ $fails -eq 0 ]
