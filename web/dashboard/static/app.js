// Parley dashboard: live updates over Server-Sent Events, Enter to send,
// the language switch, and alerts for conversations waiting for a human.
// Pages work without it; it only makes them live.
'use strict';

// Re-fetch a live region's HTML when its event stream says "change".
// The region is aria-busy while a refresh is under way, and from the
// start until the first one (the catch-up when the stream opens) is done
// or the stream fails: a swap replaces the region's nodes, and a click
// that lands on a button as it is replaced is lost (assistive technology
// and the browser tests wait for the region to settle).
function live(el) {
  const url = el.dataset.live;
  let busy = false, again = false;
  el.setAttribute('aria-busy', 'true');
  async function refresh() {
    if (busy) { again = true; return; }
    busy = true;
    el.setAttribute('aria-busy', 'true');
    try {
      const res = await fetch(url, {credentials: 'same-origin', headers: {'Accept': 'text/html'}});
      if (res.ok) {
        const before = snapshot(el), shown = transcript(el), said = sayable(el);
        el.innerHTML = await res.text(); // server-rendered, escaped by html/template
        changed(el, before);
        keepOlder(el, shown);
        announce(el, said);
      }
    } catch (e) { /* offline: the next event or reconnect retries */ }
    busy = false;
    if (again) { again = false; refresh(); return; }
    el.removeAttribute('aria-busy');
    // "Visitor is typing…" goes stale without an event: look again then.
    clearTimeout(stale);
    if (el.querySelector('[data-typing]')) stale = setTimeout(refresh, 6500);
  }
  let stale;
  const es = new EventSource(el.dataset.events);
  es.addEventListener('change', refresh);
  es.addEventListener('open', refresh); // catch up after a reconnect
  es.addEventListener('error', () => { if (!busy) el.removeAttribute('aria-busy'); });
}

// What a screen reader should hear after a refresh of a conversation:
// the messages newer than those shown before, a change of hands (the
// state line) and the visitor starting to type. The refresh replaces the
// region whole, so these go to #announce, a live region that stays.
function sayable(el) {
  const seqs = [...el.querySelectorAll('ol[data-newest] > li[data-seq]')].map(li => +li.dataset.seq);
  return {
    newest: seqs.length ? Math.max(...seqs) : -1,
    state: el.querySelector('.state')?.textContent.replace(/\s+/g, ' ').trim(),
    typing: !!el.querySelector('[data-typing]'),
  };
}

function announce(el, was) {
  const box = document.getElementById('announce');
  if (!box) return;
  const say = [];
  const now = sayable(el);
  if (now.state && now.state !== was.state) say.push(now.state);
  if (was.newest >= 0) {
    el.querySelectorAll('ol[data-newest] > li[data-seq]').forEach(li => {
      if (+li.dataset.seq <= was.newest) return;
      const who = li.querySelector('.who')?.textContent.trim(), text = li.querySelector('.text')?.textContent.trim();
      say.push(who + ': ' + text);
    });
  }
  if (now.typing && !was.typing) say.push(el.querySelector('[data-typing]').textContent.trim());
  for (const text of say) {
    const p = document.createElement('p');
    p.textContent = text;
    box.append(p);
  }
  // Only additions are read; the old lines need not stay.
  while (box.childElementCount > 10) box.firstElementChild.remove();
}

// A conversation's transcript shows its newest messages; older ones come a
// page at a time (the "Load older messages" link, data-older, which also
// works as a plain link) into a list above them. transcript is what a
// conversation page shows before a refresh, keepOlder puts it back after:
// the older messages loaded, and those that left the newest page as new
// ones came (so nothing shown disappears), with the link to what is older
// still.
function transcript(el) {
  const link = el.querySelector('a[data-older]');
  return {
    list: el.querySelector('ol[data-older-list]'),
    items: [...el.querySelectorAll('ol[data-newest] > li[data-seq]')],
    href: link && link.getAttribute('href'),
    focused: !!link && document.activeElement === link,
  };
}

