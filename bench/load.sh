#!/usr/bin/env bash
# The load matrix: vkmd serving bot clients on 127.0.0.1, one run after
# another, each on its own port, read from vkmd's own --report.
#
#   bench/load.sh [SECONDS]     (default 20 s a run; 16 runs)
#   SEALED=1 bench/load.sh ...  (the same with a key: clients mint tokens,
#                                every datagram sealed)
#   MEETSECS=N bench/load.sh    (the two meeting rows' length; default 60 s)
#
# The meeting rows run a minute whatever SECONDS says: their aim is counted
# a minute, and a client's corrections come in bursts (a meeting, a moment
# the machine gave its process no core), so a 20 s run's rate moved by a
# factor of three from one run to the next where a minute's moved by a
# quarter.
#
# Runs: the arena with 4 wandering bots at 64 Hz and at 128 Hz (a temporary
# copy of the arena with tickRate = 128), settled (4 bots that stand still),
# and the crowd with 16 and with 64 bots at 64 Hz. The arena's bots are full
# clients; the crowd's are lite clients (client --lite: they join and play
# their bot's commands without simulating a world of their own), since 64
# full clients would need more cores than the server they load.
#
# Then the busy world, bench/orbits (500 Lua-driven kinematic bodies), with
# no client and with 8 watching clients; a copy with 50 bodies and 4
# clients; bench/spin, 50 bodies that move and turn, with 4 clients, a
# copy whose bodies wobble (Lissajous paths, a spin that swings: the
# variation the bytes were not tuned on) with 4, and a copy with 500,
# alone and with 8 clients; projects/coins with 2 bots and
# a third that joins and leaves mid-run; and
# the arena's 4 bots over the broadband link simulator, where players
# meet, and bench/ball's 4 bots shoving one ball the same way. After the
# rows, five tables from the reports
# (bench/reportsum): the meeting bots' corrections by cause, the 8 orbit
# watchers' stalls, and the bytes per moving body of the 50, of the 50
# that turn and of the 50 that wobble.
#
# Prints one row per run: clients, tick rate, the server's CPU as a share of
# one core (user + system over wall time), its peak resident size, tick
# p50 and p99 (wall time), tick p99 in CPU time on the serving thread (a
# p99 far above it is time the tick waited for a core), send-round p99,
# allocations per tick, seated players and bytes a second sent to each
# player (mean over players). Builds the binaries once, into a temporary
# folder, and cleans up only the processes it started.
# Last, every aim the matrix measures, met or missed with its figure, and
# under each miss why: the run's own figures where they tell (the worst
# client's corrections by cause) and what the last profile of such a miss
# found, with the BENCHMARKS.md section that holds it
# (reportsum aims). Every run is bounded by `timeout`; the whole matrix
# takes about 14 × (SECONDS + 4) + 2 × (MEETSECS + 4) s plus the build.
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-20}
work=$(mktemp -d)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do
    kill "$pid" 2>/dev/null || true
  done
  rm -rf "$work"
}
trap cleanup EXIT

go build -o "$work/vkmd" ./cmd/vkmd
go build -o "$work/client" ./cmd/client
go build -o "$work/reportsum" ./bench/reportsum
# orbits50: the busy world with 50 bodies (two rows of 25), all of which
# fit in every snapshot, for the bytes each moving body costs.
cp -r bench/orbits "$work/orbits50"
sed -i 's/^local COLUMNS, ROWS, SPACING = 25, 20, 4.0$/local COLUMNS, ROWS, SPACING = 25, 2, 4.0/' "$work/orbits50/scripts/main.lua"
grep -q '^local COLUMNS, ROWS, SPACING = 25, 2, 4.0$' "$work/orbits50/scripts/main.lua"
# spin500: the turning world with 500 bodies (25 × 20), for the busy world
# whose bodies also turn.
cp -r bench/spin "$work/spin500"
sed -i 's/^local COLUMNS, ROWS, SPACING = 10, 5, 16.0$/local COLUMNS, ROWS, SPACING = 25, 20, 16.0/' "$work/spin500/scripts/main.lua"
grep -q '^local COLUMNS, ROWS, SPACING = 25, 20, 16.0$' "$work/spin500/scripts/main.lua"
# wobble: bench/spin with its spinners swapped for wobblers (Lissajous
# paths, a spin that swings), a variation its byte figures were not tuned on.
cp -r bench/spin "$work/wobble"
cp "$work/wobble/scripts/wobbler.lua" "$work/wobble/scripts/spinner.lua"
cp -r projects/arena "$work/arena128"
sed -i 's/^tickRate = 64$/tickRate = 128/' "$work/arena128/project.toml"
grep -q '^tickRate = 128$' "$work/arena128/project.toml"

# sealed: the server's and the clients' --key, with SEALED=1.
sealed=()
if [ "${SEALED:-0}" = 1 ]; then
  "$work/vkmd" keygen >"$work/game.key"
  sealed=(--key "$work/game.key")
fi

base=$((30000 + RANDOM % 20000))
n=0

# field FILE KEY: the first top-level number KEY has in a vkmd report.
field() { awk -v k="\"$2\":" '$1 == k { gsub(/,/, "", $2); print $2; exit }' "$1"; }

# peers FILE: the mean bytes_out_per_s over the report's players.
peers() {
  awk '$1 == "\"bytes_out_per_s\":" { gsub(/,/, "", $2); s += $2; n++ }
    END { if (n) printf "%.0f", s / n; else printf "-" }' "$1"
}

