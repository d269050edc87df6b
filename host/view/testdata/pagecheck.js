// pagecheck runs the page's script (the path given as the first argument)
// under node with a stand-in browser: a fake DOM, canvas and WebSocket. It
// plays a connection through and checks window.vkm and the messages the
// page sends. It prints "ok" and exits 0, or throws.
'use strict';

const fs = require('fs');
const vm = require('vm');
const assert = require('assert');

const srcs = process.argv.slice(2); // the page's scripts, in the order index.html loads them

function listeners() {
  const m = new Map();
  return {
    add(type, fn) {
      if (!m.has(type)) m.set(type, []);
      m.get(type).push(fn);
    },
    fire(type, ev) {
      for (const fn of m.get(type) || []) fn(ev);
    },
  };
}

const drawCalls = { fill: 0, stroke: 0, fillText: [] };
function context2d() {
  return new Proxy({}, {
    get(t, k) {
      if (k in t) return t[k];
      if (k === 'measureText') return () => ({ width: 0 });
      if (k === 'fill' || k === 'stroke') return () => drawCalls[k]++;
      if (k === 'fillText') return (s) => drawCalls.fillText.push(s);
      return () => {};
    },
    set(t, k, v) {
      t[k] = v;
      return true;
    },
  });
}

const elements = new Map();
function element(id, tagName) {
  const ls = listeners();
  const el = {
    id, tagName, value: '0', disabled: false, hidden: false, textContent: '', width: 0, height: 0,
    classList: { toggle() {} },
    addEventListener: ls.add,
    fire: ls.fire,
    getContext: () => context2d(),
    getBoundingClientRect: () => ({ left: 0, top: 0, width: 720, height: 540 }),
    focus() {},
    blur() {},
    appendChild() {},
    append() {},
    insertBefore() {},
    setAttribute() {},
  };
  return el;
}
for (const id of ['game', 'net', 'side', 'dev', 'net-section', 'link-off', 'bindings', 'latency-out', 'jitter-out', 'loss-out']) {
  elements.set(id, element(id, 'DIV'));
}
for (const id of ['latency', 'jitter', 'loss']) elements.set(id, element(id, 'INPUT'));

const docListeners = listeners();
const document = {
  hidden: false,
  activeElement: null,
  getElementById: (id) => elements.get(id) || null,
  createElement: (tag) => element('', tag.toUpperCase()),
  addEventListener: docListeners.add,
};

const sockets = [];
class WebSocket {
  constructor(url) {
    this.url = url;
    this.readyState = 0;
    this.sent = [];
    sockets.push(this);
  }
  send(text) {
    this.sent.push(JSON.parse(text));
  }
  open() {
    this.readyState = 1;
    this.onopen();
  }
  receive(m) {
    this.onmessage({ data: typeof m === 'string' ? m : JSON.stringify(m) });
  }
  drop() {
    this.readyState = 3;
    this.onclose();
  }
}

let frameCallback = null;
let now = 0;
const timers = [];
const winListeners = listeners();
const images = []; // the Image objects the page made
class Image { set src(u) { this.url = u; images.push(this); } }
const audio = { sources: [], fetched: [] }; // what the page asked of Web Audio
const node = () => ({ gain: { value: 1 }, pan: { value: 0 }, connect() {} });
class AudioContext {
  constructor() { this.state = 'running'; this.destination = node(); }
  createGain() { return node(); }
  createStereoPanner() { const n = node(); audio.panner = n; return n; }
  createBufferSource() { const n = node(); n.start = () => audio.sources.push(n); return n; }
  decodeAudioData() { return Promise.resolve({ decoded: true }); }
}
const fetch = (url) => { audio.fetched.push(url); return Promise.resolve({ ok: true, arrayBuffer: () => Promise.resolve(new ArrayBuffer(4)) }); };
const sandbox = {
  document, WebSocket, JSON, Math, Number, Map, Set, Array, String, Object,
  location: { protocol: 'http:', host: '127.0.0.1:8080' },
  performance: { now: () => now },
  requestAnimationFrame: (fn) => { frameCallback = fn; },
  setTimeout: (fn, ms) => timers.push(ms),
  clearTimeout: () => {},
  Image, AudioContext, fetch,
  devicePixelRatio: 1,
  addEventListener: winListeners.add,
};
sandbox.window = sandbox;
vm.createContext(sandbox);
for (const f of srcs) vm.runInContext(fs.readFileSync(f, 'utf8'), sandbox, { filename: f });