function keepOlder(el, old) {
  const log = el.querySelector('ol[data-newest]');
  if (!log) return;
  const first = log.querySelector('li[data-seq]');
  const min = first ? +first.dataset.seq : Infinity;
  const left = old.items.filter(li => +li.dataset.seq < min);
  if (!old.list && !left.length) return;
  const list = old.list || olderList();
  list.append(...left);
  log.before(list);
  const link = el.querySelector('a[data-older]');
  if (link && old.href) link.setAttribute('href', old.href);
  else if (link) link.parentElement.remove();
  if (old.focused) el.querySelector('a[data-older]')?.focus();
}

function olderList() {
  const list = document.createElement('ol');
  list.className = 'transcript';
  list.dataset.olderList = '';
  list.tabIndex = -1; // focused when the last older page came in
  return list;
}

// loadOlder fetches the page before the oldest message shown and puts its
// messages above. Should that fail, the link is followed as without
// JavaScript.
async function loadOlder(link) {
  const section = link.closest('section'), log = section?.querySelector('ol[data-newest]');
  if (!log || link.dataset.busy) return;
  link.dataset.busy = '1';
  try {
    const res = await fetch(link.getAttribute('href') + '&partial=1', {credentials: 'same-origin', headers: {'Accept': 'text/html'}});
    if (!res.ok) throw new Error(res.status);
    const page = document.createElement('template');
    page.innerHTML = await res.text();
    const list = section.querySelector('ol[data-older-list]') || olderList();
    list.prepend(...page.content.querySelectorAll('ol[data-newest] > li[data-seq]'));
    log.before(list);
    const next = page.content.querySelector('a[data-older]');
    const status = document.getElementById('older-status');
    if (status) status.textContent = link.dataset.done;
    if (next) {
      link.setAttribute('href', next.getAttribute('href'));
    } else {
      link.parentElement.remove();
      list.focus();
    }
  } catch (e) {
    location.href = link.href;
  } finally {
    delete link.dataset.busy;
  }
}

// A part of a page that refreshes itself while something in it is under
// way (a website source syncing: the agent's list of sources, a source's
// facts): while it holds [data-active], its fragment (data-poll) is
// fetched again every few seconds and swapped in. The focus stays on the
// control that had it (they carry ids), and a polite status line (the
// element data-poll-status names, else the list's "-status" sibling) says
// what changed ([data-status][data-says]), rather than a live region that
// would read the whole part out on each refresh. Once nothing is under
// way, the part data-poll-then names (the pages a sync took in) is
// fetched once.
const pollEvery = 3000;

// swap fetches el's fragment into it; false when it is gone for good.
async function swap(el) {
  const res = await fetch(el.dataset.poll, {credentials: 'same-origin', headers: {'Accept': 'text/html'}});
  // Signed out meanwhile (sent to the sign-in page): the page itself goes
  // there. Gone or refused: stop asking.
  if (res.redirected) { location.reload(); return false; }
  if (!res.ok) return res.status >= 500;
  const focused = el.contains(document.activeElement) ? document.activeElement.id : '';
  el.innerHTML = await res.text(); // server-rendered, escaped by html/template
  if (focused) document.getElementById(focused)?.focus();
  return true;
}

function poll(el) {
  const statusID = el.dataset.pollStatus || (el.id.endsWith('-list') ? el.id.replace(/-list$/, '-status') : '');
  const status = statusID ? document.getElementById(statusID) : null;
  const states = () => [...el.querySelectorAll('[data-status][data-says]')];
  async function tick() {
    if (!document.hidden) {
      try {
        const before = new Map(states().map(s => [s.id, s.dataset.status]));
        if (!await swap(el)) return;
        const said = states().filter(s => before.has(s.id) && before.get(s.id) !== s.dataset.status).map(s => s.dataset.says);
        if (status && said.length) status.textContent = said.join('. ');
        const then = document.getElementById(el.dataset.pollThen || '');
        if (then && !el.querySelector('[data-active]')) await swap(then);
      } catch (e) { /* offline: the next tick retries */ }
    }
    if (el.querySelector('[data-active]')) setTimeout(tick, pollEvery);
  }
  if (el.querySelector('[data-active]')) setTimeout(tick, pollEvery);
}

