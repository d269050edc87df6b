// The vkm reference client's page. It draws the frames the client
// publishes over the WebSocket at /ws and sends the keyboard and mouse back
// as the project's input actions. The messages are described in the
// package documentation of vkm/host/view. Plain script, no build step.
//
// When window.vkmWeb is there (vkm-web.js, which `vkmd --web` serves
// before this script), the client runs in this tab instead: its messages
// come through vkmWeb.toPage and the page's go to vkmWeb.fromPage, with no
// WebSocket; transport says how that client reaches its server.
//
// window.vkm exposes the page's state for tests and the console: frames
// (frame messages received), own ({x, y, angle} of the own entity's latest
// drawn pose, or null), connected, lastFrame, scene, overlays, input (the
// last input message sent), link, dropped (frames the server skipped for
// this page), fx (effects by name: received, received from entities other
// than the own one, drawn, and drawn from others), board (the last board
// message), dev (the developer panel's [label, value] list),
// boardShown (whether Tab holds it open), corrections (the
// last corrections message's list), transport ("webtransport", "webrtc"
// or "websocket" for a client in this tab, "" otherwise), useRenderer(r) (a project's own
// renderer: r.draw(view) each frame instead of the world's drawing),
// send(name, fields) and onMessage(fn) (the project's messages, to the
// server and from it; messages counts those heard), inspect(id) and
// inspected (the developer's entity inspector: Alt and a click picks one),
// guests (how many guests this page drives besides its own player) and
// inputs (the last input message sent for each local player) and
// drawTimes() ({n, p50_ms,
// p99_ms}: how long the page's latest animation frames took to draw).
(function () {
  'use strict';

  const VIEW_WIDTH_M = 32; // metres of world across the canvas, unless the project says
  const HISTORY_S = 30; // how far back the network plots reach
  const SAMPLE_EVERY_S = 0.1; // one plot point per field this often
  const RECONNECT_MS = 1000;

  // The network panel's fields: key in the frame's net record, label, unit.
  const NET_FIELDS = [
    ['rtt_ms', 'rtt', 'ms'],
    ['loss_permille', 'loss', '\u2030'],
    ['bytes_in_per_s', 'bytes in', 'B/s'],
    ['bytes_out_per_s', 'bytes out', 'B/s'],
    ['snapshots_per_s', 'snapshots', '/s'],
    ['corrections_per_s', 'corrections', '/s'],
    ['pacing_low_water', 'pacing low water', 'ticks'],
    ['pacing_target', 'pacing target', 'ticks'],
    ['tick_speed', 'tick speed', '\u00d7'],
    ['interp_delay_ticks', 'interp delay', 'ticks'],
    ['interp_stalls', 'interp stalls', ''],
  ];

  // Debug keys, used only when the project does not bind the key.
  const DEBUG_KEYS = {
    KeyG: 'ghost', Digit1: 'ghost',
    KeyL: 'leased', Digit2: 'leased',
    KeyI: 'samples', Digit3: 'samples',
    KeyN: 'net', Digit4: 'net',
    KeyH: 'side', Digit0: 'side',
    KeyZ: 'zoom', Digit5: 'zoom',
  };

  // Default colours: by role (a player's entity), then by what the body
  // is. ROLE_RANK orders the drawing within one look order.
  const ROLE_COLORS = { own: '#3fb6ff', player: '#ff7a59' };
  const KIND_COLORS = { static: '#4a5266', dynamic: '#b0844f', kinematic: '#5f8fb0', sensor: '#5dff8a' };
  const DEFAULT_COLOR = '#8a8f99';
  const ROLE_RANK = { static: 0, kinematic: 1, dynamic: 1, sensor: 2, player: 3, own: 4 };

  // The link sliders: element id, field of the link message, unit.
  const SLIDERS = [['latency', 'latency_ms', 'ms'], ['jitter', 'jitter_ms', 'ms'], ['loss', 'loss_pct', '%']];

  const state = {
    connected: false,
    frames: 0,
    dropped: 0,
    seq: 0,
    own: null,
    lastFrame: null,
    scene: new Map(),
    actions: null,
    overlays: { ghost: false, leased: false, samples: false, net: true, side: true, zoom: false },
    viewWidth: VIEW_WIDTH_M,
    board: null,
    boardShown: false,
    corrections: [],
    dev: [],
    input: null,
    inputs: [],
    guests: 0,
    link: null,
    sent: 0,
    fx: { seq: 0, received: {}, others: {}, drawn: {}, drawnOthers: {} },
    transport: '',
  };
  window.vkm = state;
  // say sends a chat line the player typed (chat.js draws the box).
  state.say = (text) => typeof text === 'string' && send(JSON.stringify({ t: 'chat', text: text }));

  // send and onMessage: the page's own code speaks the project's messages
  // (docs/project.md, "Your own renderer"). messages counts what was
  // heard: seq (the newest taken) and received by name.
  const messageFns = [];
  state.messages = { seq: 0, received: {} };
  state.send = (name, fields) => typeof name === 'string' && send(JSON.stringify({ t: 'send', name, fields: fields && typeof fields === 'object' ? fields : {} }));
  state.onMessage = (fn) => { if (typeof fn === 'function') messageFns.push(fn); };

  const $ = (id) => document.getElementById(id);
  const canvas = $('game');
  const g = canvas.getContext('2d');
  const netCanvas = $('net');
  const nc = netCanvas.getContext('2d');

  const finite = (v) => typeof v === 'number' && Number.isFinite(v);

  // ---- connection ----

  let ws = null;
  const web = window.vkmWeb || null;

  function connect() {
    if (web) {
      // The client in this tab says hello first, as a new connection's
      // server would.
      web.toPage = (text) => {
        if (!state.connected) {
          state.connected = true;
          state.seq = 0;
          state.fx.seq = 0;
          lastInput = '';
          state.transport = web.transport;
          $('transport').textContent = 'over ' + web.transport;
        }
        onMessage({ data: text });
      };
      return;
    }
    const proto = location.protocol === 'https:' ? 'wss://' : 'ws://';
    const sock = new WebSocket(proto + location.host + '/ws');
    ws = sock;
    sock.onopen = () => {
      state.connected = true;
      state.seq = 0;
      state.fx.seq = 0; // a new connection numbers effects from 1
      lastInput = '';
    };
    sock.onmessage = onMessage;
    sock.onerror = () => {}; // onclose follows
    sock.onclose = () => {
      if (ws !== sock) return;
      ws = null;
      state.connected = false;
      setTimeout(connect, RECONNECT_MS);
    };
  }

  function send(text) {
    if (web) {
      if (!state.connected || !web.fromPage) return false;
      web.fromPage(text);
      state.sent++;
      return true;
    }
    if (!ws || ws.readyState !== 1) return false;
    ws.send(text);
    state.sent++;
    return true;
  }

  function onMessage(ev) {
    let m;
    try {
      m = JSON.parse(ev.data);
    } catch (e) {
      return;
    }
    if (!m || typeof m !== 'object') return;
    switch (m.t) {
      case 'hello': setActions(m); break;
      case 'scene': setScene(m); break;
      case 'link': setLink(m); break;
      case 'frame': onFrame(m); break;
      case 'board': state.board = m; break;
      case 'corrections': setCorrections(m); break;
      case 'chat': if (window.vkmChat) window.vkmChat.show(m); break; // chat.js
      case 'voice': if (window.vkmVoice && window.vkmVoice.take) window.vkmVoice.take(m); break; // vkm-voice.js
    }
  }

  // setCorrections lists the client's latest corrections, newest first:
  // the tick judged, what was wrong and by how much, its cause, and
  // whether another player's character was touching (a shove).
  function setCorrections(m) {
    const list = Array.isArray(m.list) ? m.list : [];
    state.corrections = list;
    const ol = $('corrections');
    ol.textContent = '';
    for (let i = list.length - 1; i >= 0 && ol.childElementCount < 8; i--) {
      const [tick, ent, what, size, cause, touched] = list[i];
      const li = document.createElement('li');
      const amount = what === 'pose' ? `${finite(size) ? size.toFixed(1) : '?'} mm` : `by ${finite(size) ? size : '?'}`;
      li.textContent = `tick ${tick}: ${ent} ${what} ${amount}, ${cause}` + (touched ? ', another player touching' : '');
      ol.appendChild(li);
    }
    if (!ol.childElementCount) {
      const li = document.createElement('li');
      li.textContent = 'none yet';
      ol.appendChild(li);
    }
  }

  function setScene(m) {
    const s = new Map();
    for (const b of m.bodies || []) {
      const shapes = b.shapes || [];
      // What it is at a glance: a player's, or its body's kind, a body
      // of sensors only counting as a sensor.
      b.what = b.role || (shapes.length && shapes.every((sh) => sh.sensor) ? 'sensor' : b.kind);
      b.rank = (finite(b.order) ? b.order : 0) * 10 + (ROLE_RANK[b.what] || 0);
      b.reach = reachOf(shapes);
      s.set(b.id, b);
    }
    state.scene = s;
  }

  // reachOf returns how far a body's shapes reach from its origin and how
  // high above it they go: {r, top} in metres.
  function reachOf(shapes) {
    let r = 0.15, top = 0.15;
    for (const sh of shapes) {
      const ox = finite(sh.x) ? sh.x : 0, oy = finite(sh.y) ? sh.y : 0;
      const pts = [];
      if (sh.k === 'box') {
        const e = Math.hypot(sh.hx || 0, sh.hy || 0);
        pts.push([ox - e, oy - e], [ox + e, oy + e]);
      } else if (sh.k === 'circle') {
        pts.push([ox - sh.r, oy - sh.r], [ox + sh.r, oy + sh.r]);
      } else {
        for (const p of sh.p || []) pts.push([p[0] + ox, p[1] + oy]);
      }
      for (const [x, y] of pts) {
        if (!finite(x) || !finite(y)) continue;
        r = Math.max(r, Math.hypot(x, y));
        top = Math.max(top, y);
      }
    }
    return { r, top };
  }

  function onFrame(m) {
    state.frames++;
    if (state.seq && m.seq > state.seq + 1) state.dropped += m.seq - state.seq - 1;
    state.seq = m.seq;
    state.lastFrame = m;
    state.own = null;
    if (m.own) {
      for (const e of m.e || []) {
        if (e[0] === m.own && finite(e[1]) && finite(e[2])) {
          state.own = { x: e[1], y: e[2], angle: finite(e[3]) ? e[3] : 0 };
          break;
        }
      }
    }
    recordNet(m.net);
    takeEffects(m);
    takeMessages(m);
    showInspect(m);
    setDev(m.dev);
    if (window.vkmLooks) window.vkmLooks.apply(state.scene, m);
    if (window.vkmVoice && window.vkmVoice.frame) window.vkmVoice.frame(m); // vkm-voice.js places the voices
  }

  // setDev lists the developer panel's numbers (the own entity's
  // component fields), rewriting the list only when its text changes.
  let devText = '';
  let reloadTick = null;
  function setDev(dev) {
    const list = Array.isArray(dev) ? dev : [];
    const reload = list.find((d) => d[0] === 'scripts reloaded at tick');
    if (reload && reload[1] !== reloadTick) {
      reloadTick = reload[1];
      if (window.vkmSprites) window.vkmSprites.reloaded(); // a dev server's reload: fetch the images again
    }
    const text = list.map((d) => d[0] + ' ' + fmt(d[1])).join('\n');
    if (text === devText) return;
    devText = text;
    state.dev = list;
    const ol = $('dev');
    if (!ol) return;
    ol.textContent = '';
    for (const line of text ? text.split('\n') : ['none']) {
      const li = document.createElement('li');
      li.textContent = line;
      ol.appendChild(li);
    }
  }

  // ---- effects ----

  // How long each effect stays on screen, in milliseconds; an effect of
  // another name is drawn as a labelled mark for FX_OTHER_MS.
  const FX_MS = { shot: 180, hit: 300, death: 1200, pickup: 800 };
  const FX_OTHER_MS = 800;
  const effects = []; // {name, own, f (fields), t0 (ms), drawn}

  const bump = (o, k) => { o[k] = (o[k] || 0) + 1; };

  // ---- the entity inspector (Alt and a click; host/view's inspect.go) ----

  // inspectAt picks the drawn entity nearest the canvas point p (within
  // 2 m), or none, and tells the client; inspect(id) picks id itself.
  // inspected is the frame's inspector ({id, lines}) last shown.
  state.inspected = null;
  state.inspect = (id) => send(JSON.stringify({ t: 'inspect', id: finite(id) && id > 0 ? id : 0 }));
  state.inspectAt = (p) => {
    const w = screenToWorld(p.x, p.y);
    let best = 0, bestD = 2;
    for (const e of (state.lastFrame && state.lastFrame.e) || []) {
      const d = Math.hypot(e[1] - w.x, e[2] - w.y);
      if (finite(d) && d < bestD) { best = e[0]; bestD = d; }
    }
    return state.inspect(best);
  };

  let inspectText = null;
  function showInspect(m) {
    const ins = m.inspect && Array.isArray(m.inspect.lines) ? m.inspect : null;
    state.inspected = ins;
    const text = ins ? JSON.stringify(ins) : '';
    if (text === inspectText) return;
    inspectText = text;
    let sec = $('inspect-section');
    if (!sec && !ins) return; // the section comes with the first pick
    if (!sec) {
      const side = $('side');
      if (!side || typeof document.createElement !== 'function') return;
      sec = document.createElement('section');
      sec.id = 'inspect-section';
      const h = document.createElement('h2');
      h.textContent = 'inspector (Alt+click an entity)';
      const ol = document.createElement('ol');
      ol.id = 'inspect';
      ol.setAttribute('aria-label', "the inspected entity, as this client knows it");
      sec.append(h, ol);
      side.insertBefore(sec, $('net-section') || null);
    }
    const ol = $('inspect');
    if (!ol) return;
    ol.textContent = '';
    if (!ins) {
      const li = document.createElement('li');
      li.textContent = 'none picked';
      ol.appendChild(li);
      return;
    }
    for (const [k, v] of ins.lines) {
      const li = document.createElement('li');
      li.textContent = k + ': ' + v;
      ol.appendChild(li);
    }
  }

  // takeMessages hands the page's code each message of the frame not seen
  // before (a frame repeats those of the last moment, as effects).
  function takeMessages(m) {
    if (!Array.isArray(m.msgs)) return;
    for (const e of m.msgs) {
      if (!Array.isArray(e) || !(e[0] > state.messages.seq)) continue;
      state.messages.seq = e[0];
      const name = String(e[1]);
      bump(state.messages.received, name);
      for (const fn of messageFns) {
        try {
          fn(name, e[3] || {});
        } catch (err) {
          console.error('vkm: a message handler of the page failed', err);
        }
      }
    }
  }

  // takeEffects keeps each effect of the frame not seen before: a frame
  // repeats the effects of the last moment, and fx.seq is the highest
  // already taken.
  function takeEffects(m) {
    if (!Array.isArray(m.fx)) return;
    const now = performance.now();
    for (const e of m.fx) {
      if (!Array.isArray(e) || !(e[0] > state.fx.seq)) continue;
      state.fx.seq = e[0];
      const name = String(e[1]);
      const own = !!m.own && e[2] === m.own;
      if (name === 'vkm.camera') { // the behaviors' camera, not something to draw
        if (window.vkmCamera) window.vkmCamera.event(e[3] || {}, e[2]);
        continue;
      }
      if (name === 'vkm.change') { // a component field changed: its [[sound]], nothing to draw
        const f = e[3] || {};
        if (window.vkmSound && typeof f.field === 'string') window.vkmSound.play('change:' + f.field, poseOf(e[2]), { x: cam.x, y: cam.y, width: canvas.width / cam.ppm });
        bump(state.fx.received, name);
        continue;
      }
      if (name === 'vkm.look') { // a behavior's look on this end
        if (window.vkmLooks) window.vkmLooks.event(e[3] || {}, e[2]);
        if (window.vkmSprites) window.vkmSprites.event(e[3] || {}, e[2]);
        continue;
      }
      if (window.vkmSound) {
        const f = e[3] || {};
        const at = finite(f.x) && finite(f.y) ? { x: f.x, y: f.y } : poseOf(e[2]);
        window.vkmSound.play(name, at, { x: cam.x, y: cam.y, width: canvas.width / cam.ppm });
      }
      if (renderer) rendererEvents.push({ name, entity: e[2], fields: e[3] || {} });
      bump(state.fx.received, name);
      if (!own) bump(state.fx.others, name);
      effects.push({ name, own, f: e[3] || {}, t0: now, drawn: false });
    }
  }

  function drawEffects() {
    const now = performance.now();
    let keep = 0;
    for (const e of effects) {
      const life = FX_MS[e.name] || FX_OTHER_MS;
      const age = (now - e.t0) / life;
      if (age >= 1) continue;
      effects[keep++] = e;
      if (!drawEffect(e, age)) continue;
      if (!e.drawn) {
        e.drawn = true;
        bump(state.fx.drawn, e.name);
        if (!e.own) bump(state.fx.drawnOthers, e.name);
      }
    }
    effects.length = keep;
  }

  // drawEffect draws one effect at age 0..1 of its life; false when its
  // fields do not say where.
  function drawEffect(e, age) {
    const f = e.f, px = 1 / cam.ppm;
    g.setLineDash([]);
    g.globalAlpha = 1 - age;
    try {
      if (e.name === 'shot') {
        if (![f.x1, f.y1, f.x2, f.y2].every(finite)) return false;
        g.strokeStyle = e.own ? '#ffe14d' : '#ff7a59';
        g.lineWidth = 3 * px;
        g.beginPath();
        g.moveTo(f.x1, f.y1);
        g.lineTo(f.x2, f.y2);
        g.stroke();
        g.fillStyle = g.strokeStyle;
        g.beginPath();
        g.arc(f.x2, f.y2, 4 * px, 0, 2 * Math.PI);
        g.fill();
        return true;
      }
      if (!finite(f.x) || !finite(f.y)) return false;
      g.save();
      g.translate(f.x, f.y);
      switch (e.name) {
        case 'hit': // a flash that grows and fades
          g.fillStyle = '#ffffff';
          g.beginPath();
          g.arc(0, 0, 0.15 + 0.45 * age, 0, 2 * Math.PI);
          g.fill();
          g.strokeStyle = '#ff3b3b';
          g.lineWidth = 3 * px;
          g.stroke();
          break;
        case 'death': { // a cross and a ring
          const r = 0.6;
          g.strokeStyle = '#ff3b3b';
          g.lineWidth = 4 * px;
          g.beginPath();
          g.moveTo(-r, -r); g.lineTo(r, r);
          g.moveTo(-r, r); g.lineTo(r, -r);
          g.moveTo(r + 0.3 * age, 0);
          g.arc(0, 0, r + 0.3 * age, 0, 2 * Math.PI);
          g.stroke();
          break;
        }
        case 'pickup': { // a plus that rises
          const r = 0.35;
          g.translate(0, 1.2 * age);
          g.strokeStyle = '#5dff8a';
          g.lineWidth = 4 * px;
          g.beginPath();
          g.moveTo(-r, 0); g.lineTo(r, 0);
          g.moveTo(0, -r); g.lineTo(0, r);
          g.stroke();
          break;
        }
        default: // a dot and the event's name
          g.fillStyle = '#c9a0ff';
          g.beginPath();
          g.arc(0, 0, 5 * px, 0, 2 * Math.PI);
          g.fill();
          g.scale(px, -px);
          g.font = '12px system-ui, sans-serif';
          g.textAlign = 'center';
          g.fillText(e.name, 0, -10);
      }
      g.restore();
      return true;
    } finally {
      g.globalAlpha = 1;
    }
  }

  // ---- input ----

  const boundKeys = new Set(); // KeyboardEvent.code names the project binds
  const down = new Set(); // bound keys held
  const mouseDown = new Set(); // mouse buttons held (0 left, 2 right)
  let mouse = null; // pointer in canvas pixels, null until it has moved
  let aim = { x: 0, y: 0 };
  let lastInput = []; // the text last sent, for each local player

  // Guests: with any, the keyboard is split. The arrow-side keys (the
  // arrows, the numpad, Enter and the keys right of the letters) drive
  // guest 1, the rest and the mouse the page's own player; each guest
  // from 2 on plays the gamepad of its turn (the browser's Gamepad API:
  // the first connected drives guest 2, the next guest 3...).
  const ARROW_SIDE = /^(Arrow|Numpad)|^(Enter|ShiftRight|ControlRight|AltRight|Slash|Period|Comma|Semicolon|Quote|BracketLeft|BracketRight|Backslash|Delete|End|Home|Insert|PageUp|PageDown)$/;
  const DEAD_ZONE = 0.2;

  // keyPlayer is the local player a bound key drives.
  function keyPlayer(code) {
    return state.guests > 0 && ARROW_SIDE.test(code) ? 1 : 0;
  }

  // pads returns the connected gamepads in the browser's order.
  function pads() {
    if (!navigator.getGamepads) return [];
    return Array.from(navigator.getGamepads() || []).filter((p) => p && p.connected !== false);
  }

  function stick(v) {
    return finite(v) && Math.abs(v) >= DEAD_ZONE ? Math.max(-1, Math.min(1, v)) : 0;
  }

  // padInput is guest player's input from its gamepad: the first keyed
  // axis on the left stick's x (and the d-pad), a second on its y (up is
  // +), the aim on the right stick, button i of the project on the pad's
  // button i. A guest whose pad is not connected holds nothing.
  function padInput(player, a) {
    const pad = pads()[player - 2];
    const axes = {}, held = {};
    let keyed = 0;
    for (const ax of a.axes) {
      let v = 0;
      if (pad && ax.mouse) v = ax.mouse === 'x' ? stick(pad.axes[2]) : -stick(pad.axes[3]);
      else if (pad) {
        if (keyed === 0) {
          const b = pad.buttons || [];
          v = stick(pad.axes[0]) || ((b[15] && b[15].pressed ? 1 : 0) - (b[14] && b[14].pressed ? 1 : 0));
        } else if (keyed === 1) v = -stick(pad.axes[1]);
        keyed++;
      }
      axes[ax.name] = round3(v);
    }
    a.buttons.forEach((b, j) => {
      held[b.name] = !!(pad && pad.buttons && pad.buttons[j] && pad.buttons[j].pressed);
    });
    return { t: 'input', player, axes, held };
  }

  function setActions(m) {
    state.viewWidth = finite(m.view_width) && m.view_width > 0 ? m.view_width : VIEW_WIDTH_M;
    const axes = Array.isArray(m.axes) ? m.axes : [];
    const buttons = Array.isArray(m.buttons) ? m.buttons : [];
    state.actions = { axes, buttons };
    state.guests = Number.isInteger(m.guests) ? Math.max(0, Math.min(7, m.guests)) : 0;
    boundKeys.clear();
    for (const a of axes) for (const c of [...(a.negative || []), ...(a.positive || [])]) boundKeys.add(c);
    for (const b of buttons) for (const c of b.keys || []) boundKeys.add(c);
    for (const c of [...down]) if (!boundKeys.has(c)) down.delete(c);
    listBindings();
    if (typeof m.title === 'string' && m.title) document.title = m.title;
    if (window.vkmCamera) window.vkmCamera.hello(m, state.viewWidth);
    if (window.vkmSound) window.vkmSound.hello(m);
    loadRenderer(m.renderer);
    if (window.vkmControls) window.vkmControls.setActions(m, boundKeys);
    lastInput = [];
    sendInput();
  }

  function mouseHeld(name) {
    return (name === 'left' && mouseDown.has(0)) || (name === 'right' && mouseDown.has(2));
  }

  // updateAim points the aim from the own entity's drawn position to the
  // pointer's world position; it keeps the last aim when either is unknown
  // or they coincide.
  function updateAim() {
    if (!mouse || !state.own) return;
    const w = screenToWorld(mouse.x, mouse.y);
    const dx = w.x - state.own.x, dy = w.y - state.own.y;
    const len = Math.hypot(dx, dy);
    if (len > 1e-3) aim = { x: dx / len, y: dy / len };
  }

  const round3 = (v) => Math.round(v * 1000) / 1000;

  // pointAxis is a "point_x" or "point_y" axis: the pointer's world offset
  // from the own entity's drawn position over the axis's reach (metres),
  // held to -1..1; the last value while either is unknown.
  const pointed = {};
  function pointAxis(ax) {
    if (mouse && state.own && ax.reach > 0) {
      const w = screenToWorld(mouse.x, mouse.y);
      const d = ax.mouse === 'point_x' ? w.x - state.own.x : w.y - state.own.y;
      if (finite(d)) pointed[ax.name] = round3(Math.min(1, Math.max(-1, d / ax.reach)));
    }
    return pointed[ax.name] || 0;
  }

  // currentInput is local player player's input: 0 the page's own (the
  // keys, or with guests those off the arrow side, and the mouse), 1 the
  // arrow-side keys, 2 on a gamepad each.
  function currentInput(player) {
    const a = state.actions;
    if (!a) return null;
    if (player >= 2) return padInput(player, a);
    if (player === 0) updateAim();
    const mine = (c) => down.has(c) && keyPlayer(c) === player;
    const axes = {}, held = {};
    for (const ax of a.axes) {
      if (ax.mouse === 'x' || ax.mouse === 'y') axes[ax.name] = player === 0 ? round3(ax.mouse === 'x' ? aim.x : aim.y) : 0;
      else if (ax.mouse === 'point_x' || ax.mouse === 'point_y') axes[ax.name] = player === 0 ? pointAxis(ax) : 0;
      else {
        const pos = (ax.positive || []).some(mine) ? 1 : 0;
        const neg = (ax.negative || []).some(mine) ? 1 : 0;
        axes[ax.name] = pos - neg;
      }
    }
    for (const b of a.buttons) held[b.name] = (b.keys || []).some(mine) || (player === 0 && mouseHeld(b.mouse));
    const m = { t: 'input', axes, held };
    if (player > 0) m.player = player;
    return m;
  }

  // sendInput sends each local player's whole input state when it differs
  // from the last sent.
  function sendInput() {
    for (let p = 0; p <= state.guests; p++) {
      const m = currentInput(p);
      if (!m) return;
      const text = JSON.stringify(m);
      if (text === lastInput[p]) continue;
      if (send(text)) {
        lastInput[p] = text;
        state.inputs[p] = m;
        if (p === 0) state.input = m;
      }
    }
  }

  function releaseAll() {
    state.boardShown = false;
    down.clear();
    mouseDown.clear();
    sendInput();
  }

  function isFormField(t) {
    return !!t && (t.tagName === 'INPUT' || t.tagName === 'TEXTAREA' || t.tagName === 'SELECT');
  }

  function onKeyDown(e) {
    if (isFormField(e.target)) return;
    if (boundKeys.has(e.code)) {
      e.preventDefault();
      down.add(e.code);
      sendInput();
      return;
    }
    if (window.vkmControls && !e.repeat && window.vkmControls.onKey(e.code)) {
      e.preventDefault();
      return;
    }
    if (e.code === 'Tab') { // the scoreboard, while held
      e.preventDefault();
      state.boardShown = true;
      return;
    }
    const o = DEBUG_KEYS[e.code];
    if (o && !e.repeat && !e.ctrlKey && !e.metaKey && !e.altKey) {
      e.preventDefault();
      toggle(o);
    }
  }

  function onKeyUp(e) {
    if (e.code === 'Tab' && !boundKeys.has(e.code)) {
      e.preventDefault();
      state.boardShown = false;
    }
    if (down.delete(e.code)) {
      e.preventDefault();
      sendInput();
    }
  }

  function pointer(e) {
    const r = canvas.getBoundingClientRect();
    const sx = r.width ? canvas.width / r.width : 1, sy = r.height ? canvas.height / r.height : 1;
    return { x: (e.clientX - r.left) * sx, y: (e.clientY - r.top) * sy };
  }

  function toggle(name) {
    state.overlays[name] = !state.overlays[name];
    if (name === 'side') $('side').classList.toggle('hidden', !state.overlays.side);
    if (name === 'net') $('net-section').hidden = !state.overlays.net;
  }

  window.addEventListener('keydown', onKeyDown);
  window.addEventListener('keyup', onKeyUp);
  window.addEventListener('blur', releaseAll);
  document.addEventListener('visibilitychange', () => {
    if (document.hidden) releaseAll();
  });
  canvas.addEventListener('mousemove', (e) => {
    mouse = pointer(e);
  });
  canvas.addEventListener('mousedown', (e) => {
    canvas.focus();
    if (e.altKey && e.button === 0) { // the developer's inspector, not the game's input
      e.preventDefault();
      state.inspectAt(pointer(e));
      return;
    }
    mouse = pointer(e);
    mouseDown.add(e.button);
    e.preventDefault();
    sendInput();
  });
  window.addEventListener('mouseup', (e) => {
    if (mouseDown.delete(e.button)) sendInput();
  });
  canvas.addEventListener('contextmenu', (e) => e.preventDefault());
  canvas.addEventListener('wheel', (e) => { // zoom, within the project's limits
    if (!window.vkmCamera) return;
    e.preventDefault();
    window.vkmCamera.wheel(e.deltaY);
  }, { passive: false });

  function listBindings() {
    const ul = $('bindings');
    if (!ul) return;
    ul.textContent = '';
    const add = (text) => {
      const li = document.createElement('li');
      li.textContent = text;
      ul.appendChild(li);
    };
    const name = window.vkmControls ? window.vkmControls.keyName : (k) => k;
    for (const a of state.actions.axes) {
      if (a.mouse) add(a.name + ': mouse ' + a.mouse + ' (aim)');
      else add(a.name + ': ' + (a.negative || []).map(name).join('/') + ' \u2212, ' + (a.positive || []).map(name).join('/') + ' +');
    }
    for (const b of state.actions.buttons) {
      const keys = (b.keys || []).map(name);
      if (b.mouse) keys.push('mouse ' + b.mouse);
      add(b.name + ': ' + keys.join('/'));
    }
    if (state.guests > 0) add('guest 1: the arrow-side keys; you: the others and the mouse');
    if (state.guests > 1) add('guests 2 to ' + (state.guests + 1) + ': a gamepad each');
  }

  // ---- link sliders ----

  function showSlider(id, unit) {
    $(id + '-out').textContent = $(id).value + ' ' + unit;
  }

  function sendLink() {
    const m = { t: 'link' };
    for (const [id, key] of SLIDERS) m[key] = Number($(id).value);
    send(JSON.stringify(m));
  }

  function setLink(m) {
    state.link = m;
    $('link-off').hidden = !!m.enabled;
    for (const [id, key, unit] of SLIDERS) {
      const el = $(id);
      el.disabled = !m.enabled;
      if (document.activeElement !== el && finite(m[key])) el.value = String(m[key]);
      showSlider(id, unit);
    }
  }

  for (const [id, , unit] of SLIDERS) {
    const el = $(id);
    el.disabled = true;
    el.addEventListener('input', () => showSlider(id, unit));
    el.addEventListener('change', () => {
      sendLink();
      el.blur();
      canvas.focus();
    });
  }

  // ---- drawing ----

  const cam = { x: 0, y: 8, ppm: 40 };

  function resize() {
    const dpr = window.devicePixelRatio || 1;
    const r = canvas.getBoundingClientRect();
    const w = Math.max(1, Math.round(r.width * dpr)), h = Math.max(1, Math.round(r.height * dpr));
    if (canvas.width !== w) canvas.width = w;
    if (canvas.height !== h) canvas.height = h;
  }

  // The camera follows the own entity, showing the project's view width
  // across: world metres, y up, to pixels. Zoomed out, it shows the whole
  // level: every drawn body with a margin.
  function updateCamera() {
    if (state.overlays.zoom && state.lastFrame) {
      const b = levelBounds(state.lastFrame);
      if (b) {
        const w = b.maxX - b.minX + 2, h = b.maxY - b.minY + 2;
        cam.ppm = Math.max(Math.min(canvas.width / w, canvas.height / h), 0.01);
        cam.x = (b.minX + b.maxX) / 2;
        cam.y = (b.minY + b.maxY) / 2;
        return;
      }
    }
    if (window.vkmCamera) {
      window.vkmCamera.update(cam, canvas.width, canvas.height, state.own, poseOf, () => state.lastFrame && levelBounds(state.lastFrame));
      return;
    }
    cam.ppm = Math.max(canvas.width / state.viewWidth, 0.01);
    if (state.own) {
      cam.x = state.own.x;
      cam.y = state.own.y;
    }
  }

  // poseOf is the latest frame's pose of entity id, {x, y}, or null.
  function poseOf(id) {
    for (const e of (state.lastFrame && state.lastFrame.e) || []) {
      if (e[0] === id && finite(e[1]) && finite(e[2])) return { x: e[1], y: e[2] };
    }
    return null;
  }

  function levelBounds(f) {
    let b = null;
    for (const e of f.e || []) {
      if (!finite(e[1]) || !finite(e[2])) continue;
      const body = state.scene.get(e[0]);
      const r = (body ? body.reach.r : 0.15) * (finite(e[4]) && e[4] !== 0 ? Math.abs(e[4]) : 1);
      if (!b) b = { minX: Infinity, minY: Infinity, maxX: -Infinity, maxY: -Infinity };
      b.minX = Math.min(b.minX, e[1] - r);
      b.maxX = Math.max(b.maxX, e[1] + r);
      b.minY = Math.min(b.minY, e[2] - r);
      b.maxY = Math.max(b.maxY, e[2] + r);
    }
    return b;
  }

  function screenToWorld(px, py) {
    return { x: (px - canvas.width / 2) / cam.ppm + cam.x, y: cam.y - (py - canvas.height / 2) / cam.ppm };
  }

  function shapePath(sh) {
    const ox = finite(sh.x) ? sh.x : 0, oy = finite(sh.y) ? sh.y : 0;
    g.beginPath();
    switch (sh.k) {
      case 'box':
        g.save();
        g.translate(ox, oy);
        g.rotate(sh.a || 0);
        g.rect(-sh.hx, -sh.hy, 2 * sh.hx, 2 * sh.hy);
        g.restore();
        break;
      case 'circle':
        g.arc(ox, oy, sh.r, 0, 2 * Math.PI);
        g.moveTo(ox, oy);
        g.lineTo(ox + sh.r, oy); // shows the rotation
        break;
      case 'polygon':
      case 'chain': {
        const pts = sh.p || [];
        pts.forEach((p, i) => (i ? g.lineTo : g.moveTo).call(g, p[0] + ox, p[1] + oy));
        if (sh.k === 'polygon' || sh.loop) g.closePath();
        break;
      }
    }
  }

  // drawBody draws entity id's shapes at a pose. look: fill (colour or
  // null for the body's own, false for none), stroke, width (pixels), dash.
  function drawBody(id, x, y, a, s, look) {
    if (!finite(x) || !finite(y)) return;
    const body = state.scene.get(id);
    const k = finite(s) && s !== 0 ? s : 1;
    if (body && body.sprite && window.vkmSprites && look.sprite &&
      window.vkmSprites.draw(g, body, id, x, y, finite(a) ? a : 0, k, performance.now())) return;
    g.save();
    g.translate(x, y);
    g.rotate(finite(a) ? a : 0);
    g.scale(k, k);
    const px = 1 / (cam.ppm * Math.abs(k));
    g.setLineDash(look.dash ? look.dash.map((d) => d * px) : []);
    const shapes = body && body.shapes && body.shapes.length ? body.shapes : [{ k: 'circle', x: 0, y: 0, r: 0.15 }];
    const color = (body && (body.color || ROLE_COLORS[body.role] || KIND_COLORS[body.what])) || DEFAULT_COLOR;
    if (look.fill === null && body && body.style === 'outline') look = { fill: false, stroke: color, width: 2 };
    for (const sh of shapes) {
      shapePath(sh);
      if (sh.k === 'chain') {
        g.strokeStyle = look.stroke || color;
        g.lineWidth = (look.width || 3) * px;
        g.stroke();
        continue;
      }
      if (look.fill !== false) {
        g.globalAlpha = sh.sensor ? 0.35 : 1;
        g.fillStyle = look.fill || color;
        g.fill();
        g.globalAlpha = 1;
      }
      if (look.stroke) {
        g.strokeStyle = look.stroke;
        g.lineWidth = (look.width || 1) * px;
        g.stroke();
      }
    }
    g.restore();
  }

  const LOOK_OTHER = { fill: null, stroke: 'rgba(255,255,255,0.22)', width: 1, sprite: true };
  const LOOK_OWN = { fill: null, stroke: '#ffe14d', width: 3, sprite: true };
  const LOOK_PLAYER = { fill: null, stroke: 'rgba(255,255,255,0.7)', width: 2, sprite: true };
  const LOOK_LEASED = { fill: false, stroke: '#e05cff', width: 3 };
  const LOOK_GHOST = { fill: false, stroke: '#ff5a5a', width: 2, dash: [6, 4] };
  const LOOK_SAMPLE = { fill: false, stroke: 'rgba(120,255,160,0.7)', width: 1, dash: [2, 3] };

  function drawGrid() {
    const tl = screenToWorld(0, 0), br = screenToWorld(canvas.width, canvas.height);
    g.strokeStyle = 'rgba(255,255,255,0.04)';
    g.lineWidth = 1 / cam.ppm;
    g.setLineDash([]);
    g.beginPath();
    for (let x = Math.floor(tl.x); x <= br.x; x++) {
      g.moveTo(x, br.y);
      g.lineTo(x, tl.y);
    }
    for (let y = Math.floor(br.y); y <= tl.y; y++) {
      g.moveTo(tl.x, y);
      g.lineTo(br.x, y);
    }
    g.stroke();
  }

  // drawJoints draws each joint of the frame (["revolute", ax, ay, bx,
  // by]) as a line between its anchors with a dot at each: a rope or a
  // distance joint dashed, a mouse joint's pull in the own colour.
  // jointsDrawn counts those of the latest frame, for tests.
  state.jointsDrawn = 0;
  function drawJoints(f) {
    state.jointsDrawn = 0;
    if (!Array.isArray(f.joints)) return;
    const px = 1 / cam.ppm;
    for (const j of f.joints) {
      if (!Array.isArray(j) || ![1, 2, 3, 4].every((i) => finite(j[i]))) continue;
      g.save();
      g.strokeStyle = j[0] === 'mouse' ? ROLE_COLORS.own : '#c9d1de';
      g.lineWidth = 2 * px;
      if (j[0] === 'rope' || j[0] === 'distance') g.setLineDash([6 * px, 4 * px]);
      g.beginPath();
      g.moveTo(j[1], j[2]);
      g.lineTo(j[3], j[4]);
      g.stroke();
      g.setLineDash([]);
      g.fillStyle = g.strokeStyle;
      for (const [x, y] of [[j[1], j[2]], [j[3], j[4]]]) {
        g.beginPath();
        g.arc(x, y, 3 * px, 0, 2 * Math.PI);
        g.fill();
      }
      g.restore();
      state.jointsDrawn++;
    }
  }

  function drawWorld(f) {
    const W = canvas.width, H = canvas.height;
    g.setTransform(cam.ppm, 0, 0, -cam.ppm, W / 2 - cam.x * cam.ppm, H / 2 + cam.y * cam.ppm);
    drawGrid();
    let own = null;
    const rank = (e) => { const b = state.scene.get(e[0]); return b ? b.rank : 0; };
    const ordered = (f.e || []).slice().sort((a, b) => rank(a) - rank(b));
    if (window.vkmSprites) window.vkmSprites.beginFrame();
    for (const e of ordered) {
      if (e[0] === f.own) own = e;
      const body = state.scene.get(e[0]);
      if (body && body.hidden) continue;
      const look = e[0] === f.own ? LOOK_OWN : body && body.role === 'player' ? LOOK_PLAYER : LOOK_OTHER;
      drawBody(e[0], e[1], e[2], e[3], e[4], look);
    }
    drawJoints(f);
    if (state.overlays.leased) {
      const leased = new Set(f.leased || []);
      for (const e of f.e || []) if (leased.has(e[0])) drawBody(e[0], e[1], e[2], e[3], e[4], LOOK_LEASED);
    }
    if (state.overlays.samples) {
      for (const e of f.samples || []) drawBody(e[0], e[1], e[2], e[3], e[4], LOOK_SAMPLE);
    }
    if (own) drawAim();
    if (state.overlays.ghost && f.ghost && f.own) {
      const t = f.ghost;
      drawBody(f.own, t[0], t[1], t[2], t[3], LOOK_GHOST);
    }
    drawEffects();
    drawLabels(f);
  }

  // drawLabels writes each body's label above it, in screen pixels.
  function drawLabels(f) {
    const dpr = window.devicePixelRatio || 1;
    g.save();
    g.setTransform(1, 0, 0, 1, 0, 0);
    g.font = Math.round(13 * dpr) + 'px system-ui, sans-serif';
    g.textAlign = 'center';
    g.textBaseline = 'bottom';
    const voice = window.vkmVoice && window.vkmVoice.isSpeaking ? window.vkmVoice : null;
    for (const e of f.e || []) {
      const b = state.scene.get(e[0]);
      if (!b || b.hidden || !finite(e[1]) || !finite(e[2])) continue;
      const k = finite(e[4]) && e[4] !== 0 ? Math.abs(e[4]) : 1;
      const sx = canvas.width / 2 + (e[1] - cam.x) * cam.ppm;
      const sy = canvas.height / 2 - (e[2] + b.reach.top * k - cam.y) * cam.ppm - 4 * dpr;
      if (voice && voice.isSpeaking(e[0], e[0] === f.own)) { // vkm-voice.js: a speaking mark above
        g.fillStyle = '#5fd38d';
        g.beginPath();
        g.arc(sx, sy - (b.label ? 22 : 6) * dpr, 5 * dpr, 0, 2 * Math.PI);
        g.fill();
      }
      if (!b.label) continue;
      g.fillStyle = 'rgba(0,0,0,0.6)';
      g.fillText(b.label, sx + dpr, sy + dpr);
      g.fillStyle = e[0] === f.own ? '#ffe14d' : '#ffffff';
      g.fillText(b.label, sx, sy);
    }
    g.restore();
  }

  function drawAim() {
    const o = state.own;
    g.strokeStyle = 'rgba(255,225,77,0.6)';
    g.lineWidth = 2 / cam.ppm;
    g.setLineDash([]);
    g.beginPath();
    g.moveTo(o.x + aim.x * 0.9, o.y + aim.y * 0.9);
    g.lineTo(o.x + aim.x * 1.6, o.y + aim.y * 1.6);
    g.stroke();
  }

  // drawDevBanners draws what is for the developer over the game: this
  // end's script errors and the dev server's notice (a reload it
  // refused), on a page of client --view or one a dev server serves.
  function drawDevBanners(f) {
    if (!window.vkmHUD || (web && !(web.config && web.config.dev))) return;
    const dpr = window.devicePixelRatio || 1;
    const top = window.vkmHUD.drawErrors(g, canvas, f && f.errors, f && f.errs, dpr);
    if (window.vkmHUD.drawNotice) window.vkmHUD.drawNotice(g, canvas, f && f.notice, dpr, top);
  }

  // drawKillcam marks a frame of a killcam (net.killcam): the world as it
  // was drawn seconds ago, the camera on the killer's character.
  function drawKillcam(f) {
    if (!f || !f.killcam) return;
    const dpr = window.devicePixelRatio || 1;
    const name = ((state.board && state.board.rows) || []).find((r) => r.player === f.killcam);
    g.save();
    g.textAlign = 'center';
    g.textBaseline = 'top';
    g.font = 'bold ' + Math.round(20 * dpr) + 'px system-ui, sans-serif';
    g.fillStyle = '#ff5d5d';
    g.fillText('KILLCAM' + (name && name.name ? ': ' + name.name : ''), canvas.width / 2, 48 * dpr);
    g.restore();
  }

  function drawHUD(f) {
    g.setTransform(1, 0, 0, 1, 0, 0);
    const dpr = window.devicePixelRatio || 1;
    g.textAlign = 'left';
    g.textBaseline = 'top';
    if (window.vkmHUD) window.vkmHUD.draw(g, canvas, (f && f.hud) || [], dpr);
    drawDevBanners(f);
    drawKillcam(f);
    g.textAlign = 'left';
    g.textBaseline = 'bottom';
    g.fillStyle = '#8a93a6';
    g.font = Math.round(12 * dpr) + 'px system-ui, sans-serif';
    const on = [];
    for (const o of ['ghost', 'leased', 'samples', 'zoom']) if (state.overlays[o]) on.push(o);
    if (web && state.connected && web.status !== 'playing') state.connected = false; // the client stopped
    const line = [state.connected ? 'connected' : 'disconnected', 'tick ' + (f ? f.tick : '\u2013'),
      'frames ' + state.frames, 'dropped ' + state.dropped];
    if (state.transport) line.push('in this tab over ' + state.transport);
    if (on.length) line.push('showing ' + on.join(', '));
    if (state.overlays.side) g.fillText(line.join(' \u00b7 '), 12 * dpr, canvas.height - 8 * dpr); // the developer's line
    if (!state.connected || !f) {
      g.textAlign = 'center';
      g.fillStyle = '#d8dce4';
      g.font = Math.round(22 * dpr) + 'px system-ui, sans-serif';
      const what = web && !state.connected ? web.status + '\u2026' : state.connected ? 'waiting for the game\u2026' : 'connecting\u2026';
      g.fillText(what, canvas.width / 2, canvas.height / 2);
    }
  }

  // ---- a project's own renderer (docs/project.md, "Your own renderer") ----

  let renderer = null;
  let rendererLoaded = '';
  const rendererEvents = [];
  state.useRenderer = (r) => { renderer = r && typeof r.draw === 'function' ? r : null; };

  function loadRenderer(path) {
    if (!path || path === rendererLoaded || typeof document.createElement !== 'function' || !document.body) return;
    rendererLoaded = path;
    const el = document.createElement('script');
    el.src = '/asset/' + path.split('/').map(encodeURIComponent).join('/');
    document.body.appendChild(el);
  }

  function renderView(f) {
    const entities = [];
    for (const e of (f && f.e) || []) {
      entities.push({ id: e[0], x: e[1], y: e[2], angle: finite(e[3]) ? e[3] : 0, scale: finite(e[4]) && e[4] !== 0 ? e[4] : 1, body: state.scene.get(e[0]) || null });
    }
    return {
      canvas, camera: { x: cam.x, y: cam.y, ppm: cam.ppm }, own: (f && f.own) || 0, entities,
      effects: rendererEvents.splice(0), hud: (f && f.hud) || [], input: state.input, tick: f ? f.tick : 0, frame: f,
    };
  }

  function draw() {
    resize();
    updateCamera();
    g.setTransform(1, 0, 0, 1, 0, 0);
    const f = state.lastFrame;
    if (renderer) {
      try {
        renderer.draw(renderView(f));
      } catch (e) {
        console.error('vkm: the project\'s renderer failed; drawing with the page\'s own', e);
        renderer = null;
      }
      g.setTransform(1, 0, 0, 1, 0, 0);
      if (!renderer || !renderer.hud) drawHUD(f);
      else drawDevBanners(f);
      if (state.boardShown) drawBoard();
      if (state.overlays.net && state.overlays.side) drawNet();
      return;
    }
    g.fillStyle = '#1a1d24';
    g.fillRect(0, 0, canvas.width, canvas.height);
    if (f) drawWorld(f);
    drawHUD(f);
    if (state.boardShown) drawBoard();
    if (state.overlays.net && state.overlays.side) drawNet();
  }

  // drawBoard draws the scoreboard over the game: each player's name,
  // the project's scoreboard fields and round trip, in the order the
  // client sorted them, and the game's state below.
  function drawBoard() {
    const b = state.board || { cols: [], rows: [], state: [] };
    const dpr = window.devicePixelRatio || 1;
    const cols = ['player', ...(b.cols || []).map((c) => c.slice(c.indexOf('.') + 1)), 'ms'];
    const talks = (r) => window.vkmVoice && window.vkmVoice.speakingName && window.vkmVoice.speakingName(r.name, r.own);
    const rows = (b.rows || []).map((r) => [(talks(r) ? '\u266a ' : '') + r.name, ...(r.v || []).map(fmt), fmt(r.rtt_ms)]);
    const colW = 110 * dpr, nameW = 220 * dpr, rowH = 24 * dpr, pad = 16 * dpr;
    const w = nameW + colW * (cols.length - 1) + 2 * pad;
    const st = b.state || [];
    const h = rowH * (rows.length + 1 + (st.length ? st.length + 1 : 0)) + 2 * pad;
    const x0 = Math.max(0, (canvas.width - w) / 2), y0 = Math.max(0, (canvas.height - h) / 3);
    g.setTransform(1, 0, 0, 1, 0, 0);
    g.fillStyle = 'rgba(10,12,16,0.88)';
    g.fillRect(x0, y0, w, h);
    g.strokeStyle = '#2a2f3a';
    g.lineWidth = dpr;
    g.strokeRect(x0, y0, w, h);
    g.textBaseline = 'middle';
    const cell = (text, i, y, color, bold) => {
      g.font = (bold ? '600 ' : '') + Math.round(14 * dpr) + 'px system-ui, sans-serif';
      g.fillStyle = color;
      if (i === 0) {
        g.textAlign = 'left';
        g.fillText(String(text), x0 + pad, y);
      } else {
        g.textAlign = 'right';
        g.fillText(String(text), x0 + pad + nameW + colW * i - 8 * dpr, y);
      }
    };
    let y = y0 + pad + rowH / 2;
    cols.forEach((c, i) => cell(c, i, y, '#8a93a6', true));
    (b.rows || []).forEach((r, n) => {
      y += rowH;
      rows[n].forEach((v, i) => cell(v, i, y, r.own ? '#ffe14d' : '#d8dce4', r.own));
    });
    if (st.length) {
      y += rowH;
      for (const [label, v] of st) {
        y += rowH;
        cell(label, 0, y, '#8a93a6', false);
        cell(fmt(v), 1, y, '#d8dce4', true);
      }
    }
  }

  // ---- network panel ----

  const history = new Map(NET_FIELDS.map(([k]) => [k, []])); // [seconds, value or null]
  let lastSample = -Infinity;

  function recordNet(net) {
    const now = performance.now() / 1000;
    if (now - lastSample < SAMPLE_EVERY_S) return;
    lastSample = now;
    for (const [k] of NET_FIELDS) {
      const h = history.get(k);
      const v = net ? net[k] : null;
      h.push([now, finite(v) ? v : null]);
      while (h.length && h[0][0] < now - HISTORY_S) h.shift();
    }
  }

  function fmt(v) {
    if (!finite(v)) return '\u2013';
    const a = Math.abs(v);
    if (a >= 10000) return (v / 1000).toFixed(1) + 'k';
    if (a >= 100 || Number.isInteger(v)) return v.toFixed(0);
    if (a >= 10) return v.toFixed(1);
    return v.toFixed(2);
  }

  function drawNet() {
    const W = netCanvas.width, H = netCanvas.height;
    const now = performance.now() / 1000;
    const rowH = H / NET_FIELDS.length;
    const f = state.lastFrame;
    const net = f && f.net;
    nc.clearRect(0, 0, W, H);
    nc.font = '11px system-ui, sans-serif';
    nc.textBaseline = 'top';
    if (f && !net) {
      nc.fillStyle = '#8a93a6';
      nc.textAlign = 'left';
      nc.fillText('offline: no network figures', 0, 0);
      return;
    }
    NET_FIELDS.forEach(([k, label, unit], r) => {
      const y0 = r * rowH;
      nc.textAlign = 'left';
      nc.fillStyle = '#8a93a6';
      nc.fillText(label, 0, y0);
      nc.textAlign = 'right';
      nc.fillStyle = '#d8dce4';
      nc.fillText(fmt(net ? net[k] : null) + (unit ? ' ' + unit : ''), W, y0);
      plot(history.get(k), now, 0, y0 + 14, W, rowH - 18);
    });
  }

  // plot draws a field's history as a line over the last HISTORY_S seconds
  // in the box (x, y, w, h), scaled from 0 (or its lowest) to its highest.
  function plot(h, now, x, y, w, h2) {
    let lo = 0, hi = -Infinity;
    for (const [, v] of h) {
      if (v === null) continue;
      lo = Math.min(lo, v);
      hi = Math.max(hi, v);
    }
    nc.fillStyle = '#1a1d24';
    nc.fillRect(x, y, w, h2);
    if (hi === -Infinity) return;
    if (hi - lo < 1e-9) hi = lo + 1;
    nc.strokeStyle = '#3fb6ff';
    nc.lineWidth = 1;
    nc.beginPath();
    let pen = false;
    for (const [t, v] of h) {
      if (v === null) {
        pen = false;
        continue;
      }
      const px = x + w * (1 - (now - t) / HISTORY_S), py = y + h2 * (1 - (v - lo) / (hi - lo));
      if (pen) nc.lineTo(px, py);
      else nc.moveTo(px, py);
      pen = true;
    }
    nc.stroke();
    nc.textAlign = 'left';
    nc.fillStyle = '#5d6578';
    nc.fillText(fmt(hi), x + 2, y + 1);
  }

  // How long the latest animation frames took, in milliseconds.
  const DRAW_KEEP = 1024;
  const drawTimes = [];

  state.drawTimes = () => {
    const s = drawTimes.slice().sort((a, b) => a - b);
    const q = (p) => (s.length ? Math.round(s[Math.floor(p * (s.length - 1))] * 1000) / 1000 : 0);
    return { n: s.length, p50_ms: q(0.5), p99_ms: q(0.99) };
  };

  function loop() {
    requestAnimationFrame(loop);
    const t0 = performance.now();
    sendInput(); // the aim moves with the player even when the mouse does not
    draw();
    if (web) web.drawn = true;
    drawTimes.push(performance.now() - t0);
    if (drawTimes.length > DRAW_KEEP) drawTimes.shift();
  }

  connect();
  requestAnimationFrame(loop);
})();