function tick() {
  now += 1000 / 60;
  const fn = frameCallback;
  frameCallback = null;
  fn();
}
function key(type, code, target) {
  let prevented = false;
  winListeners.fire(type, { code, target: target || null, repeat: false, preventDefault() { prevented = true; } });
  return prevented;
}
const last = (ws) => ws.sent[ws.sent.length - 1];
// plain copies a value made in the page's realm, for deepStrictEqual.
const plain = (v) => JSON.parse(JSON.stringify(v));

const vkm = sandbox.vkm;
assert.ok(vkm, 'window.vkm is set');
assert.strictEqual(sockets.length, 1);
const ws = sockets[0];
assert.strictEqual(ws.url, 'ws://127.0.0.1:8080/ws');
assert.strictEqual(vkm.connected, false);
tick(); // drawing before anything arrived must not throw

ws.open();
assert.strictEqual(vkm.connected, true);

// The arena's actions.
ws.receive({
  t: 'hello',
  axes: [
    { name: 'run', negative: ['KeyA', 'ArrowLeft'], positive: ['KeyD', 'ArrowRight'], mouse: '' },
    { name: 'aim_x', negative: [], positive: [], mouse: 'x' },
    { name: 'aim_y', negative: [], positive: [], mouse: 'y' },
  ],
  buttons: [
    { name: 'jump', keys: ['Space', 'KeyW', 'ArrowUp'], mouse: '' },
    { name: 'fire', keys: ['KeyF', 'Enter'], mouse: 'left' },
  ],
  title: 'The Arena',
});
assert.deepStrictEqual(last(ws), { t: 'input', axes: { run: 0, aim_x: 0, aim_y: 0 }, held: { jump: false, fire: false } });
assert.strictEqual(document.title, 'The Arena', 'the hello names the page');
assert.deepStrictEqual(plain(sandbox.vkmControls.lines), [
  'run: A / \u2190  \u2212  \u00b7  +  D / \u2192', 'aim_x: the mouse (aim)', 'aim_y: the mouse (aim)',
  'jump: Space / W / \u2191', 'fire: F / Enter / left mouse button',
], 'the controls name keys as a player reads them');
assert.strictEqual(sandbox.vkmControls.visible, true, 'the controls show at the start');
assert.strictEqual(key('keydown', 'Slash'), true, '? is the overlay\'s own key');
assert.strictEqual(sandbox.vkmControls.visible, false, '? hides the controls');

const own = 1 << 24 | 20; // generation 1, slot 20
ws.receive({
  t: 'scene',
  bodies: [
    { id: own, name: 'player', kind: 'dynamic', color: '', shapes: [{ k: 'polygon', x: 0, y: 0, p: [[-0.4, -0.8], [0.4, -0.8], [0, 0.8]], loop: false, sensor: false }] },
    { id: 1 << 24 | 1, name: 'hall', kind: 'static', color: '', shapes: [{ k: 'chain', x: 0, y: 0, p: [[-20, 0], [20, 0], [20, 24]], loop: true, sensor: false }] },
    { id: 1 << 24 | 9, name: 'crate', kind: 'dynamic', color: '#c84', shapes: [{ k: 'box', x: 0, y: 0, hx: 0.5, hy: 0.5, a: 0, sensor: false }] },
    { id: 1 << 24 | 30, name: 'pickup', kind: 'static', color: '', shapes: [{ k: 'circle', x: 0, y: 0, r: 0.4, sensor: true }] },
  ],
});
assert.strictEqual(vkm.scene.size, 4);

