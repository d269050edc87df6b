// The turning bodies of bench/spin as a Colyseus room: N bodies, each
// driven round a circle about the point one radius to the left of where it
// starts (radius 1 to 7 m, 0.5 to 1.5 rad/s, from its slot as bench/spin's
// scripts/spinner.lua spreads them) and spinning at the circle's angular
// speed. The room simulates at 64 Hz and sends a patch every simulation
// step, the rate vkmd sends bench/spin's snapshots at.
//
// Each body's x, y and angle are schema fields of the type a Colyseus
// developer writes first, "number" (a float goes as a float64), or, with
// BODY_TYPE=float32, the narrower one the schema also offers.
const { Room } = require("@colyseus/core");
const { Schema, MapSchema, Encoder, defineTypes } = require("@colyseus/schema");

const RATE = 64; // simulation steps and patches a second
const SPACING = 16.0; // metres between neighbouring circles' starts

const fieldType = process.env.BODY_TYPE || "number";
if (!["number", "float32", "float64"].includes(fieldType)) {
  throw new Error(`BODY_TYPE ${fieldType}: want number, float32 or float64`);
}

// A patch of 500 bodies is about 10 KB and the whole state more: room for
// both, as the schema's overflow warning advises.
Encoder.BUFFER_SIZE = 64 * 1024;

class Body extends Schema {}
defineTypes(Body, { x: fieldType, y: fieldType, angle: fieldType });

class World extends Schema {
  constructor() {
    super();
    this.bodies = new MapSchema();
  }
}
defineTypes(World, { bodies: { map: Body } });

// grid returns the columns and rows bench/spin's scenes lay n bodies out
// on: 10 × 5 for 50, and 25 × 20 for the 500 of bench/peers.sh.
function grid(n) {
  if (n === 50) return [10, 5];
  if (n === 500) return [25, 20];
  const columns = Math.ceil(Math.sqrt(n));
  return [columns, Math.ceil(n / columns)];
}

class SpinRoom extends Room {
  onCreate(options) {
    const n = Number(options.bodies || process.env.BODIES || 50);
    this.maxClients = 64;
    this.autoDispose = false;
    this.setState(new World());
    this.setPatchRate(1000 / RATE);
    this.movers = [];
    const [columns, rows] = grid(n);
    // Each body takes the id its spinner has in vkm (self:id(), the
    // entity's slot): the first slot 0 and the rest 2 onwards, slot 1
    // being the scene's one fixed entity, so radius and speed spread the
    // same way.
    for (let i = 0; i < n; i++) {
      const col = i % columns;
      const row = Math.floor(i / columns);
      const id = i === 0 ? 0 : i + 1;
      const radius = 1 + ((id * 37) % 61) / 10;
      const w = 0.5 + ((id * 53) % 101) / 100;
      const x0 = (col - (columns - 1) / 2) * SPACING;
      const y0 = (row - (rows - 1) / 2) * SPACING;
      const body = new Body();
      body.x = x0;
      body.y = y0;
      body.angle = 0;
      this.state.bodies.set(String(id), body);
      this.movers.push({ body, radius, w, cx: x0 - radius, cy: y0 });
    }
    this.step = 0;
    this.setSimulationInterval(() => this.tick(), 1000 / RATE);
  }

  // tick moves every body one step of 1/64 s along its circle and turns it
  // by its angular speed, as the spinner behavior does each fixed tick.
  tick() {
    this.step++;
    const dt = 1 / RATE;
    for (const m of this.movers) {
      const a = m.w * this.step * dt;
      m.body.x = m.cx + m.radius * Math.cos(a);
      m.body.y = m.cy + m.radius * Math.sin(a);
      m.body.angle = a;
    }
  }

  onJoin() {}
}

module.exports = { SpinRoom };
