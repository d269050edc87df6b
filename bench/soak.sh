#!/usr/bin/env bash
# The long soak: vkmd serves the arena to 4 wandering bot clients for
# MINUTES minutes (default 30) with its admin listener on, and the figures a
# slow leak or a slowly growing tick would move are read twice: over the
# first window (minute 1 to 2) and the last (the final minute). Resident
# size from /proc, tick p99 from the tick histogram's counts in the window
# (vkm_tick_duration_seconds, its bucket bounds), allocations a tick from
# go_memstats_mallocs_total over vkm_ticks_total. Fails when a last-window
# figure is more than 10 % above the first window's (the tick p99 is the
# upper bound of its bucket, so it moves in bucket steps).
#
#   bench/soak.sh [MINUTES]
set -euo pipefail
cd "$(dirname "$0")/.."
mins=${1:-30}
work=$(mktemp -d)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

go build -o "$work/vkmd" ./cmd/vkmd
go build -o "$work/client" ./cmd/client
port=$((30000 + RANDOM % 20000))
admin=127.0.0.1:$((port + 1))
"$work/vkmd" projects/arena --port "$port" --admin "$admin" --duration "$((mins * 60 + 120))s" \
  --report "$work/server.json" --log-level error >/dev/null &
server=$!
pids+=("$server")
sleep 1 # the listener's start; the first scrape below is a minute later
"$work/client" projects/arena --connect "127.0.0.1:$port" --headless --bots 4 --bot wander \
  --duration "$((mins * 60 + 60))s" --log-level error >/dev/null 2>&1 &
pids+=("$!")

scrape() { curl -fsS "http://$admin/metrics" >"$1"; }
rss() { awk '$1 == "VmRSS:" { printf "%.1f", $2 / 1024 }' "/proc/$server/status"; }
# window A B: the tick p99 (ms, a bucket bound) and allocations a tick
# between two scrapes.
window() {
  awk -v a="$1" -v b="$2" '
    function num(line) { return line + 0 }
    FILENAME == a && /^vkm_tick_duration_seconds_bucket/ { match($0, /le="[^"]*"/); le = substr($0, RSTART + 4, RLENGTH - 5); first[le] = $NF }
    FILENAME == b && /^vkm_tick_duration_seconds_bucket/ { match($0, /le="[^"]*"/); le = substr($0, RSTART + 4, RLENGTH - 5); last[le] = $NF; order[++n] = le }
    FILENAME == a && /^go_memstats_mallocs_total/ { m0 = $NF }
    FILENAME == b && /^go_memstats_mallocs_total/ { m1 = $NF }
    FILENAME == a && /^vkm_ticks_total/ { t0 = $NF }
    FILENAME == b && /^vkm_ticks_total/ { t1 = $NF }
    END {
      total = last["+Inf"] - first["+Inf"]
      p99 = "-"
      for (i = 1; i <= n; i++) {
        if (last[order[i]] - first[order[i]] >= 0.99 * total) { p99 = order[i] * 1000; break }
      }
      printf "%s %.1f\n", p99, (t1 > t0) ? (m1 - m0) / (t1 - t0) : 0
    }' "$1" "$2"
}

sleep 60
scrape "$work/m1"
r1=$(rss)
sleep 60
scrape "$work/m2"
sleep $((mins * 60 - 180))
scrape "$work/m3"
sleep 60
scrape "$work/m4"
r2=$(rss)
read -r p1 a1 <<<"$(window "$work/m1" "$work/m2")"
read -r p2 a2 <<<"$(window "$work/m3" "$work/m4")"
kill -INT "$server"
wait "$server" || true

printf '%-14s %10s %10s\n' "" "minute 1" "last"
printf '%-14s %10s %10s\n' "rss_mb" "$r1" "$r2"
printf '%-14s %10s %10s\n' "tick_p99_ms" "$p1" "$p2"
printf '%-14s %10s %10s\n' "allocs/tick" "$a1" "$a2"
awk -v r1="$r1" -v r2="$r2" -v a1="$a1" -v a2="$a2" -v p1="$p1" -v p2="$p2" 'BEGIN {
  bad = (r2 > r1 * 1.1) || (a2 > a1 * 1.1 + 1) || (p2 > p1 * 1.1)
  print bad ? "grew more than 10 %" : "within 10 %"
  exit bad
}'