const frame = (seq, x) => ({
  t: 'frame', seq, tick: 100 + seq, own,
  e: [[1 << 24 | 1, 0, 0, 0, 1], [own, x, 3, 0.5, 1], [1 << 24 | 9, 4, 0.5, 0.1, 1], [1 << 24 | 30, -3, 1, 0, 0], [77, 1, 1, null, 1]],
  dev: [['health', 100], ['kills', 2]],
  hud: [{ at: 'top', k: 'text', text: 'round 2' }, { at: 'bottom-left', k: 'bar', text: 'hp', v: 50, max: 100 }, { at: 'top-right', k: 'list', text: 'runners', lines: ['ann 3', 'bo 1'] }],
  net: { rtt_ms: 40, loss_permille: 5, bytes_in_per_s: 12000, bytes_out_per_s: 3000, snapshots_per_s: 64, corrections_per_s: 0, pacing_low_water: 2, pacing_target: 2.5, tick_speed: 1.01, interp_delay_ticks: 2, interp_stalls: null },
  ghost: [x + 0.1, 3, 0.5, 1],
  leased: [1 << 24 | 9],
  samples: [[1 << 24 | 9, 3.9, 0.5, 0.1, 1]],
});
ws.receive(frame(1, 2));
assert.strictEqual(vkm.frames, 1);
assert.deepStrictEqual(plain(vkm.own), { x: 2, y: 3, angle: 0.5 });
assert.strictEqual(vkm.lastFrame.tick, 101);
tick(); // the camera now follows the own entity at (2, 3)
assert.ok(drawCalls.fillText.includes('round 2') && drawCalls.fillText.includes('bo 1') && drawCalls.fillText.includes('hp'), 'the game HUD is drawn');
assert.ok(!drawCalls.fillText.some((s) => s.includes('health 100')), 'the component dump is not drawn over the game');
assert.deepStrictEqual(plain(vkm.dev), [['health', 100], ['kills', 2]], 'the developer panel lists the component fields');
assert.strictEqual(sandbox.vkmHUD.shown.length, 3);
assert.strictEqual(sandbox.vkmHUD.error, '', 'no script error, no banner');
assert.strictEqual(sandbox.vkmHUD.notice, '', 'no notice, no banner');
ws.receive(Object.assign(frame(2, 2), { errors: ['scripting: walker.on_update: scripts/walker.lua:3: boom'], errs: 1,
  notice: 'reload refused, the old code keeps running: scripting: scripts/walker.lua:2: syntax error' }));
tick();
assert.strictEqual(sandbox.vkmHUD.error, 'scripting: walker.on_update: scripts/walker.lua:3: boom', 'a script error is shown');
assert.ok(drawCalls.fillText.includes('script error (the log has its traceback)'));
assert.strictEqual(sandbox.vkmHUD.notice, 'reload refused, the old code keeps running: scripting: scripts/walker.lua:2: syntax error', "the dev server's notice is shown");
assert.ok(drawCalls.fillText.includes('the dev server says'));

// Keys drive the run axis; the page's debug keys toggle overlays.
assert.strictEqual(key('keydown', 'KeyD'), true, 'a bound key is kept from the browser');
assert.strictEqual(last(ws).axes.run, 1);
key('keyup', 'KeyD');
assert.strictEqual(last(ws).axes.run, 0);
key('keydown', 'KeyA');
key('keydown', 'ArrowRight');
assert.strictEqual(last(ws).axes.run, 0, 'both directions cancel');
key('keyup', 'ArrowRight');
assert.strictEqual(last(ws).axes.run, -1);
const before = ws.sent.length;
key('keydown', 'KeyG');
key('keydown', 'KeyL');
key('keydown', 'KeyI');
assert.strictEqual(ws.sent.length, before, 'debug keys send nothing');
assert.deepStrictEqual(plain([vkm.overlays.ghost, vkm.overlays.leased, vkm.overlays.samples]), [true, true, true]);
key('keydown', 'KeyD', { tagName: 'INPUT' });
assert.strictEqual(last(ws).axes.run, -1, 'keys typed into a slider are not game input');

// Mouse aim: the unit vector from the own entity to the pointer. 540 px
// high shows 18 m, so 30 px a metre, and the own entity is at the centre.
const game = elements.get('game');
game.fire('mousemove', { clientX: 360 + 90, clientY: 270 });
tick();
assert.deepStrictEqual([last(ws).axes.aim_x, last(ws).axes.aim_y], [1, 0]);
game.fire('mousemove', { clientX: 360, clientY: 270 - 60 });
tick();
assert.deepStrictEqual([last(ws).axes.aim_x, last(ws).axes.aim_y], [0, 1]);
game.fire('mousedown', { button: 0, clientX: 360, clientY: 210, preventDefault() {} });
assert.strictEqual(last(ws).held.fire, true);
winListeners.fire('mouseup', { button: 0 });
assert.strictEqual(last(ws).held.fire, false);

// Losing focus releases everything held.
key('keydown', 'Space');
assert.strictEqual(last(ws).held.jump, true);
winListeners.fire('blur', {});
assert.strictEqual(last(ws).axes.run, 0);
assert.strictEqual(last(ws).held.jump, false);

