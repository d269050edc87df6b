#!/usr/bin/env bash
# Turning bodies, vkmd beside Colyseus 0.16 on this machine: the same
# scenario served by each, one after the other in one invocation, with the
# server pinned to CPU 0 and its watching clients to CPU 1.
#
#   bench/peers.sh [SECONDS] [ROUNDS]   (default 20 s windows, 3 rounds)
#   PROFILE=1 bench/peers.sh ...        (also a CPU profile of vkmd in each
#                                        500-body run, kept in bench/peers.out/)
#   BODY_TYPE=float32 bench/peers.sh    (the Colyseus bodies' fields as float32
#                                        rather than "number")
#
# Each round runs four cases, alternating the servers: bench/spin (50
# kinematic bodies on circles of 1–7 m at 0.5–1.5 rad/s, each spinning at
# its angular speed) with 4 watchers, served by vkmd and then by the
# Colyseus room of bench/colyseus (the same bodies, moved the same way, at
# 64 steps and 64 patches a second, vkmd's tick and snapshot rate); then a
# 500-body copy of bench/spin (a 25 × 20 grid) with 8 watchers, by each.
#
# Each run starts the server, then its clients one second later, lets them
# join for 3 s and then measures a window of SECONDS: the server's CPU as a
# share of one core (user + system time from /proc/PID/stat over the
# window's wall time), its peak resident size (VmHWM), the bytes a second
# each client received (vkm: the client's --report, datagram payloads over
# the client's run; Colyseus: WebSocket message payloads over the window,
# counted by bench/colyseus/watch.js), the snapshots (vkm, from vkmd's
# report) or patches (Colyseus) each client was sent a second, for vkm the
# interpolation stalls a second of each client (bench/reportsum stalls:
# the mean and the worst client), and the CPU the clients' process took of
# its core. The load average is printed with each row, since the machine
# may be shared.
#
# Installs bench/colyseus's packages with `npm ci` when they are missing.
# Every process runs under `timeout`; the script kills only what it
# started. Not part of CI: bench/colyseus has no project.toml.
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-20}
rounds=${2:-3}
warm=3
work=$(mktemp -d)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do
    kill "$pid" 2>/dev/null || true
  done
  rm -rf "$work"
}
trap cleanup EXIT

if [ ! -d bench/colyseus/node_modules ]; then
  (cd bench/colyseus && npm ci --no-audit --no-fund --loglevel error >/dev/null)
fi
go build -o "$work/vkmd" ./cmd/vkmd
go build -o "$work/client" ./cmd/client
go build -o "$work/reportsum" ./bench/reportsum
# spin500: bench/spin with 500 bodies on a 25 × 20 grid, as far apart as
# the 50 are, so every body both moves and turns.
cp -r bench/spin "$work/spin500"
sed -i 's/^local COLUMNS, ROWS, SPACING = 10, 5, 16.0$/local COLUMNS, ROWS, SPACING = 25, 20, 16.0/' "$work/spin500/scripts/main.lua"
grep -q '^local COLUMNS, ROWS, SPACING = 25, 20, 16.0$' "$work/spin500/scripts/main.lua"
if [ "${PROFILE:-0}" = 1 ]; then mkdir -p bench/peers.out; fi

tck=$(getconf CLK_TCK)
base=$((30000 + RANDOM % 20000))
n=0

# cputicks PID: the user + system clock ticks of PID so far ("-" once PID
# has gone: a process that ended early spoils its row, not the run).
cputicks() { awk '{ print $14 + $15 }' "/proc/$1/stat" 2>/dev/null || echo -; }
# hwm PID: PID's peak resident size in MB.
hwm() { awk '$1 == "VmHWM:" { printf "%.1f", $2 / 1024 }' "/proc/$1/status" 2>/dev/null || echo -; }
# share A B T0 T1 DIGITS: clock ticks A to B over T0 to T1 as % of a core.
share() {
  awk -v a="$1" -v b="$2" -v s="$3" -v e="$4" -v h="$tck" -v d="$5" \
    'BEGIN { if (a == "-" || b == "-") print "-"; else printf "%." d "f", 100 * (b - a) / h / (e - s) }'
}
now() { date +%s.%N; }
loadavg() { cut -d' ' -f1 /proc/loadavg; }

