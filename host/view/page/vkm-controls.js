// The controls overlay: the project's input actions with readable key
// names ("A", "←", "Space", "left mouse"), shown over the game when it
// starts and toggled with ? (the Slash key) unless the game binds it.
// vkm.js calls vkmControls.setActions with the hello message and
// vkmControls.onKey with each key that goes down. Plain script, no build
// step.
//
// window.vkmControls exposes, for tests and the console: lines (the
// overlay's lines), visible, and keyName(code), the readable name of a
// KeyboardEvent.code.
(function () {
  'use strict';

  const TOGGLE = 'Slash';
  const HIDE_AFTER_MS = 12000; // the overlay at the start goes by itself

  const NAMES = {
    ArrowLeft: '\u2190', ArrowRight: '\u2192', ArrowUp: '\u2191', ArrowDown: '\u2193',
    Space: 'Space', Enter: 'Enter', Escape: 'Esc', Backspace: 'Backspace', Tab: 'Tab',
    ShiftLeft: 'Shift', ShiftRight: 'right Shift', ControlLeft: 'Ctrl', ControlRight: 'right Ctrl',
    AltLeft: 'Alt', AltRight: 'AltGr', MetaLeft: 'Meta', MetaRight: 'right Meta',
    Backquote: '`', Minus: '-', Equal: '=', BracketLeft: '[', BracketRight: ']', Backslash: '\\',
    Semicolon: ';', Quote: "'", Comma: ',', Period: '.', Slash: '/',
    PageUp: 'Page Up', PageDown: 'Page Down', CapsLock: 'Caps Lock',
  };

  // keyName is how a player reads a KeyboardEvent.code: "KeyA" is A,
  // "Digit1" 1, "Numpad4" numpad 4, "ArrowLeft" ←.
  function keyName(code) {
    if (NAMES[code]) return NAMES[code];
    let m = /^Key([A-Z])$/.exec(code);
    if (m) return m[1];
    m = /^Digit([0-9])$/.exec(code);
    if (m) return m[1];
    m = /^Numpad(.+)$/.exec(code);
    if (m) return 'numpad ' + m[1].toLowerCase();
    return code;
  }

  const c = { lines: [], visible: false, keyName };
  window.vkmControls = c;

  let el = null;
  let timer = 0;
  let bound = new Set();
  let shownOnce = false; // the overlay shows by itself at the first actions only

  function overlay() {
    if (el || typeof document.createElement !== 'function' || !document.body) return el;
    el = document.createElement('div');
    el.id = 'controls';
    el.setAttribute && el.setAttribute('aria-label', 'controls');
    const s = el.style || {};
    Object.assign(s, {
      position: 'fixed', left: '40%', top: '50%', transform: 'translate(-50%, -50%)', padding: '10px 14px', background: 'rgba(10,12,16,0.82)',
      border: '1px solid #2a2f3a', borderRadius: '6px', color: '#d8dce4', font: '14px/1.6 system-ui, sans-serif',
      pointerEvents: 'none', whiteSpace: 'pre',
    });
    document.body.appendChild(el);
    return el;
  }

  function render() {
    const o = overlay();
    if (!o) return;
    o.textContent = ['controls', ...c.lines, bound.has(TOGGLE) ? '' : '? shows and hides this'].filter(Boolean).join('\n');
    o.hidden = !c.visible;
    if (o.style) o.style.display = c.visible ? 'block' : 'none';
  }

  // lines are the actions' readable bindings, axes first.
  function linesOf(m) {
    const out = [];
    const keys = (list) => (list || []).map(keyName).join(' / ');
    for (const a of m.axes || []) {
      if (a.mouse === 'point_x' || a.mouse === 'point_y') out.push(a.name + ': the mouse (where it points)');
      else if (a.mouse) out.push(a.name + ': the mouse (aim)');
      else out.push(a.name + ': ' + keys(a.negative) + '  \u2212  \u00b7  +  ' + keys(a.positive));
    }
    for (const b of m.buttons || []) {
      const ks = (b.keys || []).map(keyName);
      if (b.mouse) ks.push(b.mouse + ' mouse button');
      out.push(b.name + ': ' + ks.join(' / '));
    }
    return out;
  }

  c.setActions = function (m, boundKeys) {
    bound = boundKeys || new Set();
    c.lines = linesOf(m);
    if (!shownOnce && c.lines.length) {
      shownOnce = true;
      c.visible = true;
      clearTimeout(timer);
      timer = setTimeout(() => { c.visible = false; render(); }, HIDE_AFTER_MS);
    }
    render();
  };

  // onKey takes a key that went down; it returns true when the key was
  // the overlay's own.
  c.onKey = function (code) {
    if (code === TOGGLE && !bound.has(code)) {
      c.visible = !c.visible;
      render();
      return true;
    }
    return false;
  };
})();