// A gap in the frame numbers is frames the server dropped for this page.
ws.receive(frame(5, 2.5));
assert.strictEqual(vkm.frames, 3);
assert.strictEqual(vkm.dropped, 2);
assert.strictEqual(vkm.own.x, 2.5);
tick(); // draws every overlay
assert.strictEqual(sandbox.vkmHUD.notice, '', 'a frame without the notice takes its banner away');


// Link sliders follow the server and send their setting.
const latency = elements.get('latency');
assert.strictEqual(latency.disabled, true);
ws.receive({ t: 'link', enabled: true, latency_ms: 80, jitter_ms: 10, loss_pct: 2 });
assert.strictEqual(latency.disabled, false);
assert.strictEqual(latency.value, '80');
latency.value = '120';
latency.fire('change', {});
assert.deepStrictEqual(last(ws), { t: 'link', latency_ms: 120, jitter_ms: 10, loss_pct: 2 });

// Garbage from the server is ignored.
ws.receive('not json');
ws.receive({ t: 'nonsense' });
ws.receive('null');
assert.strictEqual(vkm.frames, 3);

// The project's camera: a fit camera holds its box; a behavior's
// vkm.camera event makes it fixed; the wheel zooms within the limits.
const cam = sandbox.vkmCamera;
assert.strictEqual(cam.mode, 'follow', 'a hello without a camera follows the own entity');
ws.receive({ t: 'hello', axes: [], buttons: [], view_width: 20, camera: { mode: 'fit', box: [-14, -9, 14, 9.5], min_width: 8, max_width: 40 } });
ws.receive(frame(6, 2));
tick();
assert.deepStrictEqual(plain(cam.shown), { x: 0, y: 0.25, width: 28, height: 21 }, 'the fit camera holds the box');
ws.receive(Object.assign(frame(7, 2), { fx: [[50, 'vkm.camera', own, { mode: 'fixed', x: 5, y: 6, width: 10 }]] }));
tick();
assert.deepStrictEqual(plain(cam.shown), { x: 5, y: 6, width: 10, height: 7.5 }, 'a behavior fixes the camera');
assert.strictEqual(vkm.fx.received['vkm.camera'], undefined, 'the camera event is not drawn');
for (let i = 0; i < 20; i++) cam.wheel(-1);
tick();
assert.strictEqual(cam.shown.width, 8, 'the wheel zooms in no further than min_width');

// Looks: the frame's (from components) and a behavior's vkm.look event.
const crate = vkm.scene.get(1 << 24 | 9);
// The inspector: Alt and a click near an entity picks it; the frame's
// inspect is what the page keeps.
vkm.inspectAt({ x: 360, y: 270 }); // the canvas's middle
const pick = last(ws);
assert.strictEqual(pick.t, 'inspect');
assert.ok(typeof pick.id === 'number' && pick.id >= 0, 'a pick names an entity or none');
vkm.inspect(own);
assert.deepStrictEqual(plain(last(ws)), { t: 'inspect', id: own });
vkm.inspect(0);
assert.deepStrictEqual(plain(last(ws)), { t: 'inspect', id: 0 }, 'none picked');
ws.receive(Object.assign(frame(8, 2), { looks: [[1 << 24 | 9, '#48f', 'crate 3', true], [1 << 24 | 30, '', '', false]],
  joints: [['revolute', 0, 0, 0, 1], ['rope', 1, 1, 2, 2], ['mouse', 0, 0, null, 3]],
  inspect: { id: own, lines: [['slot', '20#1'], ['simulated by', 'this client (its own character)']] } }));
assert.deepStrictEqual(plain(vkm.inspected.lines[1]), ['simulated by', 'this client (its own character)']);
tick();
assert.strictEqual(vkm.jointsDrawn, 2, 'two joints drawn, the one with a null anchor not');
assert.deepStrictEqual([crate.color, crate.label, crate.hidden], ['#48f', 'crate 3', false], 'the frame colours and labels the crate');
assert.strictEqual(vkm.scene.get(1 << 24 | 30).hidden, true, 'the frame hides the pickup');
ws.receive(Object.assign(frame(9, 2), { fx: [[60, 'vkm.look', 1 << 24 | 9, { color: '#fff', visible: false }]] }));
assert.deepStrictEqual([crate.color, crate.label, crate.hidden], ['#fff', undefined, true], 'an event overrides on this end; a frame without looks restores the scene (no label)');
assert.strictEqual(vkm.scene.get(1 << 24 | 30).hidden, false);
assert.strictEqual(vkm.fx.received['vkm.look'], undefined, 'the look event is not drawn');
tick();

