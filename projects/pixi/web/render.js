// The coin yard drawn with PixiJS: a project's own renderer
// (docs/project.md, "Your own renderer"). The page loads this script from
// the project folder; it loads PixiJS (web/pixi.min.js, the library's
// browser bundle as npm ships it, with its licence in web/LICENSE.pixi.txt)
// and the library's own module for pages that allow no eval
// (web/pixi-unsafe-eval.min.js: the page's content security policy allows
// none), and hands the page a renderer whose draw(view) the page calls
// every animation frame.
//
// Pixi keeps a scene graph, so each entity is a container made once, when
// the entity first appears, from its shapes or its sprite; each frame only
// moves it to the entity's interpolated pose, sets its colour, label and
// visibility from its look, and removes the containers of entities that are
// gone. Pixi draws the stage on a canvas of its own (WebGL where the
// browser has it, else a 2D canvas), which is then copied onto the page's
// canvas; the page draws its HUD, scoreboard and panels over it.
//
// window.pixiYard tells a test or the console what was drawn: frames,
// entities (in the latest view), children (the stage's), sprites (entities
// drawn from an image), labels, the renderer Pixi chose, and failed (why
// PixiJS could not start, "" when it did).
(function () {
  'use strict';

  const out = { frames: 0, entities: 0, children: 0, sprites: 0, labels: 0, renderer: '', failed: '' };
  window.pixiYard = out;

  const asset = (path) => '/asset/' + path.split('/').map(encodeURIComponent).join('/');

  // load adds the project's scripts to the page one after another, then
  // calls done.
  function load(paths, done) {
    if (!paths.length) return done();
    const el = document.createElement('script');
    el.src = asset(paths[0]);
    el.onload = () => load(paths.slice(1), done);
    el.onerror = () => { out.failed = paths[0] + ' did not load'; };
    document.head.appendChild(el);
  }
  load(['web/pixi.min.js', 'web/pixi-unsafe-eval.min.js'], () => start().catch((e) => { out.failed = String(e); console.error('pixi yard:', e); }));

  async function start() {
    const PIXI = window.PIXI;
    const app = new PIXI.Application();
    await app.init({ width: 16, height: 16, background: '#1f2a1c', antialias: true, autoStart: false, autoDensity: false });
    out.renderer = app.renderer.name;
    const world = new PIXI.Container(); // metres, y up; moved and scaled to the camera
    app.stage.addChild(world);
    const shown = new Map(); // entity id → {box, body, gfx, sprite, label}
    const textures = new Map(); // image path → a promise of its texture

    // texture loads an image of the project's as a texture. Through an
    // <img> rather than PIXI.Assets, whose loader decodes in a worker made
    // from a blob: URL, which the page's content security policy refuses.
    function texture(path) {
      let t = textures.get(path);
      if (!t) {
        t = new Promise((resolve, reject) => {
          const img = new Image();
          img.onload = () => resolve(PIXI.Texture.from(img));
          img.onerror = () => reject(new Error(path + ' did not load'));
          img.src = asset(path);
        });
        textures.set(path, t);
      }
      return t;
    }

    const colour = (c, fallback) => (typeof c === 'string' && c ? c : fallback);
    const ROLE = { own: '#ffd34d', player: '#ff7a59' };
    const KIND = { static: '#5a4630', dynamic: '#b0844f', kinematic: '#5f8fb0' };

    // shapes draws a body's shapes into g, in the body's frame (metres).
    function shapes(g, body) {
      const fill = colour(body.color, ROLE[body.role] || KIND[body.kind] || '#8a8f99');
      for (const s of body.shapes || []) {
        if (s.k === 'circle') g.circle(s.x, s.y, s.r);
        else if (s.k === 'box') {
          const c = Math.cos(s.a || 0), n = Math.sin(s.a || 0);
          const pts = [];
          for (const [u, v] of [[-s.hx, -s.hy], [s.hx, -s.hy], [s.hx, s.hy], [-s.hx, s.hy]]) pts.push(s.x + u * c - v * n, s.y + u * n + v * c);
          g.poly(pts, true);
        } else if (s.k === 'polygon' || s.k === 'chain') {
          g.poly((s.p || []).flatMap(([x, y]) => [s.x + x, s.y + y]), s.k === 'polygon' || s.loop);
        } else continue;
        if (s.k === 'chain') g.stroke({ width: 0.1, color: fill });
        else if (s.sensor) g.stroke({ width: 0.05, color: fill, alpha: 0.8 });
        else g.fill({ color: fill });
      }
    }

    // make builds an entity's container: its sprite when it has one (the
    // shapes until the image has loaded), its shapes otherwise, and a label.
    function make(e) {
      const box = new PIXI.Container();
      const it = { box, body: e.body, gfx: new PIXI.Graphics(), sprite: null, label: null, frames: null };
      shapes(it.gfx, e.body || {});
      box.addChild(it.gfx);
      const s = e.body && e.body.sprite;
      if (s) {
        texture(s.image).then((tex) => {
          const cols = Math.max(1, s.cols | 0), rows = Math.max(1, s.rows | 0);
          const fw = tex.width / cols, fh = tex.height / rows;
          it.frames = [];
          for (let i = 0; i < cols * rows; i++) {
            it.frames.push(new PIXI.Texture({ source: tex.source, frame: new PIXI.Rectangle((i % cols) * fw, Math.floor(i / cols) * fh, fw, fh) }));
          }
          const sp = new PIXI.Sprite(it.frames[0]);
          sp.anchor.set(0.5);
          sp.position.set(s.x || 0, s.y || 0);
          sp.rotation = s.a || 0;
          sp.width = s.w > 0 ? s.w : 1;
          sp.scale.y = -(s.h > 0 ? s.h : 1) / fh; // the image's rows run down; the world's y runs up
          it.sprite = sp;
          box.removeChild(it.gfx);
          box.addChild(sp);
        }, () => {}); // a missing image leaves the shapes
      }
      world.addChild(box);
      return it;
    }

    function frameOf(body, id, ms) {
      const s = body.sprite;
      const local = window.vkmSprites && window.vkmSprites.state.get(id);
      const name = local || body.state || s.anim;
      const list = name && s.anims && s.anims[name];
      if (!list || !list.length) return s.frame || 0;
      return list[Math.floor(ms / 1000 * (s.fps > 0 ? s.fps : 8)) % list.length];
    }

    const page = { g: null };
    vkm.useRenderer({
      hud: false, // the page's HUD, drawn over Pixi's picture
      draw(view) {
        const w = view.canvas.width, h = view.canvas.height;
        if (app.renderer.width !== w || app.renderer.height !== h) app.renderer.resize(w, h);
        const cam = view.camera;
        world.position.set(w / 2 - cam.x * cam.ppm, h / 2 + cam.y * cam.ppm);
        world.scale.set(cam.ppm, -cam.ppm);
        const seen = new Set();
        const ms = performance.now();
        let sprites = 0, labels = 0;
        for (const e of view.entities) {
          seen.add(e.id);
          let it = shown.get(e.id);
          if (it && it.body !== e.body) { // a new scene: the entity's shapes may differ
            world.removeChild(it.box);
            it.box.destroy({ children: true });
            it = null;
          }
          if (!it) {
            it = make(e);
            shown.set(e.id, it);
          }
          const b = e.body || {};
          it.box.position.set(e.x, e.y);
          it.box.rotation = e.angle;
          it.box.scale.set(e.scale);
          it.box.visible = !b.hidden;
          if (it.sprite) {
            sprites++;
            it.sprite.texture = it.frames[frameOf(b, e.id, ms) % it.frames.length];
          }
          if (b.label) {
            if (!it.label) {
              it.label = new PIXI.Text({ text: '', style: { fill: '#f4f1e8', fontSize: 28, fontFamily: 'system-ui, sans-serif' } });
              it.label.anchor.set(0.5, 1);
              it.label.scale.set(1 / 48, -1 / 48);
              it.label.position.set(0, 0.75);
              it.box.addChild(it.label);
            }
            if (it.label.text !== b.label) it.label.text = b.label;
            labels++;
          } else if (it.label) it.label.text = '';
        }
        for (const [id, it] of shown) {
          if (!seen.has(id)) {
            world.removeChild(it.box);
            it.box.destroy({ children: true });
            shown.delete(id);
          }
        }
        app.renderer.render(app.stage);
        if (!page.g) page.g = view.canvas.getContext('2d');
        page.g.setTransform(1, 0, 0, 1, 0, 0);
        page.g.drawImage(app.canvas, 0, 0);
        out.frames++;
        out.entities = view.entities.length;
        out.children = world.children.length;
        out.sprites = sprites;
        out.labels = labels;
      },
    });
  }
})();
