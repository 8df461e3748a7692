// Parley dashboard: live updates over Server-Sent Events, Enter to send,
// the language switch, and alerts for conversations waiting for a human.
// Pages work without it; it only makes them live.
'use strict';

// Re-fetch a live region's HTML when its event stream says "change".
function live(el) {
  const url = el.dataset.live;
  let busy = false, again = false;
  async function refresh() {
    if (busy) { again = true; return; }
    busy = true;
    try {
      const res = await fetch(url, {credentials: 'same-origin', headers: {'Accept': 'text/html'}});
      if (res.ok) {
        const before = snapshot(el);
        el.innerHTML = await res.text(); // server-rendered, escaped by html/template
        changed(el, before);
      }
    } catch (e) { /* offline: the next event or reconnect retries */ }
    busy = false;
    if (again) { again = false; refresh(); }
  }
  const es = new EventSource(el.dataset.events);
  es.addEventListener('change', refresh);
  es.addEventListener('open', refresh); // catch up after a reconnect
}

// What the inbox showed before a refresh: status per conversation.
function snapshot(el) {
  const m = new Map();
  el.querySelectorAll('tr[data-id]').forEach(tr => m.set(tr.dataset.id, tr.dataset.status));
  return m;
}

const seenKey = 'parley.seen';
function seen() { try { return JSON.parse(localStorage.getItem(seenKey)) || {}; } catch (e) { return {}; } }

// Mark unread rows; alert for conversations that started waiting.
function changed(el, before) {
  const s = seen();
  let newlyWaiting = 0;
  el.querySelectorAll('tr[data-id]').forEach(tr => {
    const unread = !s[tr.dataset.id] || s[tr.dataset.id] < tr.dataset.last;
    const mark = tr.querySelector('.unread');
    if (mark) mark.hidden = !unread;
    tr.classList.toggle('is-unread', unread);
    if (tr.dataset.status === 'waiting' && before.get(tr.dataset.id) !== 'waiting') newlyWaiting++;
  });
  if (newlyWaiting && before.size) alertWaiting(el.dataset.waitingText || 'A visitor is waiting for a human');
}

function pref(name) { return localStorage.getItem('parley.pref.' + name) === '1'; }

function alertWaiting(text) {
  if (pref('sound')) beep();
  if (pref('notify') && 'Notification' in window && Notification.permission === 'granted') {
    new Notification('Parley', {body: text});
  }
}

// A short tone made on the spot: no audio file to load.
function beep() {
  try {
    const ctx = new AudioContext(), o = ctx.createOscillator(), g = ctx.createGain();
    o.frequency.value = 880; g.gain.value = 0.1;
    o.connect(g).connect(ctx.destination);
    o.start(); o.stop(ctx.currentTime + 0.2);
  } catch (e) { /* no audio */ }
}

document.addEventListener('DOMContentLoaded', () => {
  document.querySelectorAll('[data-live]').forEach(live);

  // Opening a conversation marks it read.
  const conv = document.getElementById('conversation');
  if (conv) {
    const id = location.pathname.split('/').pop(), s = seen();
    s[id] = new Date().toISOString();
    localStorage.setItem(seenKey, JSON.stringify(s));
  }
  const inbox = document.getElementById('inbox');
  if (inbox) changed(inbox, new Map());

  document.querySelectorAll('input[data-pref]').forEach(box => {
    box.checked = pref(box.dataset.pref);
    box.addEventListener('change', () => {
      localStorage.setItem('parley.pref.' + box.dataset.pref, box.checked ? '1' : '0');
      if (box.checked && box.dataset.pref === 'notify' && 'Notification' in window) Notification.requestPermission();
    });
  });

  // Enter sends, Shift+Enter makes a new line.
  document.querySelectorAll('textarea[data-enter-submits]').forEach(ta => {
    ta.addEventListener('keydown', e => {
      if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
        e.preventDefault();
        if (ta.value.trim()) ta.form.requestSubmit();
      }
    });
  });

  // The language switch submits itself and comes back to this page.
  document.querySelectorAll('select[data-autosubmit]').forEach(sel => {
    sel.form.elements.back.value = location.pathname + location.search;
    sel.addEventListener('change', () => sel.form.submit());
  });

  // Copy buttons (embed code, new API tokens).
  document.querySelectorAll('button[data-copy]').forEach(btn => {
    btn.addEventListener('click', async () => {
      const src = document.getElementById(btn.dataset.copy);
      try { await navigator.clipboard.writeText(src.value || src.textContent); btn.dataset.done = '1'; }
      catch (e) { src.select && src.select(); }
    });
  });
});
