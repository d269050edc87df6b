// Sprites: PNG images from the project folder drawn for entities instead
// of their shapes (docs/project.md, "Sprites"), one frame of a sprite
// sheet at a time, animated by named states. Images load from /asset/PATH;
// until one has loaded (or when it fails) the entity's shapes are drawn.
// Under a dev server the images are fetched again after each reload.
// vkm.js calls vkmSprites.draw for a body with a sprite, in world
// coordinates, and vkmSprites.reloaded when the scripts were reloaded.
// Plain script, no build step.
//
// window.vkmSprites exposes, for tests and the console: drawn (sprites
// drawn in the latest animation frame, by image path), failed (images that
// did not load), the local states set by vkm.look events (state) and
// frameOf(body, id, ms) (the sheet frame a body shows at a time).
(function () {
  'use strict';

  const images = new Map(); // url → {img, ok, failed}
  let version = 0;
  const sp = { drawn: {}, failed: [], state: new Map() };
  window.vkmSprites = sp;

  function image(path) {
    const url = '/asset/' + path.split('/').map(encodeURIComponent).join('/') + (version ? '?v=' + version : '');
    let e = images.get(url);
    if (!e && typeof Image === 'function') {
      const img = new Image();
      e = { img, ok: false };
      img.onload = () => { e.ok = true; };
      img.onerror = () => { if (!sp.failed.includes(path)) sp.failed.push(path); };
      img.src = url;
      images.set(url, e);
    }
    return e;
  }

  sp.reloaded = function () {
    version++;
    images.clear();
  };

  // frameOf returns the sheet frame body's sprite shows at ms, its state
  // the frame's look's (looks state), this end's vkm.look, or its own.
  sp.frameOf = function (body, id, ms) {
    const s = body.sprite;
    const name = sp.state.get(id) || body.state || s.anim;
    const list = name && s.anims && s.anims[name];
    if (!list || !list.length) return s.frame || 0;
    const fps = s.fps > 0 ? s.fps : 8;
    return list[Math.floor(ms / 1000 * fps) % list.length];
  };

  sp.beginFrame = function () { sp.drawn = {}; };

  // draw draws body's sprite at pose (x, y, angle a, scale k) with g in
  // world coordinates (y up); it returns false when the image is not
  // there yet, for the caller to draw the shapes.
  sp.draw = function (g, body, id, x, y, a, k, ms) {
    const s = body.sprite;
    const e = image(s.image);
    if (!e || !e.ok) return false;
    const img = e.img;
    const cols = Math.max(1, s.cols | 0), rows = Math.max(1, s.rows | 0);
    const fw = img.naturalWidth / cols, fh = img.naturalHeight / rows;
    const f = sp.frameOf(body, id, ms);
    const sx = (f % cols) * fw, sy = Math.floor(f / cols) % rows * fh;
    const w = s.w > 0 ? s.w : 1, h = s.h > 0 ? s.h : 1;
    g.save();
    g.translate(x, y);
    g.rotate(a || 0);
    g.scale(k, k);
    g.translate(s.x || 0, s.y || 0);
    g.rotate(s.a || 0);
    g.scale(1, -1); // the image's rows run down; the world's y runs up
    g.drawImage(img, sx, sy, fw, fh, -w / 2, -h / 2, w, h);
    g.restore();
    sp.drawn[s.image] = (sp.drawn[s.image] || 0) + 1;
    return true;
  };

  sp.event = function (f, id) {
    if (typeof f.state === 'string') sp.state.set(id, f.state);
    if (f.reset === true) sp.state.delete(id);
  };
})();
