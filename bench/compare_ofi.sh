#!/bin/bash
# Canal's ofi channel, provider by provider, against Canal's sock channel,
# MPICH and Open MPI, through MPI between 2 ranks on this machine, in one run.
#
# Usage: bench/compare_ofi.sh CANAL_PREFIX
#   CANAL_PREFIX: an installed Canal (bin/mpicc, bin/mpiexec) built with ofi.
# Environment:
#   OUT=dir          results (default bench/out/ofi): data/, tables.txt
#   REPS=3           rounds; each round runs every configuration once, in an
#                    order rotated from round to round
#   LAT_MAX=65536    largest latency message; BW_MAX=4194304 for bandwidth
#   SCALE=0.2        iteration scale of bench/latency.c and bench/bw.c
#   CONFIGS="a b"    only these configurations (names as in the tables)
#   TIMEOUT=120      seconds before one run is killed
#   REPORT_ONLY=1    only redo tables.txt from the data in $OUT
#
# What runs (the same bench/latency.c and bench/bw.c for every library):
#   canal-sock       Canal, CANAL_CHANNEL=sock (its own TCP channel)
#   canal-shm        Canal's default on one node (shm channel), for scale
#   canal-rxm|rxd|net|ofishm|sockets
#                    Canal, CANAL_CHANNEL=ofi, CANAL_OFI_PROVIDER=
#                    tcp;ofi_rxm, udp;ofi_rxd, net, shm, sockets
#   mpich-tcp        Debian's MPICH (ch4:ucx) with UCX_TLS=tcp,self
#   mpich-shm        Debian's MPICH, its default transports (shared memory)
#   ompi-tcp         Open MPI, pml ob1 with btl tcp,self
#   ompi-rxm|rxd|net|ofishm|sockets
#                    Open MPI, pml cm with mtl ofi and FI_PROVIDER (and
#                    mtl_ofi_provider_include, since Open MPI excludes
#                    tcp, udp, shm and sockets by default)
# A configuration that fails a short probe run is skipped with its first
# error line in the tables (e.g. Open MPI's mtl ofi refuses shm here).
#
# How (../shared/benchmarks.md, doc/bench.md): each rank runs under
# `chrt -r 1` when we are root, which keeps other programs off the two
# cores; every run is bracketed by the cache-line floor (bench/floor.c) and
# labelled near, far, busy or mixed; tables are per mode (even loopback TCP
# moves by 25% between the modes), with medians over the runs of each run's
# median batch; busy and mixed runs are left out.
# Ratios are canal-X / reference: for latency below 1 means Canal is
# faster, for bandwidth above 1 means Canal is faster.
set -u
. "$(dirname "$0")/libs.sh"

case ${1:-} in -h | --help | '')
    bench_help "$0"
    [ -n "${1:-}" ]; exit $?
    ;;
esac

PREFIX=$1
OUT=$(realpath -m "${OUT:-$bench_srcdir/out/ofi}")
REPS=${REPS:-3}
LAT_MAX=${LAT_MAX:-65536}
BW_MAX=${BW_MAX:-4194304}
SCALE=${SCALE:-0.2}
TIMEOUT=${TIMEOUT:-120}
log() { echo "compare_ofi: $*" >&2; }

bench_libs_init "$PREFIX"
case " $BENCH_LIBS " in *" canal "*) ;; *) log "no Canal in '$PREFIX'"; exit 1 ;; esac
CHRT=
# Round-robin rather than FIFO: a rank's helper threads (UCX's async thread
# accepting TCP connections, provider progress threads) inherit the policy,
# and under FIFO they never run beside their spinning rank (MPICH with
# UCX_TLS=tcp hangs in its first message that way).
if [ "$(id -u)" = 0 ] && command -v chrt >/dev/null; then CHRT="chrt -r 1"
else log "not root: no chrt -f 1, expect noisy numbers"; fi

