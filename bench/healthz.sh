#!/usr/bin/env bash
# /healthz under load: vkmd serves the arena to 4 wandering bot clients on
# 127.0.0.1 with the admin listener, and /healthz is polled 200 times, 20 ms
# apart, once every bot is seated; prints how many polls answered 503. Run
# it with a stall bound (--healthz-stall) to compare, e.g. 1s (the default)
# and 1ms (which /healthz raises to two tick periods, the old bound):
#
#   bash bench/healthz.sh 1s; bash bench/healthz.sh 1ms
set -euo pipefail
cd "$(dirname "$0")/.."
stall=${1:-1s}
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT
go build -o "$work/vkmd" ./cmd/vkmd
go build -o "$work/client" ./cmd/client
port=$((30000 + RANDOM % 10000))
admin=$((40000 + RANDOM % 10000))
"$work/vkmd" projects/arena --port "$port" --admin "127.0.0.1:$admin" --healthz-stall "$stall" \
  --duration 60s --log-level warn 2>/dev/null &
"$work/client" projects/arena --connect "127.0.0.1:$port" --headless --bots 4 --bot wander \
  --duration 55s --log-level error >/dev/null 2>&1 &
seated=
for _ in $(seq 200); do
  if curl -sf "http://127.0.0.1:$admin/metrics" 2>/dev/null | grep -q '^vkm_players 4'; then seated=1; break; fi
  sleep 0.1
done
[ -n "$seated" ] || { echo "the bots were not seated within 20 s" >&2; exit 1; }
n503=0 other=0
for _ in $(seq 200); do
  code=$(curl -s -m 2 -o /dev/null -w '%{http_code}' "http://127.0.0.1:$admin/healthz" || true)
  case $code in 200) ;; 503) n503=$((n503 + 1)) ;; *) other=$((other + 1)) ;; esac
  sleep 0.02
done
echo "healthz-stall $stall: $n503 of 200 polls answered 503, $other unanswered (load $(cut -d' ' -f1 /proc/loadavg))"
