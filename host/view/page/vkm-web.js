// The browser client's start: served by `vkmd --web` before vkm.js, which
// then draws for a client running in this tab instead of one behind the
// WebSocket at /ws. It fetches the project and compiles the client
// (WebAssembly), then opens the link to the server, and runs the client at
// once with both in window.vkmWeb (cmd/webclient describes it). The link is
// the first of these that opens within RTC_TIMEOUT_MS: a WebTransport
// session's datagrams (HTTP/3, where the browser has WebTransport and the
// project has no voice, which rides on WebRTC), a WebRTC data channel, the
// WebSocket at /vkm/ws.
//
// The address may carry ?name=NAME (the player's name; "web" when absent)
// and #token=TEXT (a connect token's text form, from the game's backend or
// `vkmd token`). ?net=rtc skips WebTransport, ?net=ws skips WebTransport
// and WebRTC. ?guests=N (1 to 7) seats N more
// players on this tab's connection, on the split keyboard and gamepads.
// ?watch=1 joins as a spectator: no seat, no entity, the camera on the
// player it follows (&follow=N).
//
// window.vkmWeb exposes, for tests and the console: transport
// ("webtransport", "webrtc" or "websocket", once connected), wtFailure and
// rtcFailure (why WebTransport, WebRTC was not used),
// status (what it is doing, or why it stopped), datagramsIn and
// datagramsOut (counted on the link) and stats() (the client's report and
// frame figures, JSON text, once it runs) and leave() (says goodbye to the
// server; the page calls it when the tab closes), and lanGames (what the
// side panel's "Search LAN" last found, from /vkm/lan). With [voice] in
// the project: voice ({pc, mic, slots}, the peer connection and its audio
// transceivers) once WebRTC connects, which vkm-voice.js plays (onVoice).
(function () {
  'use strict';

  const RTC_TIMEOUT_MS = 5000;
  const params = new URLSearchParams(location.search);

  // fragment returns the fragment's value for key (#key=value&...),
  // percent-decoded but with "+" kept: a token's text form is standard
  // base64, whose "+" URLSearchParams would turn into a space.
  function fragment(key) {
    for (const part of location.hash.slice(1).split('&')) {
      const i = part.indexOf('=');
      if (i > 0 && part.slice(0, i) === key) {
        try {
          return decodeURIComponent(part.slice(i + 1));
        } catch (e) {
          return part.slice(i + 1);
        }
      }
    }
    return '';
  }

  const web = {
    transport: '',
    wtFailure: '',
    rtcFailure: '',
    datagramsIn: 0,
    datagramsOut: 0,
    status: 'starting',
    config: { name: params.get('name') || 'web', token: fragment('token'), dev: false, seed: 0,
      guests: Math.max(0, Math.min(7, parseInt(params.get('guests') || '0', 10) || 0)),
      watch: params.get('watch') === '1', follow: Number(params.get('follow')) || 0 },
    project: null,
    // Set by the page's drawing code: a message for it, and whether it
    // has drawn the last frame it was given (the client hands it no other
    // until it has).
    toPage: null,
    drawn: true,
    // Set by the client: datagrams, the link's end, a page message, the figures.
    onDatagrams: null,
    onNetClose: null,
    fromPage: null,
    stats: null,
    leave: null,
    sendDatagram: null,
    lanGames: [],
    failed: (why) => { web.status = 'stopped: ' + why; },
  };
  window.vkmWeb = web;

  async function fetchOK(url) {
    const r = await fetch(url, { cache: 'no-cache' });
    if (!r.ok) throw new Error(url + ': ' + r.status + ' ' + (await r.text()).slice(0, 200));
    return r;
  }

  // rtc opens the data channel: an offer with every candidate gathered
  // (no trickling), posted to /vkm/offer, the answer taken. It resolves
  // with the open channel or rejects with the reason.
  async function rtc() {
    const pc = new RTCPeerConnection({ iceServers: [] });
    const dc = pc.createDataChannel('vkm', { ordered: false, maxRetransmits: 0 });
    dc.binaryType = 'arraybuffer';
    // With [voice], one audio line to send on and eight to hear on, all
    // offered now: the server switches whose voice each carries without
    // a new offer (vkm-voice.js).
    const voice = web.config.voice ? {
      pc, mic: pc.addTransceiver('audio', { direction: 'sendonly' }),
      slots: Array.from({ length: 8 }, () => pc.addTransceiver('audio', { direction: 'recvonly' })),
    } : null;
    const opened = new Promise((resolve, reject) => {
      dc.onopen = () => resolve();
      dc.onclose = () => reject(new Error('the data channel closed before it opened'));
      pc.onconnectionstatechange = () => {
        if (pc.connectionState === 'failed') reject(new Error('ICE failed: no candidate pair connected'));
      };
    });
    await pc.setLocalDescription(await pc.createOffer());
    await new Promise((resolve) => {
      if (pc.iceGatheringState === 'complete') return resolve();
      pc.addEventListener('icegatheringstatechange', () => {
        if (pc.iceGatheringState === 'complete') resolve();
      });
    });
    const r = await fetch('/vkm/offer', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ type: 'offer', sdp: pc.localDescription.sdp }),
    });
    if (!r.ok) throw new Error('/vkm/offer: ' + r.status + ' ' + (await r.text()).slice(0, 200));
    await pc.setRemoteDescription(await r.json());
    try {
      await within(opened, 'the data channel', () => {});
    } catch (e) {
      pc.close();
      throw e;
    }
    if (voice) {
      web.voice = voice;
      if (web.onVoice) web.onVoice(voice);
    }
    return {
      send: (b) => { if (dc.readyState === 'open') dc.send(b); },
      listen: (onMessage, onClose) => {
        dc.onmessage = (ev) => onMessage(new Uint8Array(ev.data));
        dc.onclose = () => onClose('the data channel closed');
        pc.onconnectionstatechange = () => {
          if (pc.connectionState === 'failed' || pc.connectionState === 'closed') onClose('the peer connection ' + pc.connectionState);
        };
      },
    };
  }

  // within rejects p's wait after RTC_TIMEOUT_MS, calling onLate first.
  async function within(p, what, onLate) {
    let timer;
    try {
      return await Promise.race([p, new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(what + ' not open within ' + RTC_TIMEOUT_MS + ' ms')), RTC_TIMEOUT_MS);
      })]);
    } catch (e) {
      onLate();
      throw e;
    } finally {
      clearTimeout(timer);
    }
  }

  // wt opens a WebTransport session: its port and its certificate's hash
  // (the server's own, valid under two weeks, which the browser takes by
  // that hash) from /vkm/webtransport, then one datagram per vkm datagram.
  async function wt() {
    const info = await (await fetchOK('/vkm/webtransport')).json();
    const hash = Uint8Array.from(atob(info.hash), (c) => c.charCodeAt(0));
    const t = new WebTransport('https://' + location.hostname + ':' + info.port + '/vkm/wt', {
      serverCertificateHashes: [{ algorithm: 'sha-256', value: hash }],
    });
    t.closed.catch(() => {});
    await within(t.ready, 'the WebTransport session', () => t.close());
    // A path too narrow for the client's largest datagram (its Hello)
    // would lose it every time: WebRTC then.
    if (t.datagrams.maxDatagramSize < 1200) {
      t.close();
      throw new Error('datagrams of ' + t.datagrams.maxDatagramSize + ' bytes at most');
    }
    const writer = t.datagrams.writable.getWriter();
    const reader = t.datagrams.readable.getReader();
    return {
      // The client reuses the buffer it hands over, and a write may be
      // taken later: a copy is written.
      send: (b) => { writer.write(b.slice()).catch(() => {}); },
      listen: (onMessage, onClose) => {
        (async () => {
          for (;;) {
            const { value, done } = await reader.read();
            if (done) return;
            onMessage(value);
          }
        })().catch(() => {});
        t.closed.then((c) => onClose('the WebTransport session closed (' + c.closeCode + ' ' + c.reason + ')'),
          (e) => onClose('the WebTransport session failed: ' + String(e && e.message || e)));
      },
    };
  }

  // ws opens the WebSocket fall-back: one binary message per datagram.
  function ws() {
    return new Promise((resolve, reject) => {
      const proto = location.protocol === 'https:' ? 'wss://' : 'ws://';
      const sock = new WebSocket(proto + location.host + '/vkm/ws');
      sock.binaryType = 'arraybuffer';
      sock.onerror = () => reject(new Error('the WebSocket at /vkm/ws did not open'));
      sock.onopen = () => resolve({
        send: (b) => { if (sock.readyState === 1) sock.send(b); },
        listen: (onMessage, onClose) => {
          sock.onmessage = (ev) => { if (ev.data instanceof ArrayBuffer) onMessage(new Uint8Array(ev.data)); };
          sock.onclose = (ev) => onClose('the WebSocket closed (' + ev.code + ')');
        },
      });
    });
  }

  async function link() {
    const net = params.get('net');
    if (net === 'ws' || net === 'rtc') {
      web.wtFailure = 'not asked for (?net=' + net + ')';
    } else if (typeof WebTransport !== 'function') {
      web.wtFailure = 'this browser has no WebTransport';
    } else if (web.config.voice) {
      web.wtFailure = 'the voice rides on WebRTC';
    } else {
      try {
        const l = await wt();
        web.transport = 'webtransport';
        return l;
      } catch (e) {
        web.wtFailure = String(e && e.message || e);
        console.warn('vkm: WebTransport did not connect (' + web.wtFailure + '); trying WebRTC');
      }
    }
    if (net !== 'ws' && typeof RTCPeerConnection === 'function') {
      try {
        const l = await rtc();
        web.transport = 'webrtc';
        return l;
      } catch (e) {
        web.rtcFailure = String(e && e.message || e);
        console.warn('vkm: WebRTC did not connect (' + web.rtcFailure + '); using the WebSocket');
      }
    } else {
      web.rtcFailure = typeof RTCPeerConnection === 'function' ? 'not asked for (?net=ws)' : 'this browser has no WebRTC';
    }
    const l = await ws();
    web.transport = 'websocket';
    return l;
  }

  async function start() {
    const wasm = fetchOK('/vkm/client.wasm');
    web.status = 'loading the project';
    const [cfg, zip] = await Promise.all([
      fetchOK('/vkm/web.json').then((r) => r.json()),
      fetchOK('/vkm/project.zip').then((r) => r.arrayBuffer()),
    ]);
    web.config.dev = !!cfg.dev;
    web.config.voice = cfg.voice || null;
    web.project = new Uint8Array(zip);
    // The client is compiled before the link opens: the server closes a
    // link the handshake has not welcomed within a few seconds
    // (web.DefaultWelcomeTimeout), and the client is megabytes, which a
    // dev server builds on its first request.
    web.status = 'loading the client';
    const go = new Go();
    const { instance } = await WebAssembly.instantiateStreaming(wasm, go.importObject);
    web.status = 'connecting';
    const l = await link();
    web.sendDatagram = (b) => { web.datagramsOut++; l.send(b); };
    // Datagrams reach the client in batches: all those that arrived while
    // the tab was busy, in one call, so that a client fallen behind sees
    // how far (see host.PlayInPage).
    const pending = [];
    const flush = new MessageChannel();
    flush.port1.onmessage = () => {
      const list = pending.splice(0);
      if (web.onDatagrams) web.onDatagrams(list);
    };
    l.listen((b) => {
      web.datagramsIn++;
      pending.push(b);
      if (pending.length === 1) flush.port2.postMessage(0);
    }, (why) => { if (web.onNetClose) web.onNetClose(why); });
    web.status = 'playing';
    // A tab that closes (or leaves for another page) says goodbye, so its
    // seat frees at once rather than when the rejoin window ends.
    addEventListener('pagehide', () => { if (web.leave) web.leave(); });
    await go.run(instance);
    if (web.status === 'playing') web.status = 'stopped';
  }

  // The "Search LAN" list, at the top of the side panel: the server
  // searches its network for games (a page cannot broadcast) at
  // /vkm/lan, and the page lists what answered. A browser plays only the
  // server whose page this is, through its web listener, and a LAN
  // answer names a game's UDP port alone, so choosing a game shows the
  // command that joins it from the native client.
  function lanSection() {
    const side = document.getElementById('side');
    if (!side) return;
    const sec = document.createElement('section');
    sec.id = 'lan-section';
    sec.innerHTML = '<h2>games on the LAN</h2>' +
      '<button id="lan-search" type="button">Search LAN</button> <span id="lan-status"></span>' +
      '<ul id="lan-list" aria-label="games on the LAN"></ul>' +
      '<p id="lan-join" hidden>A browser plays this server only. Join that one with <code></code></p>';
    side.insertBefore(sec, side.firstChild);
    const status = sec.querySelector('#lan-status');
    const list = sec.querySelector('#lan-list');
    const join = sec.querySelector('#lan-join');
    sec.querySelector('#lan-search').addEventListener('click', async () => {
      status.textContent = 'searching…';
      try {
        const r = await fetch('/vkm/lan', { cache: 'no-store' });
        if (!r.ok) {
          status.textContent = r.status === 404 ? 'this server does not search the LAN (vkmd --lan=false)' : (await r.text()).slice(0, 200);
          return;
        }
        const games = (await r.json()).games || [];
        list.replaceChildren();
        for (const g of games) {
          const li = document.createElement('li');
          const b = document.createElement('button');
          b.type = 'button';
          // Names come from the network: text only, never markup.
          b.textContent = g.addr + ' ' + g.project + ' ' + g.players + '/' + g.seats + (g.key ? ' key' : '');
          b.addEventListener('click', () => {
            join.hidden = false;
            join.querySelector('code').textContent = 'client ' + g.project + ' --connect ' + g.addr;
          });
          li.append(b);
          list.append(li);
        }
        status.textContent = games.length ? games.length + ' found' : 'none answered';
        web.lanGames = games;
      } catch (e) {
        status.textContent = String(e && e.message || e);
      }
    });
  }
  lanSection();

  start().catch((e) => {
    web.status = 'stopped: ' + String(e && e.message || e);
    console.error('vkm:', e);
  });
})();
