// The page's chat: a log and a text box at the top of the side panel.
// Enter in the game focuses the box; Enter in the box sends the line
// (vkm.say, which vkm.js defines) and gives the keyboard back to the game;
// Escape leaves it. The server judges every line and sends the log back
// whole ({"t":"chat","lines":[{from, name, text}]}); from 0 is the
// server's own line. vkm.chat holds the lines last shown, for tests.
(function () {
  'use strict';
  const side = document.getElementById('side');
  const game = document.getElementById('game');
  if (!side || !window.vkm) return;

  const section = document.createElement('section');
  section.id = 'chat-section';
  const title = document.createElement('h2');
  title.textContent = 'chat';
  const log = document.createElement('ol');
  log.id = 'chat-log';
  log.setAttribute('aria-label', 'chat');
  log.setAttribute('aria-live', 'polite');
  const box = document.createElement('input');
  box.id = 'chat-input';
  box.type = 'text';
  box.maxLength = 200;
  box.placeholder = 'Enter to chat';
  box.setAttribute('aria-label', 'chat line');
  section.append(title, log, box);
  side.insertBefore(section, side.firstChild);
  window.vkm.chat = [];

  box.addEventListener('keydown', (e) => {
    if (e.key === 'Enter') {
      e.preventDefault();
      const text = box.value.trim();
      if (text) window.vkm.say(text);
      box.value = '';
      if (game) game.focus();
    } else if (e.key === 'Escape') {
      box.value = '';
      if (game) game.focus();
    }
  });
  window.addEventListener('keydown', (e) => {
    if (e.key === 'Enter' && e.target !== box && !(e.target instanceof HTMLInputElement)) {
      e.preventDefault();
      box.focus();
    }
  });

  window.vkmChat = {
    show(m) {
      const lines = Array.isArray(m.lines) ? m.lines : [];
      window.vkm.chat = lines.map((l) => ({ from: l.from | 0, name: String(l.name || ''), text: String(l.text || '') }));
      log.replaceChildren(...window.vkm.chat.map((l) => {
        const li = document.createElement('li');
        const who = document.createElement('b');
        who.textContent = l.from === 0 ? 'server' : (l.name || 'player ' + l.from);
        if (l.from === 0) li.className = 'server';
        li.append(who, ': ' + l.text); // text, never markup
        return li;
      }));
      log.scrollTop = log.scrollHeight;
    },
  };
})();
