// Looks that change as the game runs. A frame's "looks" ([id, colour,
// label, visible]) are the looks every end draws from the entities'
// replicated components (docs/project.md, "Looks that change"); a
// behavior's vkm.look event ({color, label, visible}, or {reset = true})
// changes the look of the entity that emitted it on this end alone
// (docs/lua.md). vkm.js calls vkmLooks.apply with each frame and
// vkmLooks.event with each vkm.look effect; it draws a body's color and
// label and skips a hidden one. Plain script, no build step.
//
// window.vkmLooks.local is the events' looks by entity id, for tests and
// the console.
(function () {
  'use strict';

  const local = new Map();
  window.vkmLooks = { local };

  window.vkmLooks.event = function (f, id) {
    if (!id) return;
    if (f.reset === true) { local.delete(id); return; }
    const l = local.get(id) || {};
    if (typeof f.color === 'string') l.color = f.color;
    if (typeof f.label === 'string') l.label = f.label;
    if (typeof f.visible === 'boolean') l.visible = f.visible;
    local.set(id, l);
  };

  // apply sets each scene body's color, label and hidden for frame m:
  // the scene's look, then the frame's, then this end's events'.
  window.vkmLooks.apply = function (scene, m) {
    const dyn = new Map();
    for (const d of Array.isArray(m.looks) ? m.looks : []) if (Array.isArray(d)) dyn.set(d[0], d);
    if (!dyn.size && !local.size && !scene.changed) return;
    scene.changed = dyn.size > 0 || local.size > 0; // so that a look's end is drawn too
    for (const [id, b] of scene) {
      if (!b.base) b.base = { color: b.color, label: b.label };
      let color = b.base.color, label = b.base.label, hidden = false, st = '';
      const d = dyn.get(id);
      if (d) {
        if (typeof d[1] === 'string' && d[1]) color = d[1];
        if (typeof d[2] === 'string' && d[2]) label = d[2];
        hidden = d[3] === false;
        if (typeof d[4] === 'string') st = d[4];
      }
      const l = local.get(id);
      if (l) {
        if (l.color !== undefined) color = l.color;
        if (l.label !== undefined) label = l.label;
        if (l.visible !== undefined) hidden = !l.visible;
      }
      b.color = color;
      b.label = label;
      b.hidden = hidden;
      b.state = st;
    }
  };
})();