# run NAME PROJECT BOTS KIND LITE [CLIENT-ARGS...]: serve PROJECT for $secs,
# with BOTS bot clients of KIND joining at once (lite clients when LITE is
# 1; CLIENT-ARGS added to the client's command line), and print the row.
run() {
  local name=$1 project=$2 bots=$3 kind=$4 lite=$5
  shift 5
  local port=$((base + n)) report="$work/$name.json"
  n=$((n + 1))
  local extra=("$@")
  if [ "$lite" = 1 ]; then extra+=(--lite); fi
  timeout $((secs + 15)) "$work/vkmd" "$project" --port "$port" --duration "${secs}s" \
    --report "$report" --log-level error "${sealed[@]}" >/dev/null &
  local server=$!
  pids+=("$server")
  # The clients outlast the server, so its report sees every player seated;
  # they then end disconnected and exit non-zero, which is expected here.
  local clients=
  if [ "$bots" -gt 0 ]; then
    timeout $((secs + 15)) "$work/client" "$project" --connect "127.0.0.1:$port" --headless \
      --bots "$bots" --bot "$kind" "${extra[@]}" --duration "$((secs + 2))s" \
      --report "$work/$name.clients.json" --log-level error "${sealed[@]}" 2>"$work/$name.clients.log" &
    clients=$!
    pids+=("$clients")
  fi
  wait "$server"
  if [ -n "$clients" ]; then wait "$clients" || true; fi
  local cpu wall
  cpu=$(field "$report" cpu_s)
  wall=$(field "$report" wall_s)
  printf '%-16s %5s %5s %8s %7.1f%% %7s %9s %9s %9s %9s %8s %7s %9s\n' "$name" "$bots" \
    "$([ "$lite" = 1 ] && echo lite || echo full)" "$(field "$report" tick_rate)" \
    "$(awk -v c="$cpu" -v w="$wall" 'BEGIN { print 100 * c / w }')" \
    "$(field "$report" max_rss_mb)" "$(field "$report" tick_p50_us)" "$(field "$report" tick_p99_us)" \
    "$(field "$report" tick_cpu_p99_us)" \
    "$(field "$report" send_p99_us)" "$(field "$report" allocs_per_tick)" \
    "$(field "$report" players)" "$(peers "$report")"
}

printf '%-16s %5s %5s %8s %8s %7s %9s %9s %9s %9s %8s %7s %9s\n' run clients kind tick_hz "cpu" rss_mb tick_p50 tick_p99 cpu_p99 send_p99 allocs/t seated "B/s/peer"
run arena-64hz projects/arena 4 wander 0
run arena-128hz "$work/arena128" 4 wander 0
run arena-settled projects/arena 4 idle 0
run crowd-16 projects/crowd 16 wander 1
run crowd-64 projects/crowd 64 wander 1
run crowd-64-settled projects/crowd 64 idle 1
run orbits-alone bench/orbits 0 idle 0
run orbits-8 bench/orbits 8 idle 0
run orbits50-4 "$work/orbits50" 4 idle 0
run spin50-4 bench/spin 4 idle 0
run wobble50-4 "$work/wobble" 4 idle 0
run spin500-alone "$work/spin500" 0 idle 0
run spin500-8 "$work/spin500" 8 idle 0
# coins-join: 2 wandering bots for the whole run and a third client that
# joins a third of the way in and leaves a quarter of the run later; the
# report of the two that stayed counts their stalls and corrections.
visitor() {
  sleep $((secs / 3))
  timeout $((secs + 15)) "$work/client" projects/coins --connect "127.0.0.1:$((base + n))" --headless \
    --bot wander --bot-seed 9 --duration "$((secs / 4))s" --report "$work/coins-join.visitor.json" \
    --log-level error "${sealed[@]}" 2>/dev/null || true
}
visitor &
pids+=($!)
run coins-join projects/coins 2 wander 0
meetsecs=${MEETSECS:-60}
secs=$meetsecs run arena-meet projects/arena 4 wander 0 --bot-seed 3 --sim broadband --sim-seed 7
secs=$meetsecs run ball-meet bench/ball 4 wander 0 --bot-seed 3 --sim broadband --sim-seed 7

echo
echo "arena-meet: corrections of 4 wander bots (seed 3) over the broadband simulator (seed 7)"
"$work/reportsum" corrections "$work/arena-meet.clients.json"
"$work/reportsum" meet "$work/arena-meet.clients.json"
echo
echo "ball-meet: corrections of 4 wander bots (seed 3) shoving one ball over the broadband simulator (seed 7)"
"$work/reportsum" corrections "$work/ball-meet.clients.json"
"$work/reportsum" meet "$work/ball-meet.clients.json"
echo
echo "orbits-8: how each of 8 clients drew 500 moving bodies"
"$work/reportsum" stalls "$work/orbits-8.clients.json"
echo
echo "orbits50-4: 50 moving bodies, 4 clients"
"$work/reportsum" perbody "$work/orbits50-4.json" 50
echo
echo "spin50-4: 50 moving bodies that also turn, 4 clients"
"$work/reportsum" perbody "$work/spin50-4.json" 50
echo
echo "wobble50-4: 50 moving bodies on Lissajous paths, spinning at a rate that swings, 4 clients"
"$work/reportsum" perbody "$work/wobble50-4.json" 50
echo
"$work/reportsum" aims "$work"
