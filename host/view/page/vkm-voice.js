// The players' voice, for a project with [voice] (docs/project.md, "Voice"):
// vkm-web.js offers, beside its data channel, one audio line the page sends
// its microphone on and eight it hears on; the server forwards each voice to
// the players its rules let hear it and says, over the game's reliable
// channel, whose voice each of the eight carries ({"t":"voice"}, which
// vkm.js hands to vkmVoice.slots). The page plays each through Web Audio:
// a nearby voice fainter with distance and panned by where the speaker's
// entity stands, every voice at the gain the server gives it and the
// volume the player sets.
//
// Talking: push-to-talk (the project's pushToTalk button's keys, or V),
// voice-activated or an open microphone, chosen in the side panel; the
// microphone is asked for with the browser's echo cancellation, noise
// suppression and gain control, once the server says the player may speak
// (and not while voice is off). A test tone sends a steady note instead,
// to check a link with nobody talking. Nothing is sent while the player is
// not talking. A speaker is shown speaking, over their character and in
// the scoreboard, while their packets arrive.
//
// The address may carry ?voice=ptt|vad|open|off (the mode) and ?tone=1.
//
// window.vkmVoice exposes, for tests and the console: on (the link
// carries voice), mode, tone, speak (the server forwards this player's
// voice), sending, micError, slots ([{player, name, entity, gain}]),
// received (audio packets received in all, from the peer connection's
// getStats) and bySlot (by slot), gains and pans (each slot's, as set),
// speaking ({player: true}), mute(player,
// bool), setVolume(player, 0..1), setMode(mode), setTone(bool).
(function () {
  'use strict';

  const SLOTS = 8;
  const STATS_MS = 250; // how often getStats is read
  const SPEAKING_MS = 400; // shown speaking this long after a packet
  const VAD_LEVEL = 0.02; // RMS over which the microphone counts as a voice
  const VAD_HANG_MS = 400;
  const params = new URLSearchParams(location.search);
  const web = window.vkmWeb;
  const vo = {
    on: false, mode: 'vad', tone: params.get('tone') === '1', speak: false, sending: false, micError: '',
    slots: [], received: 0, bySlot: new Array(SLOTS).fill(0), speaking: {}, muted: {}, volume: {},
    nearby: false, range: 0, gains: new Array(SLOTS).fill(0), pans: new Array(SLOTS).fill(0),
  };
  window.vkmVoice = vo;
  if (!web) return; // a native client's view page: no peer connection of its own

  let link = null; // {pc, mic, slots} from vkm-web.js
  let ctx = null;
  const outs = []; // per slot: {gain, pan}
  let micTrack = null, toneTrack = null, micLevel = null, asking = false;
  let held = false, voiceUntil = 0;
  const lastPacket = new Array(SLOTS).fill(-Infinity);
  let pose = new Map(); // entity → [x, y] from the last frame
  let own = null;

  function audio() {
    if (ctx) return ctx;
    const AC = window.AudioContext || window.webkitAudioContext;
    if (!AC) return null;
    ctx = new AC();
    const resume = () => { if (ctx.state === 'suspended') ctx.resume(); };
    addEventListener('keydown', resume);
    addEventListener('pointerdown', resume);
    return ctx;
  }

  // attach plays each receiving line through its gain and panner.
  function attach(l) {
    link = l;
    vo.on = true;
    const c = audio();
    l.slots.forEach((tr, i) => {
      const stream = new MediaStream([tr.receiver.track]);
      // Chromium feeds a remote stream into Web Audio only while an
      // element plays it; the element itself stays silent.
      const el = new Audio();
      el.srcObject = stream;
      el.muted = true;
      el.play().catch(() => {});
      if (!c) return;
      const gain = c.createGain();
      const pan = c.createStereoPanner ? c.createStereoPanner() : null;
      c.createMediaStreamSource(stream).connect(gain);
      if (pan) {
        gain.connect(pan);
        pan.connect(c.destination);
      } else {
        gain.connect(c.destination);
      }
      gain.gain.value = 0;
      outs[i] = { gain, pan };
    });
    setInterval(readStats, STATS_MS);
    setInterval(updateSending, 50);
    panel();
  }

  // readStats counts the audio packets each slot has received.
  async function readStats() {
    if (!link) return;
    let report;
    try {
      report = await link.pc.getStats();
    } catch (e) {
      return;
    }
    const bySlot = new Array(SLOTS).fill(0);
    report.forEach((s) => {
      if (s.type !== 'inbound-rtp' || s.kind !== 'audio') return;
      const i = link.slots.findIndex((tr) => tr.mid === s.mid);
      if (i >= 0) bySlot[i] += s.packetsReceived || 0;
    });
    const now = performance.now();
    bySlot.forEach((n, i) => { if (n > vo.bySlot[i]) lastPacket[i] = now; });
    vo.bySlot = bySlot;
    vo.received = bySlot.reduce((a, b) => a + b, 0);
    const speaking = {};
    vo.slots.forEach((s, i) => { if (s.player && now - lastPacket[i] < SPEAKING_MS) speaking[s.player] = true; });
    vo.speaking = speaking;
    listShown();
  }

  // slots takes the server's word on whose voice each slot carries.
  vo.slots = [];
  vo.take = function (m) {
    const list = Array.isArray(m.slots) ? m.slots : [];
    vo.slots = list.slice(0, SLOTS).map((s) => ({ player: s.player | 0, name: String(s.name || ''), entity: s.entity || 0, gain: +s.gain || 0 }));
    vo.nearby = !!m.nearby;
    vo.range = +m.range || 0;
    vo.speak = !!m.speak;
    wantMic();
    place();
    listBuilt();
  };

  // frame takes where the entities stand (vkm.js calls it with each frame).
  vo.frame = function (m) {
    const p = new Map();
    for (const e of m.e || []) p.set(e[0], e);
    pose = p;
    own = m.own ? p.get(m.own) : null;
    place();
  };

  // place sets each slot's gain and pan: the server's gain, the player's
  // volume and mute, and for a nearby voice the distance and side.
  function place() {
    vo.slots.forEach((s, i) => {
      const o = outs[i];
      if (!o) return;
      let g = s.player ? s.gain : 0, p = 0;
      if (vo.muted[s.player]) g = 0;
      g *= vo.volume[s.player] === undefined ? 1 : vo.volume[s.player];
      const at = pose.get(s.entity);
      if (vo.nearby && vo.range > 0 && at && own) {
        const dx = at[1] - own[1], dy = at[2] - own[2];
        g *= Math.max(0, 1 - Math.hypot(dx, dy) / vo.range);
        p = Math.max(-1, Math.min(1, dx / (vo.range / 2)));
      }
      o.gain.gain.value = g;
      if (o.pan) o.pan.pan.value = p;
      vo.gains[i] = g;
      vo.pans[i] = p;
    });
  }

  // ---- talking ----

  const keys = () => {
    const k = web.config.voice && web.config.voice.keys;
    return Array.isArray(k) && k.length ? k : ['KeyV'];
  };
  addEventListener('keydown', (e) => { if (keys().includes(e.code) && !(e.target instanceof HTMLInputElement)) held = true; });
  addEventListener('keyup', (e) => { if (keys().includes(e.code)) held = false; });
  addEventListener('blur', () => { held = false; });

  // wantMic asks for the microphone once the player may speak over a link
  // that carries voice (not the WebSocket) and has not turned voice off.
  function wantMic() {
    if (vo.on && vo.speak && vo.mode !== 'off') startMic();
  }

  async function startMic() {
    if (micTrack || asking || !navigator.mediaDevices) return;
    asking = true;
    try {
      const s = await navigator.mediaDevices.getUserMedia({ audio: { echoCancellation: true, noiseSuppression: true, autoGainControl: true } });
      micTrack = s.getAudioTracks()[0] || null;
      const c = audio();
      if (c && micTrack) {
        const an = c.createAnalyser();
        an.fftSize = 512;
        c.createMediaStreamSource(s).connect(an);
        const buf = new Float32Array(an.fftSize);
        micLevel = () => {
          an.getFloatTimeDomainData(buf);
          let sum = 0;
          for (const x of buf) sum += x * x;
          return Math.sqrt(sum / buf.length);
        };
      }
      vo.micError = '';
    } catch (e) {
      vo.micError = String(e && e.name || e);
    }
    asking = false;
    panelStatus();
  }

  function tone() {
    if (toneTrack) return toneTrack;
    const c = audio();
    if (!c) return null;
    const osc = c.createOscillator();
    osc.frequency.value = 440;
    const g = c.createGain();
    g.gain.value = 0.2;
    const dest = c.createMediaStreamDestination();
    osc.connect(g);
    g.connect(dest);
    osc.start();
    toneTrack = dest.stream.getAudioTracks()[0];
    return toneTrack;
  }

  // updateSending puts the microphone (or the tone) on the sending line
  // while the player talks, and nothing otherwise.
  let onLine = null;
  function updateSending() {
    const now = performance.now();
    if (micLevel && micLevel() > VAD_LEVEL) voiceUntil = now + VAD_HANG_MS;
    let talking = false;
    switch (vo.mode) {
      case 'open': talking = true; break;
      case 'ptt': talking = held; break;
      case 'vad': talking = vo.tone || now < voiceUntil; break;
    }
    const track = talking && vo.speak ? (vo.tone ? tone() : micTrack) : null;
    vo.sending = !!track;
    if (track === onLine || !link) return;
    onLine = track;
    link.mic.sender.replaceTrack(track).catch(() => {});
    panelStatus();
  }

  vo.setMode = (m) => {
    if (['ptt', 'vad', 'open', 'off'].includes(m)) vo.mode = m;
    if (modeBox) modeBox.value = vo.mode;
    wantMic();
  };
  vo.setTone = (on) => {
    vo.tone = !!on;
    if (toneBox) toneBox.checked = vo.tone;
  };
  vo.mute = (player, on) => { vo.muted[player] = !!on; place(); listBuilt(); };
  vo.setVolume = (player, v) => { vo.volume[player] = Math.max(0, Math.min(1, +v || 0)); place(); };

  // isSpeaking reports whether the entity's player is heard speaking (or,
  // for the own entity, is sending): vkm.js marks it over the character.
  vo.isSpeaking = function (entity, isOwn) {
    if (isOwn) return vo.sending;
    return vo.slots.some((s) => s.entity === entity && vo.speaking[s.player]);
  };
  // speakingName reports whether a scoreboard row's player is speaking.
  vo.speakingName = function (name, isOwn) {
    if (isOwn) return vo.sending;
    return vo.slots.some((s) => s.name === name && vo.speaking[s.player]);
  };

  // ---- the side panel ----

  let modeBox = null, toneBox = null, status = null, list = null;
  function panel() {
    const side = document.getElementById('side');
    if (!side || modeBox) return;
    const sec = document.createElement('section');
    sec.id = 'voice-section';
    const h = document.createElement('h2');
    h.textContent = 'voice';
    modeBox = document.createElement('select');
    modeBox.id = 'voice-mode';
    modeBox.setAttribute('aria-label', 'how you talk');
    const ptt = 'push to talk (' + keys().map((k) => k.replace(/^Key/, '')).join(', ') + ')';
    for (const [v, label] of [['ptt', ptt], ['vad', 'voice activated'], ['open', 'open microphone'], ['off', 'off']]) {
      const o = document.createElement('option');
      o.value = v;
      o.textContent = label;
      modeBox.appendChild(o);
    }
    modeBox.addEventListener('change', () => vo.setMode(modeBox.value));
    const tl = document.createElement('label');
    toneBox = document.createElement('input');
    toneBox.type = 'checkbox';
    toneBox.id = 'voice-tone';
    toneBox.addEventListener('change', () => { vo.tone = toneBox.checked; });
    tl.append(toneBox, ' send a test tone');
    status = document.createElement('p');
    status.id = 'voice-status';
    list = document.createElement('ul');
    list.id = 'voice-list';
    list.setAttribute('aria-label', 'voices you hear');
    sec.append(h, modeBox, tl, status, list);
    const chat = document.getElementById('chat-section');
    side.insertBefore(sec, chat ? chat.nextSibling : side.firstChild);
    const cfg = web.config.voice || {};
    const want = params.get('voice');
    vo.setMode(want || (cfg.pushToTalk ? 'ptt' : 'vad'));
    vo.setTone(vo.tone);
    panelStatus();
    listBuilt();
  }

  function panelStatus() {
    if (!status) return;
    status.textContent = !vo.speak ? 'listening only' : vo.micError ? 'no microphone (' + vo.micError + ')' + (vo.tone ? '; tone ready' : '')
      : vo.sending ? (vo.tone ? 'sending the test tone' : 'talking') : 'not talking';
  }

  // listBuilt lists the voices heard, each with a mute box and a volume
  // slider; listShown marks who is speaking.
  function listBuilt() {
    if (!list) return;
    list.textContent = '';
    for (const s of vo.slots) {
      if (!s.player) continue;
      const li = document.createElement('li');
      li.dataset.player = s.player;
      const name = document.createElement('span');
      name.textContent = s.name || 'player ' + s.player;
      const mute = document.createElement('input');
      mute.type = 'checkbox';
      mute.checked = !!vo.muted[s.player];
      mute.title = 'mute';
      mute.setAttribute('aria-label', 'mute ' + name.textContent);
      mute.addEventListener('change', () => vo.mute(s.player, mute.checked));
      const vol = document.createElement('input');
      vol.type = 'range';
      vol.min = '0';
      vol.max = '1';
      vol.step = '0.05';
      vol.value = String(vo.volume[s.player] === undefined ? 1 : vo.volume[s.player]);
      vol.setAttribute('aria-label', 'volume of ' + name.textContent);
      vol.addEventListener('input', () => vo.setVolume(s.player, vol.value));
      li.append(name, ' ', mute, ' mute ', vol);
      list.appendChild(li);
    }
    listShown();
  }

  function listShown() {
    if (!list) return;
    for (const li of list.children) li.classList.toggle('speaking', !!vo.speaking[li.dataset.player]);
    panelStatus();
  }

  web.onVoice = attach;
  if (web.voice) attach(web.voice);
})();