// Sprites: a coin drawn from a sheet once its image has loaded; its
// shapes until then.
ws.receive({ t: 'scene', bodies: [{ id: 1 << 24 | 40, name: 'coin', kind: 'static', color: '', shapes: [{ k: 'circle', x: 0, y: 0, r: 0.4, sensor: true }],
  sprite: { image: 'art/coin sheet.png', w: 0.8, h: 0.8, x: 0, y: 0, a: 0, cols: 4, rows: 1, frame: 0, anims: { spin: [0, 1, 2, 3] }, anim: 'spin', fps: 8 } }] });
const withCoin = (seq) => Object.assign(frame(seq, 2), { e: [[own, 2, 3, 0, 1], [1 << 24 | 40, 1, 1, 0, 1]] });
ws.receive(withCoin(10));
tick();
assert.strictEqual(images.length, 1, 'the sheet is fetched');
assert.strictEqual(images[0].url, '/asset/art/coin%20sheet.png');
assert.strictEqual(sandbox.vkmSprites.drawn['art/coin sheet.png'], undefined, 'not drawn before it loads');
images[0].naturalWidth = 128; images[0].naturalHeight = 32; images[0].onload();
ws.receive(withCoin(11));
tick();
assert.strictEqual(sandbox.vkmSprites.drawn['art/coin sheet.png'], 1, 'the coin is drawn from its sheet');
const coinBody = vkm.scene.get(1 << 24 | 40);
assert.strictEqual(sandbox.vkmSprites.frameOf(coinBody, 1 << 24 | 40, 250), 2, 'a quarter second into spin at 8 fps is its third frame');
ws.receive(Object.assign(withCoin(12), { looks: [[1 << 24 | 40, '', '', true, 'still']] }));
assert.strictEqual(coinBody.state, 'still', 'the frame sets the state');

// A project's own renderer: the page hands it each frame's view and draws
// no world of its own.
const views = [];
vkm.useRenderer({ draw: (v) => views.push(v) });
const fillsBefore = drawCalls.fill;
ws.receive(Object.assign(withCoin(15), { fx: [[70, 'hit', own, { x: 1, y: 2 }]] }));
tick();
assert.strictEqual(views.length, 1, 'the renderer draws the frame');
const view = views[0];
assert.deepStrictEqual(plain(view.entities.map((e) => [e.id, e.x, e.y])), [[own, 2, 3], [1 << 24 | 40, 1, 1]]);
assert.strictEqual(view.entities[1].body.name, 'coin');
assert.deepStrictEqual(plain(view.effects), [{ name: 'hit', entity: own, fields: { x: 1, y: 2 } }], 'the new events');
assert.strictEqual(view.own, own);
assert.strictEqual(drawCalls.fill, fillsBefore, 'the page drew no world of its own');
vkm.useRenderer(null);

// Sounds: the hello maps events to files; each event plays once, at its
// place, even when later frames repeat it.
ws.receive({ t: 'hello', axes: [], buttons: [], sounds: [{ event: 'pickup', file: 'sounds/pickup.wav', volume: 1, range: 40 }] });
assert.deepStrictEqual(audio.fetched, ['/asset/sounds/pickup.wav']);
const soundChecks = () => {
  const pick = (seq) => Object.assign(frame(seq, 0), { fx: [[90, 'pickup', own, { x: 10, y: 3 }]] });
  ws.receive(pick(13));
  ws.receive(pick(14)); // the same effect again, as frames repeat them
  assert.strictEqual(sandbox.vkmSound.started.pickup, 1, 'one event, one sound');
  assert.ok(sandbox.vkmSound.last.pan > 0 && sandbox.vkmSound.last.gain < 1, 'to the right of the view, fainter');
};

// Losing the connection: disconnected, and a reconnect is scheduled.
ws.drop();
assert.strictEqual(vkm.connected, false);
assert.deepStrictEqual(timers, [12000, 1000], "the controls overlay hides itself after 12 s; a reconnect is due in 1 s");
tick();

// The sound's file decodes asynchronously.
setImmediate(() => setImmediate(() => { soundChecks(); console.log('ok'); }));
