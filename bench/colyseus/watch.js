// Watchers of the turning bodies: K colyseus.js clients join the room
// "spin" and decode its patches as a game's client would; each counts the
// bytes of every WebSocket message it receives (payloads, without the 2 to
// 4 bytes of frame header). After WARMUP seconds it counts for SECONDS
// and prints one JSON line: bytes a second each client received, and the
// patches a second. The clients then stay LINGER seconds more before they
// leave, so that a window measured beside them ends with them still there.
//
//   node watch.js PORT CLIENTS SECONDS [WARMUP [LINGER]]   (defaults 2, 2)
const { Client } = require("colyseus.js");

const [port, clients, seconds, warmup, linger] = [
  Number(process.argv[2] || 2567),
  Number(process.argv[3] || 4),
  Number(process.argv[4] || 20),
  Number(process.argv[5] || 2),
  Number(process.argv[6] || 2),
];

async function main() {
  const rooms = [];
  for (let i = 0; i < clients; i++) {
    const client = new Client(`ws://127.0.0.1:${port}`);
    rooms.push(await client.joinOrCreate("spin"));
  }
  const counts = rooms.map(() => ({ bytes: 0, messages: 0, on: false }));
  rooms.forEach((room, i) => {
    room.connection.transport.ws.addEventListener("message", (ev) => {
      const c = counts[i];
      if (!c.on) return;
      c.bytes += ev.data.byteLength;
      c.messages++;
    });
  });
  await new Promise((r) => setTimeout(r, warmup * 1000));
  const t0 = process.hrtime.bigint();
  counts.forEach((c) => (c.on = true));
  await new Promise((r) => setTimeout(r, seconds * 1000));
  counts.forEach((c) => (c.on = false));
  const wall = Number(process.hrtime.bigint() - t0) / 1e9;
  const bodies = rooms[0].state.bodies ? rooms[0].state.bodies.size : 0;
  console.log(JSON.stringify({
    clients,
    bodies,
    wall_s: wall,
    bytes_in_per_s: counts.map((c) => c.bytes / wall),
    messages_per_s: counts.map((c) => c.messages / wall),
  }));
  await new Promise((r) => setTimeout(r, linger * 1000));
  for (const room of rooms) room.leave(true).catch(() => {});
  setTimeout(() => process.exit(0), 200);
}

main().catch((err) => {
  console.error("watch:", err);
  process.exit(1);
});