# measure SERVER GUARD: sleep through the warm-up and the window, and set
# cpu (% of a core over the window) and rss (MB) for the SERVER process, and
# ccpu for the clients' process, the child of GUARD (its timeout): a client
# process near 100 % was short of its core, and then its bytes and stalls
# say as much about it as about the server.
measure() {
  local pid=$1 cl c0 c1 k0 k1 t0 t1
  sleep "$warm"
  cl=$(pgrep -P "$2" | head -1 || true)
  cl=${cl:-0}
  c0=$(cputicks "$pid")
  k0=$(cputicks "$cl")
  t0=$(now)
  sleep "$secs"
  c1=$(cputicks "$pid")
  k1=$(cputicks "$cl")
  t1=$(now)
  rss=$(hwm "$pid")
  cpu=$(share "$c0" "$c1" "$t0" "$t1" 1)
  ccpu=$(share "$k0" "$k1" "$t0" "$t1" 0)
}

# row NAME SERVER BODIES CLIENTS CPU RSS BYTES SENDS STALLS CLIENT-CPU LOAD:
# one line of the table.
row() {
  printf '%-10s %-9s %6s %7s %7s%% %7s %11s %7s %17s %8s%% %6s\n' "$@"
  echo "$@" >>"$work/rows"
}

# vkm NAME PROJECT BODIES CLIENTS: vkmd serving PROJECT to CLIENTS watchers.
vkm() {
  local name=$1 project=$2 bodies=$3 clients=$4
  local port=$((base + n)) report="$work/$name.$n.json" creport="$work/$name.$n.clients.json"
  n=$((n + 1))
  local prof=()
  if [ "${PROFILE:-0}" = 1 ] && [ "$bodies" -ge 500 ]; then
    prof=(--cpuprofile "bench/peers.out/vkmd-$name-$n.pprof")
  fi
  local life=$((warm + secs + 3))
  # vkmd ends itself at --duration; its timeout is for a vkmd that hangs.
  taskset -c 0 timeout $((life + 15)) "$work/vkmd" "$project" --port "$port" --duration "${life}s" \
    --report "$report" --log-level error "${prof[@]}" >/dev/null &
  local guard=$!
  pids+=("$guard")
  sleep 1
  local server
  server=$(pgrep -P "$guard" | head -1 || true)
  # The clients outlast the server and then end disconnected, non-zero.
  taskset -c 1 timeout $((life + 15)) "$work/client" "$project" --connect "127.0.0.1:$port" --headless \
    --bots "$clients" --bot idle --duration "$((life + 1))s" \
    --report "$creport" --log-level error 2>"$work/$name.$n.clients.log" &
  local cl=$!
  pids+=("$cl")
  local load
  load=$(loadavg)
  measure "${server:-0}" "$cl"
  wait "$guard" || true
  wait "$cl" || true
  local bytes=- stalls=- sends=-
  if [ ! -s "$creport" ] || [ ! -s "$report" ]; then
    echo "peers: $name: a report is missing; the clients' log:" >&2
    tail -5 "$work/$name.$n.clients.log" >&2 || true
    row "$name" vkmd "$bodies" "$clients" "$cpu" "$rss" - - - "$ccpu" "$load"
    return
  fi
  # Snapshots a second to each player, from vkmd's report.
  sends=$(awk '$1 == "\"snapshots_per_s\":" { gsub(/,/, "", $2); s += $2; k++ } END { if (k) printf "%.1f", s / k; else printf "-" }' "$report")
  bytes=$(awk '$1 == "\"bytes_in_per_s\":" { gsub(/,/, "", $2); s += $2; k++ } END { if (k) printf "%.0f", s / k; else printf "-" }' "$creport")
  # Interpolation stalls a second: the mean and the largest over the clients.
  stalls=$("$work/reportsum" stalls "$creport" | awk 'NR > 1 && $2 != "-" { s += $2; k++; if ($2 > m) m = $2 } END { if (k) printf "%.2f (max %.2f)", s / k, m; else printf "-" }')
  row "$name" vkmd "$bodies" "$clients" "$cpu" "$rss" "$bytes" "$sends" "$stalls" "$ccpu" "$load"
}

