// The camera: how the page frames the world (docs/project.md, [camera]).
// It follows the own entity, looks at a fixed point, or holds a box (or
// the whole level) on screen, each within the project's zoom limits; the
// mouse wheel zooms a following or fixed camera. A behavior changes it
// with self:emit("vkm.camera", {...}) (docs/lua.md, "The camera"). vkm.js
// calls vkmCamera.hello with the hello message, vkmCamera.event with each
// vkm.camera effect, and vkmCamera.update each frame. Plain script, no
// build step.
//
// window.vkmCamera exposes, for tests and the console: mode, center,
// box, width (metres across before the wheel's zoom), minWidth, maxWidth,
// follow (the entity a behavior made it follow, or 0 for the own one),
// zoom (the wheel's factor) and shown ({x, y, width, height}: the world
// rectangle the latest frame showed).
(function () {
  'use strict';

  const MIN_W = 1, MAX_W = 8192; // project.MaxViewWidth
  const WHEEL_STEP = 1.1;
  const num = (v) => typeof v === 'number' && Number.isFinite(v);

  const c = {
    mode: 'follow', center: { x: 0, y: 0 }, box: null, width: 32, minWidth: 0, maxWidth: 0,
    follow: 0, zoom: 1, shown: null,
  };
  window.vkmCamera = c;

  function limits() {
    const lo = c.minWidth > 0 ? c.minWidth : MIN_W;
    const hi = c.maxWidth > 0 ? Math.max(c.maxWidth, lo) : MAX_W;
    return [lo, hi];
  }
  const clampW = (w) => { const [lo, hi] = limits(); return Math.min(hi, Math.max(lo, w)); };

  function setFrom(m) {
    if (['follow', 'fixed', 'fit'].includes(m.mode)) c.mode = m.mode;
    if (Array.isArray(m.center) && num(m.center[0]) && num(m.center[1])) c.center = { x: m.center[0], y: m.center[1] };
    if (Array.isArray(m.box) && m.box.length === 4 && m.box.every(num)) c.box = { minX: m.box[0], minY: m.box[1], maxX: m.box[2], maxY: m.box[3] };
    if (num(m.min_width)) c.minWidth = m.min_width;
    if (num(m.max_width)) c.maxWidth = m.max_width;
  }

  c.hello = function (m, viewWidth) {
    c.width = viewWidth;
    c.mode = 'follow'; c.box = null; c.follow = 0; c.zoom = 1; c.minWidth = 0; c.maxWidth = 0;
    if (m.camera && typeof m.camera === 'object') setFrom(m.camera);
  };

  // event takes a vkm.camera effect's fields f, emitted by entity id:
  // mode, x and y (a fixed camera's centre), x1, y1, x2, y2 (a fit
  // camera's box; none: the level), width, min_width, max_width, and
  // follow = true to follow the emitting entity (false: the own one).
  c.event = function (f, id) {
    const m = { mode: f.mode, min_width: f.min_width, max_width: f.max_width };
    if (num(f.x) && num(f.y)) m.center = [f.x, f.y];
    if ([f.x1, f.y1, f.x2, f.y2].every(num)) m.box = [Math.min(f.x1, f.x2), Math.min(f.y1, f.y2), Math.max(f.x1, f.x2), Math.max(f.y1, f.y2)];
    else if (f.mode === 'fit') c.box = null;
    setFrom(m);
    if (num(f.width) && f.width > 0) c.width = f.width;
    if (f.follow === true) c.follow = id || 0;
    else if (f.follow === false || f.mode) c.follow = 0;
  };

  c.wheel = function (deltaY) {
    if (c.mode === 'fit' || !deltaY) return;
    const w = clampW(c.width * c.zoom * (deltaY > 0 ? WHEEL_STEP : 1 / WHEEL_STEP));
    c.zoom = w / c.width;
  };

  // update sets cam ({x, y, ppm}) for a canvas of w × h pixels: at is the
  // pose of an entity by id ({x, y} or null), own the own entity's,
  // level() the level's bounds or null.
  c.update = function (cam, w, h, own, at, level) {
    let width;
    switch (c.mode) {
      case 'fit': {
        const b = c.box || level();
        if (b) {
          const bw = Math.max(b.maxX - b.minX, 0.01), bh = Math.max(b.maxY - b.minY, 0.01);
          width = clampW(Math.max(bw, bh * w / h));
          cam.x = (b.minX + b.maxX) / 2;
          cam.y = (b.minY + b.maxY) / 2;
        } else {
          width = clampW(c.width);
        }
        break;
      }
      case 'fixed':
        width = clampW(c.width * c.zoom);
        cam.x = c.center.x;
        cam.y = c.center.y;
        break;
      default: {
        width = clampW(c.width * c.zoom);
        const p = (c.follow && at(c.follow)) || own;
        if (p) { cam.x = p.x; cam.y = p.y; }
      }
    }
    cam.ppm = Math.max(w / width, 0.01);
    c.shown = { x: cam.x, y: cam.y, width: w / cam.ppm, height: h / cam.ppm };
  };
})();
