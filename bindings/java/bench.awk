# bench.awk: the table of bench.sh from lines "<kind> <bytes> <us> <MB/s>"
# (kinds: c, java-array, java-direct, javagc-array); the best (lowest)
# latency of each kind and size is kept.
{
    k = $1 SUBSEP $2
    if (!(k in lat) || $3 < lat[k]) lat[k] = $3
}
END {
    printf "%10s %10s %10s %10s %10s %9s %9s %10s\n", "bytes", "C us", "array us", "direct us",
        "array+gc", "array", "direct", "C MB/s"
    n = 0; m = 0
    for (s = 1; s <= 1e12; s *= 4) {
        if (!(("c" SUBSEP s) in lat)) continue
        c = lat["c", s]; a = lat["java-array", s]; d = lat["java-direct", s]; g = lat["javagc-array", s]
        oa = (a / c - 1) * 100; od = (d / c - 1) * 100
        printf "%10d %10.2f %10.2f %10.2f %10.2f %8.1f%% %8.1f%% %10.1f\n", s, c, a, d, g, oa, od, s / c
        sa += oa; sd += od; n++
        if (s < 8192) { ssa += oa; ssd += od; m++ }
    }
    if (n) printf "overhead of Java over C, mean over %d sizes: byte[] %.1f%%, direct ByteBuffer %.1f%%\n", n, sa / n, sd / n
    if (m) printf "below 8 KiB (%d sizes): byte[] %.1f%%, direct ByteBuffer %.1f%%\n", m, ssa / m, ssd / m
}