# colyseus NAME BODIES CLIENTS: the Colyseus room serving BODIES to CLIENTS watchers.
colyseus() {
  local name=$1 bodies=$2 clients=$3
  local port=$((base + n)) out="$work/$name.$n.watch.json"
  n=$((n + 1))
  local life=$((warm + secs + 3))
  taskset -c 0 timeout $((life + 15)) node bench/colyseus/server.js "$port" "$bodies" >/dev/null 2>"$work/$name.$n.server.log" &
  local guard=$!
  pids+=("$guard")
  sleep 1
  local server
  server=$(pgrep -P "$guard" | head -1)
  taskset -c 1 timeout $((life + 15)) node bench/colyseus/watch.js "$port" "$clients" "$secs" "$((warm - 1))" 3 >"$out" &
  local cl=$!
  pids+=("$cl")
  local load
  load=$(loadavg)
  measure "$server" "$cl"
  wait "$cl" || true
  kill "$guard" 2>/dev/null || true
  wait "$guard" 2>/dev/null || true
  local bytes sends
  # The mean over the watchers of bytes and of patches (messages) a second.
  read -r bytes sends < <(node -e 'const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
    const mean = (a) => a.reduce((s, x) => s + x, 0) / a.length;
    console.log(Math.round(mean(r.bytes_in_per_s)), mean(r.messages_per_s).toFixed(1))' "$out" 2>/dev/null || echo "- -")
  row "$name" colyseus "$bodies" "$clients" "$cpu" "$rss" "$bytes" "$sends" "-" "$ccpu" "$load"
}

echo "peers: ${secs} s windows, ${rounds} rounds, Colyseus fields ${BODY_TYPE:-number}, server on CPU 0, clients on CPU 1"
row run server bodies clients cpu rss_mb "B/s/client" "sends/s" "stalls/s/client" clients_cpu load1
for r in $(seq "$rounds"); do
  vkm spin50-4 bench/spin 50 4
  colyseus spin50-4 50 4
  vkm spin500-8 "$work/spin500" 500 8
  colyseus spin500-8 500 8
done

# The aims beside Colyseus, met or missed in each round with the figures:
# on the 500 turning bodies, vkmd's CPU at most Colyseus's; on the 50,
# vkmd's bytes a client at most half of Colyseus's.
echo
echo "aims beside Colyseus (each round: met or missed, with its figures)"
awk '
  $2 == "vkmd" || $2 == "colyseus" { k[$1, $2, ++seen[$1, $2]] = $0; cpu[$1, $2, seen[$1, $2]] = $5 + 0; b[$1, $2, seen[$1, $2]] = $7 + 0 }
  END {
    for (i = 1; (("spin500-8", "vkmd", i) in k) && (("spin500-8", "colyseus", i) in k); i++) {
      v = cpu["spin500-8", "vkmd", i]; c = cpu["spin500-8", "colyseus", i]
      printf "spin500-8 round %d: server CPU <= Colyseus'"'"'s: %s (%.1f %% against %.1f %%, %.2f x)\n", i, (v <= c ? "met" : "missed"), v, c, (c > 0 ? v / c : 0)
      if (v > c) print "    why: gopher-lua'"'"'s interpreter (the behaviors 49 % of vkmd, its own loop 44 %: map reads, call frames, boxed numbers), vkmd'"'"'s send round (32 %: each watcher'"'"'s plan over 500 bodies) and physics (6 %) against V8'"'"'s compiled room; BENCHMARKS.md, \"The aims on a quiet machine\""
    }
    for (i = 1; (("spin50-4", "vkmd", i) in k) && (("spin50-4", "colyseus", i) in k); i++) {
      v = b["spin50-4", "vkmd", i]; c = b["spin50-4", "colyseus", i]
      printf "spin50-4 round %d: bytes a client <= half Colyseus'"'"'s: %s (%d B/s against %d B/s, %.2f x)\n", i, (c > 0 && v <= c / 2 ? "met" : "missed"), v, c, (c > 0 ? v / c : 0)
    }
  }' "$work/rows"