# name|library|environment (blank-separated NAME=VALUE)|launcher options
ALL_CONFIGS=(
    "canal-sock|canal|CANAL_CHANNEL=sock|"
    "canal-shm|canal|CANAL_CHANNEL=auto|"
    "canal-rxm|canal|CANAL_CHANNEL=ofi CANAL_OFI_PROVIDER=tcp;ofi_rxm|"
    "canal-rxd|canal|CANAL_CHANNEL=ofi CANAL_OFI_PROVIDER=udp;ofi_rxd|"
    "canal-net|canal|CANAL_CHANNEL=ofi CANAL_OFI_PROVIDER=net|"
    "canal-ofishm|canal|CANAL_CHANNEL=ofi CANAL_OFI_PROVIDER=shm|"
    "canal-sockets|canal|CANAL_CHANNEL=ofi CANAL_OFI_PROVIDER=sockets|"
    "mpich-tcp|mpich|UCX_TLS=tcp,self|"
    "mpich-shm|mpich||"
    "ompi-tcp|ompi||--mca pml ob1 --mca btl tcp,self"
    "ompi-rxm|ompi|FI_PROVIDER=tcp;ofi_rxm|--mca pml cm --mca mtl ofi --mca mtl_ofi_provider_include tcp;ofi_rxm"
    "ompi-rxd|ompi|FI_PROVIDER=udp;ofi_rxd|--mca pml cm --mca mtl ofi --mca mtl_ofi_provider_include udp;ofi_rxd"
    "ompi-net|ompi|FI_PROVIDER=net|--mca pml cm --mca mtl ofi --mca mtl_ofi_provider_include net"
    "ompi-ofishm|ompi|FI_PROVIDER=shm|--mca pml cm --mca mtl ofi --mca mtl_ofi_provider_include shm"
    "ompi-sockets|ompi|FI_PROVIDER=sockets|--mca pml cm --mca mtl ofi --mca mtl_ofi_provider_include sockets"
)
# Which references each Canal ofi configuration is compared with.
declare -A REFS=(
    [canal-rxm]="canal-sock mpich-tcp ompi-tcp ompi-rxm"
    [canal-rxd]="canal-sock mpich-tcp ompi-tcp ompi-rxd"
    [canal-net]="canal-sock mpich-tcp ompi-tcp ompi-net"
    [canal-ofishm]="canal-shm mpich-shm ompi-ofishm"
    [canal-sockets]="canal-sock mpich-tcp ompi-tcp ompi-sockets"
    [canal-sock]="mpich-tcp ompi-tcp"
)

declare -A LIB ENVS OPTS SKIP
NAMES=()
for c in "${ALL_CONFIGS[@]}"; do
    IFS='|' read -r name lib envs opts <<<"$c"
    if [ -n "${CONFIGS:-}" ] && [[ " $CONFIGS " != *" $name "* ]]; then continue; fi
    case " $BENCH_LIBS " in *" $lib "*) ;; *) SKIP[$name]="library $lib not installed"; continue ;; esac
    LIB[$name]=$lib ENVS[$name]=$envs OPTS[$name]=$opts
    NAMES+=("$name")
done

if [ -n "${REPORT_ONLY:-}" ]; then
    read -r -a RUN <"$OUT/data/configs.txt"
    while IFS='|' read -r name why; do SKIP[$name]=$why; done <"$OUT/data/skipped.txt"
