#!/usr/bin/env bash
# The events soak: vkmd serves bench/emitter, whose one behavior emits 200
# presentation events every tick, for MINUTES minutes (default 5), and its
# resident size is read every 10 s. A server presents nothing, so it must
# count its events and keep none: the script prints the samples and fails
# when the last is more than 10 % above the one at minute 1.
#
#   bench/soak-events.sh [MINUTES]
set -euo pipefail
cd "$(dirname "$0")/.."
mins=${1:-5}
work=$(mktemp -d)
pid=
cleanup() {
  if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

go build -o "$work/vkmd" ./cmd/vkmd
port=$((30000 + RANDOM % 20000))
# The server outlasts the sampling loop (whose sleeps run late on a busy
# machine) and is stopped by an interrupt when the loop is done.
"$work/vkmd" bench/emitter --port "$port" --duration "$((mins * 60 + 120))s" \
  --report "$work/report.json" --log-level error >/dev/null &
pid=$!

rss() { awk '$1 == "VmRSS:" { printf "%.1f", $2 / 1024 }' "/proc/$pid/status"; }
printf '%6s %8s\n' second rss_mb
first=
for ((s = 10; s <= mins * 60; s += 10)); do
  sleep 10
  r=$(rss)
  printf '%6d %8s\n' "$s" "$r"
  if [ "$s" = 60 ]; then first=$r; fi
  last=$r
done
kill -INT "$pid"
wait "$pid"
pid=
awk -v a="$first" -v b="$last" 'BEGIN {
  g = 100 * (b - a) / a
  printf "minute 1: %s MB, minute %d: %s MB, growth %.1f %%\n", a, '"$mins"', b, g
  exit (g > 10)
}'
grep -o '"spark": [0-9]*' "$work/report.json" | sed 's/^/events counted: /'