// What the inbox showed before a refresh: status per conversation.
function snapshot(el) {
  const m = new Map();
  el.querySelectorAll('tr[data-id]').forEach(tr => m.set(tr.dataset.id, tr.dataset.status));
  return m;
}

// Alert for conversations that started waiting. (Unread counts are the
// server's: each row carries the signed-in operator's.)
function changed(el, before) {
  let newlyWaiting = 0;
  el.querySelectorAll('tr[data-id]').forEach(tr => {
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

// The desk's keyboard shortcuts (the "?" dialog lists them): j/k, and the
// arrows while the focus is in the list, open the next or previous
// conversation; r goes to the reply box; t, h and e submit the form that
// carries data-key="t" (take over), "h" (hand back) or "e" (resolve: any
// form another part of the desk marks so; none, nothing happens). They
// never fire while the focus is in a field, nor with Ctrl, Alt or Meta.
function deskKeys() {
  const help = document.getElementById('shortcuts');
  const typing = t => t.closest?.('input, textarea, select, [contenteditable]:not([contenteditable=false])');
  const move = by => {
    const links = [...document.querySelectorAll('#inbox a[data-row-link]')];
    if (!links.length) return;
    const at = links.findIndex(a => a.getAttribute('aria-current') === 'page' || a === document.activeElement);
    const to = links[at < 0 ? (by > 0 ? 0 : links.length - 1) : Math.min(links.length - 1, Math.max(0, at + by))];
    if (to && to !== links[at]) { to.focus(); location.href = to.href; }
  };
  document.addEventListener('keydown', e => {
    if (e.defaultPrevented || e.ctrlKey || e.altKey || e.metaKey || e.isComposing || typing(e.target)) return;
    if (help?.open && e.key !== '?') return; // the dialog has the keys (Esc closes it)
    const inList = !!e.target.closest?.('#inbox');
    let form;
    switch (e.key) {
      case 'j': move(1); break;
      case 'k': move(-1); break;
      case 'ArrowDown': if (!inList) return; move(1); break;
      case 'ArrowUp': if (!inList) return; move(-1); break;
      case 'r': {
        const ta = document.getElementById('reply-text');
        if (!ta) return;
        ta.focus();
        break;
      }
      case 't': case 'h': case 'e':
        form = document.querySelector('form[data-key="' + e.key + '"]');
        if (!form) return;
        form.requestSubmit();
        break;
      case '?':
        if (!help) return;
        if (help.open) help.close(); else help.showModal();
        break;
      default: return;
    }
    e.preventDefault();
  });
}

document.addEventListener('DOMContentLoaded', () => {
  document.querySelectorAll('[data-live]').forEach(live);
  document.querySelectorAll('[data-poll]').forEach(poll);

  // Destructive forms ask first (data-confirm). Without the script the
  // server asks on a page of its own; with it, confirmed=1 says it was
  // asked here. Listened on the document: polled lists are re-rendered.
  document.addEventListener('submit', e => {
    const form = e.target.closest?.('form[data-confirm]');
    if (!form) return;
    if (!window.confirm(form.dataset.confirm)) { e.preventDefault(); return; }
    if (form.elements.confirmed) form.elements.confirmed.value = '1';
  });

  // The live region re-renders the link: listen on the document.
  document.addEventListener('click', e => {
    const link = e.target.closest?.('a[data-older]');
    if (!link || e.button || e.ctrlKey || e.metaKey || e.shiftKey || e.altKey) return;
    e.preventDefault();
    loadOlder(link);
  });

  if (document.querySelector('.desk')) deskKeys();

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

  // "Add to the list" under the allowed origins: appends the seen origin
  // to the textarea as a line of its own, once. The buttons are hidden
  // without the script; the origins stay as text to copy.
  document.querySelectorAll('button[data-add-origin]').forEach(btn => {
    btn.hidden = false;
    btn.addEventListener('click', () => {
      const ta = document.getElementById(btn.dataset.to), o = btn.dataset.addOrigin;
      const lines = ta.value.split('\n').map(l => l.trim()).filter(Boolean);
      if (!lines.includes(o)) ta.value = lines.concat(o).join('\n');
      btn.disabled = true;
      ta.focus();
    });
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

// Presence (the operator desk): while a dashboard tab is open it says so
// every 20 s (the server counts an operator online for 60 s after; the
// inbox's event stream says so too, where a hidden tab's timers are
// slowed). The away switch comes back to this page.
document.addEventListener('DOMContentLoaded', () => {
  const url = document.body.dataset.presence;
  if (!url) return;
  const beat = () => fetch(url, {method: 'POST', credentials: 'same-origin'}).catch(() => {});
  beat();
  setInterval(beat, 20000);
  document.querySelectorAll('input[data-back]').forEach(i => { i.value = location.pathname + location.search; });
});

// Canned replies (issue 19): in a reply box with data-canned, a text that
// is "/" and a shortcut offers the matching replies as a listbox (the
// server filled their variables for this conversation); Tab or Enter
// puts the chosen one in place of the shortcut, arrows move, Escape
// closes. The listener runs in the capture phase, before Enter-to-send.
// The reply box stays a multi-line text box (a textarea may not take the
// combobox role): it says it completes from a list (aria-autocomplete,
// aria-controls), and the chosen suggestion is its active descendant,
// which screen readers read as the arrows move.
document.querySelectorAll('textarea[data-canned]').forEach(ta => {
  const list = document.getElementById(ta.dataset.canned);
  if (!list) return;
  const options = Array.from(list.querySelectorAll('[role="option"]'));
  let shown = [], active = -1;
  ta.setAttribute('aria-controls', list.id);
  ta.setAttribute('aria-autocomplete', 'list');
  function query() {
    const m = /^\/([^\s/]*)$/.exec(ta.value);
    return m ? m[1].toLowerCase() : null;
  }
  function select(i) {
    active = i;
    options.forEach(o => o.setAttribute('aria-selected', 'false'));
    if (i >= 0 && shown[i]) {
      shown[i].setAttribute('aria-selected', 'true');
      ta.setAttribute('aria-activedescendant', shown[i].id);
      shown[i].scrollIntoView({block: 'nearest'});
    } else {
      ta.removeAttribute('aria-activedescendant');
    }
  }
  function update() {
    const q = query();
    shown = q === null ? [] : options.filter(o => o.dataset.shortcut.startsWith(q));
    options.forEach(o => { o.hidden = !shown.includes(o); });
    list.hidden = shown.length === 0;
    // An exact shortcut is the one chosen; otherwise the first.
    const exact = shown.findIndex(o => o.dataset.shortcut === q);
    select(shown.length ? (exact >= 0 ? exact : 0) : -1);
  }
  function insert(o) {
    ta.value = o.dataset.text;
    update();
    ta.focus();
    ta.setSelectionRange(ta.value.length, ta.value.length);
  }
  ta.addEventListener('input', update);
  ta.addEventListener('keydown', e => {
    if (list.hidden) return;
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault();
      const n = shown.length;
      select((active + (e.key === 'ArrowDown' ? 1 : n - 1)) % n);
    } else if ((e.key === 'Tab' || e.key === 'Enter') && !e.shiftKey && !e.isComposing && active >= 0) {
      e.preventDefault();
      e.stopImmediatePropagation();
      insert(shown[active]);
    } else if (e.key === 'Escape') {
      e.preventDefault();
      list.hidden = true;
      select(-1);
    }
  }, true);
  options.forEach(o => o.addEventListener('mousedown', e => { e.preventDefault(); insert(o); }));
});

// Typing indicator (issue 19): while the operator types in a reply box
// with data-typing-url, tell the server at most every 3 seconds; the
// visitor's widget shows "<name> is typing…" for a few seconds.
document.addEventListener('input', e => {
  const box = e.target.closest?.('textarea[data-typing-url]');
  if (!box || !box.value.trim()) return;
  const now = Date.now();
  if (now - (+box.dataset.typingSent || 0) < 3000) return;
  box.dataset.typingSent = now;
  fetch(box.dataset.typingUrl, {method: 'POST', credentials: 'same-origin'}).catch(() => {});
});
