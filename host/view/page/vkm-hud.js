// The game's own HUD: the project's [[hud]] items (docs/project.md, "The
// HUD"), as the frame message's "hud" carries them filled in, drawn over
// the world. vkm.js calls vkmHUD.draw each animation frame. Plain script,
// no build step.
//
// window.vkmHUD.shown is what the latest draw put on screen, for tests and
// the console: {at, k, text, v, max, lines} per item; error is the script
// error the developer's banner shows ("" for none); notice the dev
// server's notice its other banner shows ("" for none).
//
// vkmHUD.drawErrors draws a developer's page's banner of this end's
// newest script errors (the frame's errors), over the bottom of the game;
// vkmHUD.drawNotice the dev server's notice (the frame's notice: a reload
// it refused, and why) above it.
(function () {
  'use strict';

  const MARGIN = 12; // CSS pixels from the canvas's edges
  const LINE = 24; // CSS pixels from one line to the next
  const BAR_W = 180, BAR_H = 14;

  // Where each place puts its column of items: the fraction of the width
  // and height it starts at, and the text's alignment.
  const PLACES = {
    'top-left': [0, 0, 'left'], top: [0.5, 0, 'center'], 'top-right': [1, 0, 'right'],
    left: [0, 0.5, 'left'], center: [0.5, 0.5, 'center'], right: [1, 0.5, 'right'],
    'bottom-left': [0, 1, 'left'], bottom: [0.5, 1, 'center'], 'bottom-right': [1, 1, 'right'],
  };

  const hud = { shown: [], error: '', notice: '' };
  window.vkmHUD = hud;

  // lines is how many lines an item takes.
  function lines(it) {
    if (it.k === 'list') return (it.text ? 1 : 0) + (it.lines || []).length;
    return 1;
  }

  hud.draw = function (g, canvas, items, dpr) {
    hud.shown = items || [];
    const byPlace = {};
    for (const it of hud.shown) {
      const at = PLACES[it.at] ? it.at : 'top-left';
      (byPlace[at] = byPlace[at] || []).push(it);
    }
    g.setTransform(1, 0, 0, 1, 0, 0);
    g.textBaseline = 'top';
    for (const at in byPlace) {
      const [fx, fy, align] = PLACES[at];
      const list = byPlace[at];
      const total = list.reduce((n, it) => n + lines(it), 0) * LINE * dpr;
      let x = fx * canvas.width + (fx === 0 ? 1 : fx === 1 ? -1 : 0) * MARGIN * dpr;
      let y = fy * (canvas.height - total) + (fy === 0 ? 1 : fy === 1 ? -1 : 0) * MARGIN * dpr;
      g.textAlign = align;
      for (const it of list) y = drawItem(g, it, x, y, align, dpr);
    }
  };

  hud.drawErrors = function (g, canvas, errors, count, dpr) {
    const list = Array.isArray(errors) ? errors : [];
    hud.error = list.length ? list[list.length - 1] : '';
    if (!list.length) return canvas.height - 28 * dpr;
    g.setTransform(1, 0, 0, 1, 0, 0);
    const pad = 8 * dpr, line = 18 * dpr;
    const h = pad * 2 + line * (list.length + 1);
    const y0 = canvas.height - h - 28 * dpr;
    g.fillStyle = 'rgba(120,16,16,0.88)';
    g.fillRect(pad, y0, canvas.width - 2 * pad, h);
    g.textAlign = 'left';
    g.textBaseline = 'top';
    g.fillStyle = '#ffffff';
    g.font = 'bold ' + Math.round(13 * dpr) + 'px system-ui, sans-serif';
    const n = Math.max(count || 0, list.length);
    g.fillText(n === 1 ? 'script error (the log has its traceback)' : n + ' script errors, the newest last (the log has their tracebacks)', 2 * pad, y0 + pad);
    g.font = Math.round(13 * dpr) + 'px ui-monospace, monospace';
    list.forEach((e, i) => g.fillText(e, 2 * pad, y0 + pad + line * (i + 1), canvas.width - 4 * pad));
    return y0;
  };

  // drawNotice draws the dev server's notice in a banner whose bottom is
  // at y (the error banner's top), its words wrapped to the canvas.
  hud.drawNotice = function (g, canvas, notice, dpr, bottom) {
    hud.notice = typeof notice === 'string' ? notice : '';
    if (!hud.notice) return;
    g.setTransform(1, 0, 0, 1, 0, 0);
    const pad = 8 * dpr, line = 18 * dpr, width = canvas.width - 4 * pad;
    g.font = Math.round(13 * dpr) + 'px ui-monospace, monospace';
    const lines = [];
    let cur = '';
    for (const w of hud.notice.split(' ')) {
      const next = cur ? cur + ' ' + w : w;
      if (cur && g.measureText(next).width > width) { lines.push(cur); cur = w; } else cur = next;
    }
    if (cur) lines.push(cur);
    lines.splice(6); // a compiler's message is a line or two; the log has the rest
    const h = pad * 2 + line * (lines.length + 1);
    const y0 = bottom - h - pad;
    g.fillStyle = 'rgba(130,90,10,0.9)';
    g.fillRect(pad, y0, canvas.width - 2 * pad, h);
    g.textAlign = 'left';
    g.textBaseline = 'top';
    g.fillStyle = '#ffffff';
    g.font = 'bold ' + Math.round(13 * dpr) + 'px system-ui, sans-serif';
    g.fillText('the dev server says', 2 * pad, y0 + pad);
    g.font = Math.round(13 * dpr) + 'px ui-monospace, monospace';
    lines.forEach((l, i) => g.fillText(l, 2 * pad, y0 + pad + line * (i + 1), width));
  };

  function text(g, s, x, y, size, color, dpr) {
    g.font = Math.round(size * dpr) + 'px system-ui, sans-serif';
    g.lineWidth = 3 * dpr;
    g.strokeStyle = 'rgba(0,0,0,0.6)';
    g.strokeText(s, x, y);
    g.fillStyle = color;
    g.fillText(s, x, y);
  }

  function drawItem(g, it, x, y, align, dpr) {
    const step = LINE * dpr;
    switch (it.k) {
      case 'bar': {
        const w = BAR_W * dpr, h = BAR_H * dpr;
        const left = align === 'left' ? x : align === 'right' ? x - w : x - w / 2;
        const v = typeof it.v === 'number' ? it.v : 0;
        const max = typeof it.max === 'number' && it.max > 0 ? it.max : 1;
        const f = Math.max(0, Math.min(1, v / max));
        g.fillStyle = 'rgba(0,0,0,0.5)';
        g.fillRect(left, y + 2 * dpr, w, h);
        g.fillStyle = f > 0.3 ? '#4fd08a' : '#ff6b5a';
        g.fillRect(left, y + 2 * dpr, w * f, h);
        g.strokeStyle = '#d8dce4';
        g.lineWidth = dpr;
        g.strokeRect(left, y + 2 * dpr, w, h);
        if (it.text) {
          const tx = align === 'right' ? left - 6 * dpr : left + w + 6 * dpr;
          const a = g.textAlign;
          g.textAlign = align === 'right' ? 'right' : 'left';
          text(g, it.text, tx, y, 14, '#ffffff', dpr);
          g.textAlign = a;
        }
        return y + step;
      }
      case 'list':
        if (it.text) { text(g, it.text, x, y, 13, '#8a93a6', dpr); y += step; }
        for (const l of it.lines || []) { text(g, l, x, y, 16, '#ffffff', dpr); y += step; }
        return y;
      default:
        text(g, it.text || '', x, y, 18, '#ffffff', dpr);
        return y + step;
    }
  }
})();