else
mkdir -p "$OUT/bin" "$OUT/data/raw"
rm -f "$OUT"/data/*.dat "$OUT"/data/*.txt "$OUT"/data/raw/*
bench_floor_build "$OUT/bin" || exit 1
for lib in canal mpich ompi; do
    case " $BENCH_LIBS " in *" $lib "*) ;; *) continue ;; esac
    for prog in latency bw; do
        bench_cc "$lib" "$OUT/bin/${prog}_$lib" "$bench_srcdir/$prog.c" ||
            { log "cannot build $prog against $lib"; exit 1; }
    done
done

# command NAME PROG ARGS...: sets CMD to the command line that runs one
# configuration's program on 2 ranks.
command_of() {
    local name=$1 prog=$2 lib=${LIB[$1]} e
    shift 2
    local -a envs opts
    read -r -a envs <<<"${ENVS[$name]}"
    read -r -a opts <<<"${OPTS[$name]}"
    CMD=(env "${envs[@]}")
    case $lib in
    canal) CMD+=("$canal_mpiexec" -n 2) ;;
    mpich) CMD+=(mpiexec.mpich -n 2) ;;
    ompi)
        CMD+=(mpirun.openmpi -n 2)
        for e in "${envs[@]}"; do CMD+=(-x "${e%%=*}"); done
        CMD+=("${opts[@]}")
        ;;
    esac
    CMD+=($CHRT "$OUT/bin/${prog}_$lib" "$@")
}

reap() { bench_reap "$OUT/bin"; }

floor_run() { $CHRT "$OUT/bin/floor"; } # (round-robin, as the runs: see above)

# ---- probe: a configuration that cannot run short ping-pongs and a short
# bandwidth test (the sockets provider loses send completions here) is skipped
RUN=()
for name in "${NAMES[@]}"; do
    raw="$OUT/data/raw/probe-$name"
    command_of "$name" latency -m 8 -i 0.01 -b 1
    echo "${CMD[*]}" >"$raw.cmd"
    if timeout -k 5 60 "${CMD[@]}" >"$raw.txt" 2>"$raw.err" </dev/null && grep -q '^8 ' "$raw.txt" &&
        command_of "$name" bw -m 65536 -i 0.05 -b 1 &&
        timeout -k 5 60 "${CMD[@]}" >"$raw.txt" 2>"$raw.err" </dev/null && grep -q '^65536 ' "$raw.txt"; then
        RUN+=("$name")
    else
        reap
        # The most telling line: one that names a failure, not a log banner.
        SKIP[$name]=$(grep -i 'cannot\|unable\|fail\|refuse\|no .* found' "$raw.err" |
            grep -v 'ORTE_ERROR_LOG\|help message\|help_aggregate' | head -1 | cut -c1-110)
        [ -n "${SKIP[$name]}" ] || SKIP[$name]="probe failed or timed out"
        log "skipping $name: ${SKIP[$name]}"
    fi
done

# ---- runs -------------------------------------------------------------------
# run_one NAME PROG REP ARGS...: appends "prog mode name rep size value" lines.
run_one() {
    local name=$1 prog=$2 rep=$3 raw f1 f2 mode rc
    shift 3
    raw="$OUT/data/raw/$prog-$name-$rep.txt"
    command_of "$name" "$prog" "$@"
    f1=$(floor_run)
    timeout -k 5 "$TIMEOUT" "${CMD[@]}" >"$raw" 2>"$raw.err" </dev/null
    rc=$?
    f2=$(floor_run)
    [ $rc -ge 124 ] && reap
    mode=$(bench_mode "$f1" "$f2")
    set -- $f1 $f2
    echo "# floor before $1 $2 after $3 $4 mode $mode rc $rc load $(cut -d' ' -f1 /proc/loadavg)" >>"$raw"
    if [ $rc -ne 0 ]; then
        log "$prog $name #$rep: FAILED rc $rc: $(head -c 160 "$raw.err" | tr '\n' ' ')"
        echo "$prog $name" >>"$OUT/data/failed.dat"
        return
    fi
    grep -v '^#' "$raw" | awk -v p="$prog $mode $name $rep" 'NF {print p, $1, $2}' >>"$OUT/data/results.dat"
    log "$prog $name #$rep: floor $1 -> $3: $mode"
}

echo "${RUN[*]}" >"$OUT/data/configs.txt"
for k in "${!SKIP[@]}"; do echo "$k|${SKIP[$k]}"; done >"$OUT/data/skipped.txt"
log "configurations: ${RUN[*]}; $REPS rounds"
for ((rep = 1; rep <= REPS; rep++)); do
    n=${#RUN[@]}
    for ((i = 0; i < n; i++)); do
        name=${RUN[$(((i + rep) % n))]}
        run_one "$name" latency "$rep" -m "$LAT_MAX" -i "$SCALE"
        run_one "$name" bw "$rep" -m "$BW_MAX" -i "$SCALE"
    done
done

fi # REPORT_ONLY

# ---- tables -----------------------------------------------------------------
# table PROG MODE SIZES FMT: rows are configurations, columns sizes; cells
# the median over runs; then the ratio rows of every Canal configuration.
table() {
    local prog=$1 mode=$2 sizes=$3 fmt=$4 refs=
    for k in "${!REFS[@]}"; do refs="$refs;$k=${REFS[$k]}"; done
    awk -v prog="$prog" -v mode="$mode" -v sizes="$sizes" -v fmt="$fmt" -v names="${RUN[*]}" -v refs="$refs" '
        function median(s,   a, n, i, j, t) {
            n = split(s, a, " ")
            for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] + 0 > t + 0; j--) a[j + 1] = a[j]; a[j + 1] = t }
            return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
        }
        $1 == prog && $2 == mode { v[$3, $5] = v[$3, $5] " " $6; runs[$3, $4] = 1 }
        END {
            nz = split(sizes, Z, " "); nn = split(names, N, " ")
            hdr = sprintf("%-14s %4s", "config", "runs")
            for (i = 1; i <= nz; i++) hdr = hdr sprintf(" %9s", Z[i])
            print hdr
            for (j = 1; j <= nn; j++) {
                nr = 0; for (k in runs) { split(k, K, SUBSEP); if (K[1] == N[j]) nr++ }
                if (!nr) continue
                line = sprintf("%-14s %4d", N[j], nr)
                for (i = 1; i <= nz; i++) {
                    if ((N[j], Z[i]) in v) { m[N[j], Z[i]] = median(v[N[j], Z[i]]); line = line sprintf(" " fmt, m[N[j], Z[i]]) }
                    else line = line sprintf(" %9s", "-")
                }
                print line
            }
            print ""
            nr2 = split(refs, R, ";")
            for (j = 1; j <= nn; j++) for (r = 1; r <= nr2; r++) {
                split(R[r], KV, "="); if (KV[1] != N[j]) continue
                nref = split(KV[2], F, " ")
                for (f = 1; f <= nref; f++) {
                    line = sprintf("%-19s", N[j] "/" F[f]); any = 0
                    for (i = 1; i <= nz; i++) {
                        if ((N[j], Z[i]) in m && (F[f], Z[i]) in m && m[F[f], Z[i]] > 0) {
                            line = line sprintf(" %9.2f", m[N[j], Z[i]] / m[F[f], Z[i]]); any = 1
                        } else line = line sprintf(" %9s", "-")
                    }
                    if (any) print line
                }
            }
        }' "$OUT/data/results.dat"
}

LAT_SIZES="0 8 64 512 4096 8192 16384 32768 65536"
BW_SIZES="1024 4096 16384 65536 262144 1048576 4194304"
{
    echo "# bench/compare_ofi.sh $(date -u '+%Y-%m-%d %H:%M UTC') on $(hostname), $(nproc) CPUs, ${CHRT:-no chrt}, $REPS rounds, scale $SCALE"
    echo "# libfabric $(dpkg-query -W -f '${Version}' libfabric1 2>/dev/null); load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
    for mode in near far; do
        [ -s "$OUT/data/results.dat" ] && grep -q "^latency $mode " "$OUT/data/results.dat" || continue
        echo
        echo "== latency, one way, us (median over runs of the run's median batch), mode: $mode"
        table latency "$mode" "$LAT_SIZES" "%9.2f"
        echo
        echo "== bandwidth, MB/s (median over runs), mode: $mode"
        table bw "$mode" "$BW_SIZES" "%9.0f"
    done
    echo
    echo "runs left out (busy or mixed floor): $(awk '$2 != "near" && $2 != "far" {print $1, $3, $4}' "$OUT/data/results.dat" 2>/dev/null | sort -u | wc -l)"
    [ -s "$OUT/data/failed.dat" ] && sort "$OUT/data/failed.dat" | uniq -c | sed 's/^/failed runs: /'
    for k in "${!SKIP[@]}"; do echo "skipped $k: ${SKIP[$k]}"; done | sort
} >"$OUT/tables.txt"
cat "$OUT/tables.txt"
