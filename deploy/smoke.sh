#!/usr/bin/env bash
# Smoke test of the container: builds the scratch image of vkmd with podman
# (deploy/Containerfile, from a binary built here), serves projects/arena
# from it with a fresh game key, and has one bot client on the host join it
# for 10 s. Passes when the admin listener answers /healthz and /readyz, the
# bot stays seated to the end, and vkmd exits 0 on SIGTERM.
#
# Everything stays on this machine's loopback: the container shares the host's
# network namespace (--network host), so no bridge or address outside
# 127.0.0.0/8 is involved. The image store is a throwaway folder (vfs driver),
# removed at exit with the container.
#
# Needs root and Debian's podman and runc (installed if missing).
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v podman >/dev/null 2>&1 || [ ! -x /usr/sbin/runc ]; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq podman runc >/dev/null
fi

work=$(mktemp -d /tmp/vkmd-smoke.XXXXXX)
name="vkmd-smoke-$$"
# runc, not crun: Debian's crun refuses a host whose cgroup v1 and v2
# hierarchies are mounted side by side. The ulimits are lowered explicitly:
# podman otherwise asks for limits above the caller's, which needs
# CAP_SYS_RESOURCE and fails where that capability is not held.
pm=(podman --root "$work/store" --runroot "$work/run" --storage-driver vfs
  --runtime /usr/sbin/runc --cgroup-manager cgroupfs)
cleanup() {
  "${pm[@]}" rm -f -t 0 "$name" >/dev/null 2>&1 || true
  "${pm[@]}" rmi -a -f >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT

# A free UDP port for the game and a free TCP port for the admin listener.
free_port() {
  local proto=$1 p
  for _ in $(seq 50); do
    p=$((20000 + RANDOM % 20000))
    if ! ss -Hln"$proto" "sport = :$p" | grep -q .; then echo "$p"; return; fi
  done
  echo "no free port" >&2; return 1
}
port=$(free_port u)
admin=$(free_port t)

mkdir -p "$work/ctx" "$work/secrets"
start=$SECONDS
step() { echo "smoke: $* ($((SECONDS - start)) s)"; }
CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o "$work/ctx/vkmd" ./cmd/vkmd
go build -o "$work/client" ./cmd/client
step "built vkmd and client"
cp deploy/Containerfile deploy/passwd deploy/group "$work/ctx/"
"${pm[@]}" build -q -f "$work/ctx/Containerfile" -t localhost/vkmd:smoke "$work/ctx" >/dev/null
step "built the image"

# The key is readable by the image's user (65532); it is thrown away at exit.
"$work/ctx/vkmd" keygen >"$work/secrets/game.key"
chmod 0755 "$work/secrets"
chmod 0644 "$work/secrets/game.key"

"${pm[@]}" run -d --name "$name" --network host --read-only \
  --ulimit nofile=4096:4096 --ulimit nproc=4096:4096 \
  -v "$PWD/projects/arena:/project:ro" \
  -v "$work/secrets:/run/secrets/vkmd:ro" \
  localhost/vkmd:smoke /project --key /run/secrets/vkmd/game.key \
  --port "$port" --public "127.0.0.1:$port" --admin "127.0.0.1:$admin" >/dev/null

fail() {
  echo "smoke: $*" >&2
  "${pm[@]}" logs "$name" >&2 || true
  exit 1
}

# Wait for the admin listener (bounded: 100 tries, 0.1 s apart).
ok=
for _ in $(seq 100); do
  if curl -fsS "http://127.0.0.1:$admin/healthz" >/dev/null 2>&1; then ok=1; break; fi
  [ "$("${pm[@]}" inspect -f '{{.State.Running}}' "$name")" = true ] || fail "vkmd stopped before serving"
  sleep 0.1
done
[ -n "$ok" ] || fail "/healthz never answered 200"
curl -fsS "http://127.0.0.1:$admin/readyz" >/dev/null || fail "/readyz is not 200 with every seat free"
step "vkmd is serving in the container"

"$work/client" projects/arena --connect "127.0.0.1:$port" --key "$work/secrets/game.key" \
  --headless --bots 1 --duration 10s --report "$work/client.json" ||
  fail "the bot client failed (exit $?): $(cat "$work/client.json" 2>/dev/null)"

players=$(curl -fsS "http://127.0.0.1:$admin/metrics" | awk '$1 == "vkm_joins_total" {print $2}')
[ -n "$players" ] && [ "${players%.*}" -ge 1 ] || fail "vkm_joins_total is '${players}', want at least 1"

"${pm[@]}" stop -t 10 "$name" >/dev/null
code=$("${pm[@]}" inspect -f '{{.State.ExitCode}}' "$name")
[ "$code" = 0 ] || fail "vkmd exited $code on SIGTERM"
step "vkmd stopped with exit 0"
echo "smoke: vkmd in a scratch image served projects/arena; 1 bot joined and stayed seated for 10s"
