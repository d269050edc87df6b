#!/usr/bin/env bash
# Measures vkmd serving a project to two headless bot clients on 127.0.0.1:
# the server's CPU (% of one core) and peak resident memory over a run.
#
#   bench/serve2.sh [SECONDS] [TICK_RATE]
#
# A tick rate other than the arena's 64 serves a temporary copy of the arena
# with that tickRate. Cleans up only the processes it started.
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-30}
rate=${2:-64}
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT

project=projects/arena
if [ "$rate" != 64 ]; then
  cp -r projects/arena "$work/arena"
  sed -i "s/^tickRate = 64/tickRate = $rate/" "$work/arena/project.toml"
  project="$work/arena"
fi
go build -o "$work/vkmd" ./cmd/vkmd
go build -o "$work/client" ./cmd/client
port=$((30000 + RANDOM % 20000))

/usr/bin/time -f '%U %S %e %M' -o "$work/time" \
  "$work/vkmd" "$project" --port "$port" --duration "$((secs + 2))s" --log-level warn >/dev/null &
server=$!
sleep 0.5
for seed in 1 2; do
  "$work/client" "$project" --connect "127.0.0.1:$port" --headless --bot wander --bot-seed "$seed" \
    --duration "${secs}s" --log-level warn &
done
wait "$server"
read -r user sys wall rss_kb < "$work/time"
awk -v u="$user" -v s="$sys" -v w="$wall" -v r="$rss_kb" -v hz="$rate" \
  'BEGIN { printf "vkmd, 2 clients, %d Hz, %.0f s: %.1f%% of one core, max RSS %.1f MB\n", hz, w, 100*(u+s)/w, r/1024 }'
