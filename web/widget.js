// Parley chat widget, first version; hand-written, no build step. Usage:
// <script async src="https://HOST/widget.js" data-key="wk_..."></script>
// All UI sits in one shadow root so page CSS cannot break it. Message text
// from the AI or an operator only ever becomes text nodes, never markup; no
// inline styles, no eval: a CSP that allows this script's origin suffices.
(() => {
'use strict';
// currentScript is set only while this file first runs, so read it now.
const me = document.currentScript || document.querySelector('script[data-key][src*="widget.js"]');
const key = me?.dataset.key;
if (!key || !me.src || window.Parley) return;
const base = new URL(me.src).origin, ds = me.dataset;

const L = {
  en: 'Open chat|Close chat|Message|Send|Retry|An operator will answer here shortly.|Chat is unavailable right now.|Too many messages, retrying shortly…|Something went wrong. Your message was kept.|% of 2000 characters|You|Operator|Chat',
  ro: 'Deschide chatul|Închide chatul|Mesaj|Trimite|Reîncearcă|Un operator vă va răspunde aici în curând.|Chatul nu este disponibil momentan.|Prea multe mesaje, reîncercăm imediat…|Ceva nu a mers bine. Mesajul a fost păstrat.|% din 2000 de caractere|Dvs.|Operator|Chat',
  ru: 'Открыть чат|Закрыть чат|Сообщение|Отправить|Повторить|Оператор скоро ответит здесь.|Чат сейчас недоступен.|Слишком много сообщений, скоро повторим…|Что-то пошло не так. Сообщение сохранено.|% из 2000 символов|Вы|Оператор|Чат',
};
const lang = [ds.lang, document.documentElement.lang, navigator.language, 'en']
  .map(l => (l || '').slice(0, 2).toLowerCase()).find(l => L[l]);
const [tOpen, tClose, tMsg, tSend, tRetry, tOp, tNA, tRL, tErr, tCnt, tYou, tOpr, tChat] = L[lang].split('|');

// State, one record per widget key so a reload continues the conversation:
// c conversation, v visitor, n bot name, g config, m transcript, cur poll
// cursor, h operator on it, q quick replies, o panel open. Storage may be
// blocked (privacy modes); the widget then works for this page view only.
const SK = 'parley:' + key;
let S = {};
try { S = JSON.parse(localStorage.getItem(SK)) || {}; } catch { }
S.m = Array.isArray(S.m) ? S.m : [];
const save = () => { S.m = S.m.slice(-200); try { localStorage.setItem(SK, JSON.stringify(S)); } catch { } };
const seen = new Set(S.m.map(m => m.i));
const ls = {};
const emit = (e, d) => ls[e]?.forEach(f => { try { f(d); } catch (x) { console.error(x); } });
const sleep = ms => new Promise(r => setTimeout(r, ms));
const name = () => S.n || tChat;
const h = (tag, cls, text, at = {}) => {
  const e = document.createElement(tag);
  e.className = cls || '';
  e.textContent = text || '';
  for (const k in at) e.setAttribute(k, at[k]);
  return e;
};
const btn = (text, fn, cls, at) => { const b = h('button', cls, text, { type: 'button', ...at }); b.onclick = fn; return b; };

// api throws an Error carrying status s, JSON body d and Retry-After ra.
async function api(path, body) {
  const r = await fetch(base + path, body
    ? { method: 'POST', credentials: 'omit', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) }
    // A long poll holds up to 30 s; a dead connection must not hang it forever.
    : { credentials: 'omit', signal: AbortSignal.timeout?.(45e3) });
  const d = (await r.json().catch(() => 0)) || {};
  if (r.ok) return d;
  throw Object.assign(Error(d.error || r.status), { s: r.status, d, ra: r.headers.get('Retry-After') });
}
const retryAfter = e => {
  let s = +e.ra;
  if (isNaN(s)) s = (Date.parse(e.ra) - Date.now()) / 1e3;
  return Math.min(60, Math.max(1, s || 5)) * 1e3;
};
// The account-blocked 429 and a refused key are not fixed by retrying.
const dead = e => e.d?.limit_reached || e.s == 403;

let host, root, vars, la, lt, panel, title, log, dots, qr, st, box, cnt, sendB, initP, busy, polling, pend;

const init = () => initP ||= api('/api/widget/init', {
  // Path only: query strings can carry tokens the owner should not see.
  key, visitor_id: S.v, page_url: location.origin + location.pathname,
}).then(d => {
  Object.assign(S, { c: d.conversation_id, v: d.visitor_id || S.v, n: d.chatbot_name, g: d.config || {}, cur: null, h: 0 });
  save(); apply();
  const gr = S.g.greeting;
  if (!S.m.length && gr && typeof gr == 'string') add({ r: 'a', t: gr });
}).finally(() => initP = null);

// chat sends one message; after a rate limit it waits and retries once, and
// a refused conversation is replaced by a new one once.
async function chat(text) {
  for (let renewed = 0, waited = 0; ;) {
    try {
      if (!S.c) await init();
      return await api('/api/widget/chat', { key, conversation_id: S.c, text, visitor_id: S.v, lang });
    } catch (e) {
      if (e.s == 403 && !renewed++) { Object.assign(S, { c: null, cur: null, h: 0 }); continue; }
      if (e.s != 429 || e.d.limit_reached || waited++) throw e;
      status(tRL);
      await sleep(retryAfter(e));
    }
  }
}

async function submit(q) {
  const text = (q ?? box.value).trim();
  if (busy || !text || [...text].length > 2000) return;
  busy = 1;
  if (q == null) box.value = '';
  count(); status(); quick();
  dots.hidden = false;
  const m = { r: 'u', t: text }, el = add(m, 1);
  try {
    const d = await chat(text);
    status();
    emit('message', { role: 'visitor', text });
    if (typeof d.response == 'string') {
      S.h = 0;
      add({ r: 'a', t: d.response });
      quick(d.user_reply_options);
    } else if (d.handoff == 'human') {
      if (!S.h) add({ r: 's', t: tOp });
      S.h = d.wait !== false;
      poll();
    }
  } catch (e) {
    // Move the message back into the box: nothing typed is lost, and Retry
    // sends it again.
    S.m = S.m.filter(x => x != m);
    el.remove();
    box.value = box.value ? text + '\n' + box.value : text;
    count();
    status(dead(e) ? tNA : tErr, !dead(e));
  }
  busy = 0;
  dots.hidden = true;
  save();
}

// poll long-polls for operator messages while the server says an operator
// handles the conversation; one loop at a time.
async function poll() {
  if (polling) return;
  polling = 1;
  for (let fails = 0; S.h && S.c;) {
    const t0 = Date.now(), p = new URLSearchParams({ key, conversation_id: S.c, wait: 25 });
    if (S.cur != null) p.set('after', S.cur);
    try {
      const d = await api('/api/widget/poll?' + p);
      fails = 0;
      for (const m of d.messages || []) if (!seen.has(m.id)) add({ r: 'o', t: m.text, n: m.operator_name, i: m.id });
      if (d.cursor != null) S.cur = d.cursor;
      S.h = !!d.wait;
      save();
      // A server answering at once must not turn this into a busy loop
      // against the per-IP limit of 30 requests a minute.
      if (Date.now() - t0 < 2e3) await sleep(3e3);
    } catch (e) {
      if (!dead(e)) {
        await sleep(e.s == 429 ? retryAfter(e) : Math.min(3e4, 3e3 * 2 ** fails++));
        continue;
      }
      S.h = 0;
      if (e.d.limit_reached) status(tNA);
    }
  }
  polling = 0;
}

// add appends to transcript and log. quiet skips the 'message' event, which
// a visitor's message gets only once the server has accepted it.
function add(m, quiet) {
  S.m.push(m);
  seen.add(m.i);
  save();
  if (!quiet && m.r != 's') emit('message', { role: m.r == 'o' ? 'operator' : 'assistant', text: m.t, operator_name: m.n });
  return draw(m);
}

function draw(m) {
  if (!log) return;
  const el = h('div', 'm ' + m.r), o = m.r == 'o', s = String(m.t ?? '');
  // Operators are named visibly; otherwise only screen readers need a name.
  if (m.r != 's') el.append(h('span', o ? 'w' : 'sr', o ? m.n || tOpr : (m.r == 'u' ? tYou : name()) + ': '));
  let i = 0;
  for (const x of s.matchAll(/https?:\/\/[^\s<>"']+/g)) {
    const u = x[0].replace(/[.,;:!?)\]]+$/, '');
    el.append(s.slice(i, x.index), h('a', '', u, { href: u, target: '_blank', rel: 'noopener noreferrer nofollow' }));
    i = x.index + u.length;
  }
  el.append(s.slice(i));
  log.append(el);
  log.scrollTop = log.scrollHeight;
  return el;
}

function quick(o) {
  S.q = Array.isArray(o) ? o.filter(x => x && typeof x == 'string') : [];
  qr.replaceChildren(...S.q.map(x => btn(x, () => submit(x))));
}

function status(msg, retry) {
  st.textContent = msg || '';
  if (retry) st.append(' ', btn(tRetry, () => submit()));
}

function count() {
  const n = [...box.value].length, over = n > 2000;
  cnt.textContent = tCnt.replace('%', n);
  cnt.classList.toggle('o', over);
  box.setAttribute('aria-invalid', over);
  sendB.disabled = over;
}

// A constructed stylesheet is exempt from CSP style-src; the <style>
// fallback only serves browsers that lack one.
function sheet(css) {
  try {
    const s = new CSSStyleSheet();
    s.replaceSync(css);
    root.adoptedStyleSheets = [...root.adoptedStyleSheets, s];
    return c => s.replaceSync(c);
  } catch {
    const s = root.appendChild(h('style', '', css));
    return c => s.textContent = c;
  }
}

function apply() {
  const g = S.g || {};
  // Only a plain hex colour reaches the stylesheet: config cannot inject CSS.
  const c = /^#([\da-f]{3,4}|[\da-f]{6}|[\da-f]{8})$/i.test(g.color) ? g.color : '#2563eb';
  let x = c.slice(1);
  if (x.length < 6) x = [...x].map(d => d + d).join('');
  const n = parseInt(x.slice(0, 6), 16);
  // Dark text on a light brand colour keeps buttons readable.
  vars(`:host{--pc:${c};--pf:${(n >> 16) * .299 + (n >> 8 & 255) * .587 + (n & 255) * .114 > 150 ? '#111' : '#fff'}}`);
  host.classList.toggle('l', (ds.position || g.position) == 'left');
  lt.textContent = typeof g.launcher_text == 'string' ? g.launcher_text : '';
  panel?.setAttribute('aria-label', name());
  if (title) title.textContent = name();
}

function build() {
  const form = h('form'), row = h('div', 'r'), head = h('div', 'hd');
  title = h('span');
  log = h('div', 'lg', '', { role: 'log', 'aria-live': 'polite' });
  dots = h('div', 'd', '• • •', { 'aria-hidden': 'true', hidden: '' });
  qr = h('div', 'q');
  st = h('div', 'st', '', { role: 'status' });
  box = h('textarea', '', '', { 'aria-label': tMsg, placeholder: tMsg, rows: 2, 'aria-describedby': 'pc' });
  cnt = h('span', 'c', '', { id: 'pc' });
  sendB = btn(tSend, null, '', { type: 'submit' });
  row.append(cnt, sendB);
  form.append(box, row);
  head.append(title, btn('×', close, '', { 'aria-label': tClose }));
  panel = h('div', 'p', '', { role: 'dialog' });
  panel.append(head, log, dots, qr, st, form);
  root.append(panel);
  form.onsubmit = e => { e.preventDefault(); submit(); };
  box.oninput = count;
  // isComposing: the Enter that confirms an IME composition must not send.
  box.onkeydown = e => e.key == 'Enter' && !e.shiftKey && !e.isComposing && form.onsubmit(e);
  panel.onkeydown = e => e.key == 'Escape' && close();
  S.m.forEach(draw);
  quick(S.q); apply(); count();
}

function open(focus = true) {
  if (!root) return void (pend = 1);
  if (!panel) build();
  panel.hidden = false;
  la.hidden = true;
  S.o = 1;
  save();
  if (focus) box.focus();
  if (!S.c) init().catch(e => dead(e) && status(tNA));
  else if (S.h) poll();
  emit('open');
}

function close() {
  if (!panel || panel.hidden) return;
  panel.hidden = true;
  la.hidden = false;
  la.focus();
  S.o = 0;
  save();
  emit('close');
}

function start() {
  host = h('div', '', '', { id: 'parley-widget' });
  root = host.attachShadow({ mode: 'open' });
  sheet(CSS);
  vars = sheet('');
  la = btn('', () => open(), 'la');
  la.append(lt = h('span'), h('span', 'sr', tOpen));
  root.append(la);
  document.body.append(host);
  apply();
  // Reopen after a reload if it was open, but take focus only when asked.
  if (pend || S.o || ('open' in ds && ds.open != 'false')) open(!!pend);
}

const CSS = `:host{all:initial;position:fixed;z-index:2147483000;bottom:20px;right:20px;font:15px/1.4 system-ui,sans-serif;color:#111}
:host(.l){right:auto;left:20px}
*{box-sizing:border-box;font:inherit}
[hidden]{display:none!important}
.sr{position:absolute;width:1px;height:1px;overflow:hidden;clip-path:inset(50%);white-space:nowrap}
button{cursor:pointer;border:0;border-radius:8px;padding:8px 14px;background:var(--pc);color:var(--pf)}
button:disabled{opacity:.5;cursor:default}
:focus-visible{outline:3px solid var(--pc);outline-offset:2px}
.la{display:flex;align-items:center;gap:8px;min-height:56px;padding:0 18px;border-radius:28px;box-shadow:0 4px 14px #0004}
.la:before{content:'';width:22px;height:18px;border-radius:5px 5px 5px 0;background:currentColor}
.p{display:flex;flex-direction:column;width:min(370px,100vw - 40px);height:min(560px,100vh - 40px);background:#fff;border-radius:12px;box-shadow:0 8px 30px #0004;overflow:hidden}
.hd{display:flex;align-items:center;justify-content:space-between;padding:8px 8px 8px 14px;background:var(--pc);color:var(--pf);font-weight:600}
.hd button{font-size:24px;line-height:1;padding:4px 10px}
.hd :focus-visible{outline-color:var(--pf);outline-offset:-3px}
.lg{flex:1;overflow-y:auto;padding:12px;display:flex;flex-direction:column;gap:8px}
.m{max-width:85%;padding:8px 12px;border-radius:12px;background:#f1f3f5;white-space:pre-wrap;overflow-wrap:anywhere}
.m.u{align-self:flex-end;background:var(--pc);color:var(--pf)}
.m a{color:inherit}
.m.s{align-self:center;background:none;color:#555;font-size:13px}
.w{display:block;font-size:12px;font-weight:600;color:#555}
.d{padding:0 14px;color:#666}
.q{display:flex;flex-wrap:wrap;gap:6px;padding:0 12px 6px}
.q button{background:#fff;color:#111;border:1px solid var(--pc);border-radius:16px;padding:4px 12px}
.st{padding:0 12px;font-size:13px;color:#a00}
.st button{margin:4px 0;padding:4px 12px}
form{border-top:1px solid #ddd;padding:8px 12px}
textarea{display:block;width:100%;min-height:44px;max-height:140px;resize:none;field-sizing:content;border:1px solid #999;border-radius:8px;padding:8px;color:#111;background:#fff}
.r{display:flex;justify-content:space-between;align-items:center;gap:8px;margin-top:6px}
.c{font-size:12px;color:#666}
.c.o{color:#b00020;font-weight:600}
@media (max-width:480px){.p{position:fixed;inset:0;width:auto;height:auto;border-radius:0}}`;

window.Parley = {
  open: () => open(),
  close,
  // on returns a function that removes the listener again.
  on: (e, fn) => ((ls[e] ||= []).push(fn), () => ls[e] = ls[e].filter(f => f != fn)),
};
document.body ? start() : addEventListener('DOMContentLoaded', start);
})();
