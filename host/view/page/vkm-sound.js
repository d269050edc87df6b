// Sound: the project's [[sound]] tables (docs/project.md, "Sounds") map
// the game's events to OGG or WAV files, played with Web Audio where the
// event happened: fainter with distance from the middle of the view, and
// panned to its side. vkm.js calls vkmSound.hello with the hello message
// and vkmSound.play once for each event it takes (a frame's effects are
// numbered, and the page takes each number once, so nothing plays twice).
// A volume slider and a mute button sit over the game; the browser starts
// sound at the player's first click or key. Plain script, no build step.
//
// window.vkmSound exposes, for tests and the console: started (sources
// started, by event name), last ({event, gain, pan} of the latest),
// volume, muted, and failed (files that did not load). A sound mapped to
// a component field's change is keyed "change:Type.field", and vkm.js
// plays it for each "vkm.change" effect.
(function () {
  'use strict';

  const AC = window.AudioContext || window.webkitAudioContext || null;
  const so = { started: {}, last: null, volume: 0.8, muted: false, failed: [], sounds: {} };
  window.vkmSound = so;

  let ctx = null, master = null;
  const buffers = new Map(); // file → AudioBuffer, or null while loading

  function context() {
    if (ctx || !AC) return ctx;
    ctx = new AC();
    master = ctx.createGain();
    master.connect(ctx.destination);
    applyVolume();
    const resume = () => { if (ctx.state === 'suspended') ctx.resume(); };
    addEventListener('keydown', resume);
    addEventListener('pointerdown', resume);
    return ctx;
  }

  function applyVolume() {
    if (master) master.gain.value = so.muted ? 0 : so.volume;
    if (button) button.textContent = so.muted ? 'sound off' : 'sound on';
  }

  async function load(file) {
    if (buffers.has(file)) return;
    buffers.set(file, null);
    try {
      const r = await fetch('/asset/' + file.split('/').map(encodeURIComponent).join('/'), { cache: 'no-cache' });
      if (!r.ok) throw new Error(r.status);
      buffers.set(file, await context().decodeAudioData(await r.arrayBuffer()));
    } catch (e) {
      if (!so.failed.includes(file)) so.failed.push(file);
    }
  }

  so.hello = function (m) {
    so.sounds = {};
    for (const s of Array.isArray(m.sounds) ? m.sounds : []) {
      if (typeof s.file !== 'string') continue;
      if (typeof s.change === 'string' && s.change) so.sounds['change:' + s.change] = s; // a field's change ("vkm.change")
      else if (typeof s.event === 'string') so.sounds[s.event] = s;
    }
    if (!Object.keys(so.sounds).length || !context()) return;
    controls();
    for (const e in so.sounds) load(so.sounds[e].file);
  };

  // play plays the sound of event name, if the project maps one: at pos
  // ({x, y} or null: unplaced), heard from the middle of a view width
  // metres across at listener {x, y, width}.
  so.play = function (name, pos, listener) {
    const s = so.sounds[name];
    if (!s || !ctx) return;
    const buf = buffers.get(s.file);
    if (!buf) return;
    let gain = typeof s.volume === 'number' ? s.volume : 1, pan = 0;
    if (pos && listener && s.range > 0) {
      const dx = pos.x - listener.x, dy = pos.y - listener.y;
      gain *= Math.max(0, 1 - Math.hypot(dx, dy) / s.range);
      pan = Math.max(-1, Math.min(1, dx / Math.max(listener.width / 2, 1)));
    }
    if (gain <= 0) return;
    const src = ctx.createBufferSource();
    src.buffer = buf;
    const g = ctx.createGain();
    g.gain.value = gain;
    let out = g;
    if (ctx.createStereoPanner) {
      const p = ctx.createStereoPanner();
      p.pan.value = pan;
      g.connect(p);
      out = p;
    }
    out.connect(master);
    src.connect(g);
    src.start();
    so.started[name] = (so.started[name] || 0) + 1;
    so.last = { event: name, gain, pan };
  };

  // controls puts the volume slider and the mute button over the game.
  let button = null;
  function controls() {
    if (button || !document.body) return;
    const box = document.createElement('div');
    box.id = 'sound';
    Object.assign(box.style, {
      position: 'fixed', right: '356px', bottom: '10px', display: 'flex', gap: '6px', alignItems: 'center',
      background: 'rgba(10,12,16,0.7)', padding: '4px 8px', borderRadius: '4px', font: '12px system-ui, sans-serif',
    });
    button = document.createElement('button');
    button.id = 'mute';
    button.addEventListener('click', () => { so.muted = !so.muted; applyVolume(); });
    const slider = document.createElement('input');
    slider.id = 'volume';
    slider.type = 'range';
    slider.min = '0'; slider.max = '1'; slider.step = '0.05';
    slider.value = String(so.volume);
    slider.setAttribute('aria-label', 'volume');
    slider.addEventListener('input', () => { so.volume = Number(slider.value); applyVolume(); });
    box.appendChild(button);
    box.appendChild(slider);
    document.body.appendChild(box);
    applyVolume();
  }
})();
