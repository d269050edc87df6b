// Serves the turning bodies (room.js) on a WebSocket port:
//
//   node server.js [PORT] [BODIES]    (defaults 2567 and 50)
//
// Watchers join the room "spin" (watch.js).
const { Server } = require("@colyseus/core");
const { WebSocketTransport } = require("@colyseus/ws-transport");
const { SpinRoom } = require("./room");

const port = Number(process.argv[2] || 2567);
const bodies = Number(process.argv[3] || 50);

const server = new Server({ transport: new WebSocketTransport(), greet: false });
server.define("spin", SpinRoom, { bodies });
server.listen(port, "127.0.0.1").then(() => {
  console.log(`spin: ${bodies} bodies on ws://127.0.0.1:${port}`);
});
for (const sig of ["SIGINT", "SIGTERM"]) {
  process.on(sig, () => process.exit(0));
}
