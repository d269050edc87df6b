#!/usr/bin/env bash
# The relay's cost per relayed player: a relay (cmd/relay), vkmd serving
# the arena behind it (--relay), and N wandering bot clients joining by
# the join code, all on 127.0.0.1. The relay's CPU time (user + system,
# from /proc) over the bots' playing seconds, from when all are seated to
# the end, is divided by N × those seconds:
#
#   bash bench/relay.sh [N=4] [SECONDS=30]
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-4}
secs=${2:-30}
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT
go build -o "$work/relay" ./cmd/relay
go build -o "$work/vkmd" ./cmd/vkmd
go build -o "$work/client" ./cmd/client
port=$((30000 + RANDOM % 10000))
"$work/relay" --addr "127.0.0.1:$port" --status >"$work/relay.out" 2>"$work/relay.log" &
relay_pid=$!
"$work/vkmd" projects/arena --port 0 --lan=false --relay "127.0.0.1:$port" \
  --duration $((secs + 20))s >"$work/vkmd.out" 2>"$work/vkmd.log" &
code=
for _ in $(seq 100); do
  code=$(grep -o 'code=[0-9A-Z-]*@[0-9.:]*' "$work/vkmd.log" | head -1 | cut -d= -f2 || true)
  [ -n "$code" ] && break
  sleep 0.1
done
[ -n "$code" ] || { echo "vkmd printed no join code" >&2; cat "$work/vkmd.log" >&2; exit 1; }
"$work/client" projects/arena --connect "$code" --headless --bots "$n" --bot wander \
  --duration $((secs + 3))s --report "$work/client.json" --log-level error >/dev/null 2>&1 &
client_pid=$!
sleep 3 # joining: the bots are seated within it
cpu() { awk '{print $14 + $15}' "/proc/$relay_pid/stat"; }
tck=$(getconf CLK_TCK)
c0=$(cpu); t0=$(date +%s.%N)
sleep "$secs"
c1=$(cpu); t1=$(date +%s.%N)
wait "$client_pid" || true
python3 - "$work/client.json" "$n" "$c0" "$c1" "$t0" "$t1" "$tck" <<'PY'
import json, sys
path, n, c0, c1, t0, t1, tck = sys.argv[1:]
n, tck = int(n), int(tck)
rep = json.load(open(path))
clients = rep.get("clients", [rep])
playing = sum(1 for c in clients if c.get("state") == "playing")
bad = sum(c.get("bad_snapshots", 0) for c in clients)
corr = sum(c.get("corrections", 0) for c in clients)
secs = float(t1) - float(t0)
cpu_ms = (int(c1) - int(c0)) * 1000 / tck
print(f"relay: {cpu_ms:.0f} ms of CPU over {secs:.1f} s for {n} relayed players "
      f"({playing} playing at the end, {bad} bad snapshots, {corr} corrections): "
      f"{cpu_ms / (n * secs):.2f} ms of CPU per player-second")
PY
tail -1 "$work/relay.out"
