// Parley chat UI: the module the loader (loader.js) imports when the visitor
// first opens the chat, served as /widget-ui.<hash>.js. It builds the panel
// inside the loader's shadow root and talks to the widget API (docs/api.md).
// Message text from anyone only ever becomes text nodes (textContent), never
// markup; web/internal/widgetbuild fills in PARLEY_UI_CSS and the texts
// when minifying.

// The texts by language: the build fills them in from the message
// catalogues (web/i18n, keys widget.<name>), each language's joined with
// '|' in the order of these names, which mount destructures.
const TEXTS = PARLEY_TEXTS('close|message|placeholder|send|retry|takenover|released|unavailable|ratelimited|unreachable|toolong|you|operator|chat|suggestions|toomanychats|sources|offline|email|name|leave|left|rate|star|comment|rated|typing|sendrating|helpful|nothelpful');

// The server's limit, counted in code points as the server counts them.
const MAX = 2000;

const sleep = ms => new Promise(r => setTimeout(r, ms));
const chars = s => [...s].length;

// h makes an element; text always goes in as text.
const h = (tag, cls, text, attrs = {}) => {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text) e.textContent = text;
  for (const a in attrs) e.setAttribute(a, attrs[a]);
  return e;
};

// svg makes an SVG element: elements, not markup, which a page enforcing
// Trusted Types would refuse.
const svg = (tag, attrs) => {
  const e = document.createElementNS('http://www.w3.org/2000/svg', tag);
  for (const a in attrs) e.setAttribute(a, attrs[a]);
  return e;
};

// mount builds the chat for the loader and returns what window.Parley
// needs. ctx: key, src (the loader's URL), lang, S (the stored state), save,
// emit (to window.Parley.on listeners), apply (restyle from S.g), root (the
// shadow root) and launcher (its button).
export function mount({ key, src, lang, S, save, emit, apply, root, launcher, who }) {
  const [tClose, tMsg, tPlace, tSend, tRetry, tOp, tBack, tNA, tRL, tErr, tLong, tYou, tOpr, tChat, tSugg, tLater, tSrc, tOff, tMail, tName, tLeave, tLeft, tRate, tStar, tCmt, tRated, tTyping, tSendR, tUp, tDown] = TEXTS[lang].split('|');
  // The API lives next to the script, also behind a path prefix.
  const base = new URL('.', src).href;

  // Anything from storage may be old or tampered with; keep what fits.
  if (!Array.isArray(S.m)) S.m = [];
  S.m = S.m.filter(m => m && typeof m.t == 'string');
  const seen = new Set(S.m.map(m => m.i));
  const els = new WeakMap();
  // Whether chat replies are asked for as a stream: where the browser can
  // read one, until one breaks (events).
  let sse = !!window.TextDecoderStream;

  const sheet = new CSSStyleSheet();
  sheet.replaceSync(PARLEY_UI_CSS);
  root.adoptedStyleSheets = [...root.adoptedStyleSheets, sheet];

  const btn = (text, fn, cls, attrs) => {
    const b = h('button', cls, text, { type: 'button', ...attrs });
    b.onclick = fn;
    return b;
  };
  const panel = h('div', 'p', '', { role: 'dialog', hidden: '' });
  const title = h('span', 't');
  // Focusable, so that the keyboard can scroll a long conversation.
  const log = h('div', 'lg', '', { role: 'log', 'aria-live': 'polite', tabindex: 0 });
  const dots = h('div', 'd', '', { 'aria-hidden': 'true', hidden: '' });
  // "Ana is typing…": announced once when it appears, not per poll.
  const ty = h('div', 'ty', '', { role: 'status' });
  const qr = h('div', 'q', '', { role: 'group', 'aria-label': tSugg });
  const st = h('div', 'st', '', { role: 'status' });
  // The length notice has its own line, so it never hides a Retry.
  const lim = h('div', 'st', '', { role: 'status' });
  const form = h('form');
  const box = h('textarea', '', '', { 'aria-label': tMsg, placeholder: tPlace, rows: 1, 'aria-describedby': 'pc' });
  const cnt = h('span', 'c', '', { id: 'pc' });
  const sendB = h('button', '', tSend, { type: 'submit' });
  const head = h('div', 'hd');
  const row = h('div', 'r');
  dots.append(h('i'), h('i'), h('i'));
  head.append(title, btn('×', () => close(), 'x', { 'aria-label': tClose }));
  row.append(cnt, sendB);
  form.append(lim, box, row);
  panel.append(head, log, dots, ty, qr, st, form);
  root.append(panel);
  // The newest message stays in view when the parts below the log grow (a
  // status, quick replies, a longer text), unless the visitor has scrolled
  // up to read.
  let pinned = 1;
  log.onscroll = () => pinned = log.scrollHeight - log.scrollTop - log.clientHeight < 40;
  new ResizeObserver(() => pinned && (log.scrollTop = log.scrollHeight)).observe(log);

  // api calls the widget API and throws an Error carrying the status (s),
  // the JSON body (d) and Retry-After (ra). A network failure has no s; an
  // answer cut short has s 0, since what the server did is unknown. With
  // onD (chat) the answer is asked for as server-sent events, each delta's
  // text handed to onD; whatever the server answers as JSON instead (an
  // error status, a proxy that strips the stream) is read as before.
  const api = async (path, body, onD) => {
    onD = sse && onD;
    const r = await fetch(base + path, {
      credentials: 'omit',
      // A long poll holds up to 25 s and chat up to the AI timeout; a dead
      // connection must not hang either forever.
      signal: AbortSignal.timeout?.(6e4),
      ...body && { method: 'POST', headers: { 'Content-Type': 'application/json', ...onD && { Accept: 'text/event-stream' } }, body: JSON.stringify(body) },
    });
    if (onD && r.ok && /^text\/event-stream/.test(r.headers.get('Content-Type'))) return events(r, onD);
    // The offline form and the rating answer 204 without a body.
    if (r.status == 204) return {};
    const d = await r.json().catch(() => 0);
    if (r.ok && d) return d;
    // The agent does not allow this site (its allowed_origins): the widget
    // goes away without a word, and the loader draws nothing on this site
    // for a day (S.x), after which one more try finds out whether the
    // owner has added it.
    if (r.status == 403 && d?.error == 'this site is not allowed to use this widget') {
      S.x = Date.now();
      save();
      root.host.remove();
    }
    throw Object.assign(Error(d?.error || r.status), { s: r.ok ? 0 : r.status, d: d || {}, ra: r.headers.get('Retry-After') });
  };
  // events reads a streamed chat (docs/api.md): delta events to onD, then
  // the done event's data, the body a plain call answers. An error event
  // fails as its status would have; a stream cut before done fails as an
  // answer cut short, and later chats are asked for as plain JSON, in case
  // something on the way breaks streams.
  const events = async (r, onD) => {
    const rd = r.body.pipeThrough(new TextDecoderStream()).getReader();
    for (let b = '', i, x; !(x = await rd.read()).done;) {
      for (b += x.value; (i = b.indexOf('\n\n')) >= 0; b = b.slice(i + 2)) {
        const [, n, j] = /^event: (.*)\ndata: (.*)/.exec(b.slice(0, i)) || [];
        const d = j && JSON.parse(j);
        if (n == 'delta') onD(String(d.text));
        if (n == 'done') return d;
        if (n == 'error') throw Object.assign(Error(d.error), { s: d.status, d });
      }
    }
    sse = 0;
    throw Object.assign(Error(), { s: 0, d: {} });
  };
  const retryAfter = e => Math.min(60, Math.max(1, +e.ra || 5)) * 1e3;
  // The account-blocked 429 and a refused key are not fixed by retrying.
  const dead = e => e.d?.limit_reached || e.s == 403;

  // A 429 without limit_reached clears by waiting: the per-minute rate
  // limit in seconds, an agent's hourly limit on new chats (init) in up to
  // an hour, which is not worth waiting for with the panel open.
  const later = e => e.s == 429 && !e.d.limit_reached && +e.ra > 60;

  // call retries a rate-limited request once, after the wait the server
  // asks for, and tells the visitor meanwhile.
  const call = async (path, body, onD) => {
    for (let waited = 0; ;) {
      try {
        return await api(path, body, onD);
      } catch (e) {
        if (e.s != 429 || e.d.limit_reached || later(e) || waited++) throw e;
        status(tRL);
        await sleep(retryAfter(e));
        status();
      }
    }
  };

  // init starts a conversation; one at a time, however many callers. S.h
  // stays as it was: if an operator had the conversation it replaces, the
  // first answer in this one says the assistant is answering again.
  // The page the visitor is on; path only: query strings can carry
  // tokens the owner should not see.
  const here = () => location.origin + location.pathname;
  let initP;
  const init = () => initP ||= call('api/widget/init', {
    key, visitor_id: S.v, page_url: here(), ...who(),
    // For the operator's visitor details: what the server cannot see.
    time_zone: Intl.DateTimeFormat().resolvedOptions().timeZone, language: navigator.language,
    referrer: document.referrer.split(/[?#]/)[0],
  }).then(d => {
    Object.assign(S, {
      c: d.conversation_id, v: d.visitor_id || S.v, n: d.chatbot_name,
      g: d.config && typeof d.config == 'object' ? d.config : {}, cur: null,
    });
    save();
    apply();
    named();
    // A verified visitor new to this browser: their last conversation.
    const hm = d.history?.messages;
    if (!S.m.length && Array.isArray(hm)) hm.forEach(m => add({ r: { visitor: 'u', operator: 'o' }[m.role] || 'a', t: '' + m.text, n: m.operator_name }, 1));
    const gr = S.g.greeting;
    if (!S.m.length && gr && typeof gr == 'string') add({ r: 'a', t: gr }, 1);
  }).finally(() => initP = null);

  // chat sends one message; a conversation the server refuses (403: it is
  // gone, the key changed, or it holds as many messages as it may) is
  // replaced by a new one, once, and the message sent there.
  const chat = async (text, onD) => {
    for (let renewed = 0; ;) {
      try {
        if (!S.c) await init();
        return await call('api/widget/chat', { key, conversation_id: S.c, text, visitor_id: S.v, lang, page_url: here() }, onD);
      } catch (e) {
        if (e.s != 403 || !S.c || renewed++) throw e;
        S.c = null;
      }
    }
  };

  // The transcript is also the outbox: a visitor message carries f until
  // the server has taken it, so a failure, a reload or a closed tab never
  // loses it, and Retry sends whatever is still unsent, in order.
  let busy;
  const flush = async () => {
    if (busy) return;
    busy = 1;
    status();
    dots.hidden = false;
    try {
      // Also the first step after opening, and what Retry does after a
      // failed init.
      if (!S.c) await init();
      for (let m, dr; (m = S.m.find(x => x.f)); dr = 0) {
        // The reply as it streams: a draft hidden from screen readers,
        // which the log would read out at every piece; the finished
        // message replaces it and is announced once. Not .a: it is no message.
        dots.hidden = false;
        const d = await chat(m.t, t => {
          dots.hidden = true;
          dr ||= log.appendChild(h('div', 'm', '', { 'aria-hidden': 'true' }));
          dr.append(t);
          if (pinned) log.scrollTop = log.scrollHeight;
        }).finally(() => dr?.remove());
        delete m.f;
        els.get(m)?.classList.remove('f');
        save();
        emit('message', { role: 'visitor', text: m.t });
        if (typeof d.response == 'string') {
          human(0);
          // An answer with an id can be rated (thumbs, below); the
          // conversation goes with it, in case a new one replaces it.
          add({ r: 'a', t: d.response, ...Array.isArray(d.sources) && { l: d.sources }, ...typeof d.message_id == 'string' && { i: d.message_id, c: S.c } });
          quick(d.user_reply_options);
          // A person was asked for, but nobody can answer now.
          if (d.offline) ask(offForm());
        } else if (d.handoff == 'human') {
          // Not a failure: an operator has the conversation (spec).
          human(d.wait !== false);
        }
      }
    } catch (e) {
      status(dead(e) ? tNA : later(e) ? tLater : tErr, !dead(e));
    }
    busy = 0;
    dots.hidden = true;
    poll();
  };

  // human records who answers now and says so when it changes.
  const human = on => {
    on = !!on;
    if (on != !!S.h) add({ r: 's', t: on ? tOp : tBack });
    S.h = on;
    save();
  };

  // poll long-polls for operator messages while an operator handles the
  // conversation, and also while the panel is open, so an operator who
  // takes over and writes first is seen without the visitor writing again.
  // The first request of a round does not wait: the server compares with
  // the mode when a poll starts, so a takeover or release that happened
  // while nobody polled is only seen by asking at once. A round follows
  // one conversation: when a new one replaces it (chat's 403), the next
  // round starts at once, while the old round's long poll ends unheard.
  // typing shows who is typing (the poll's typing field) until the server
  // says otherwise or the signal goes stale (6 s on the server).
  let tyT;
  const typing = n => {
    clearTimeout(tyT);
    const t = n ? tTyping.replace('%s', n) : '';
    if (ty.textContent != t) ty.textContent = t;
    if (n) tyT = setTimeout(typing, 6500);
  };
  let polling;
  const poll = async () => {
    const c = S.c;
    if (!c || polling == c) return;
    polling = c;
    for (let fails = 0, wait = 0; c == S.c && (S.h || !panel.hidden);) {
      const t0 = Date.now(), was = !!S.h;
      const q = new URLSearchParams({ key, conversation_id: c, wait });
      if (S.cur) q.set('after', S.cur);
      try {
        const d = await api('api/widget/poll?' + q);
        fails = 0;
        if (c != S.c) break;
        let news = 0;
        for (const m of d.messages || []) {
          if (seen.has(m.id)) continue;
          news = 1;
          add({ r: 'o', t: String(m.text), n: m.operator_name, i: m.id });
          if (panel.hidden) launcher.classList.add('new');
        }
        if (d.cursor) S.cur = d.cursor;
        typing(!news && d.typing?.name);
        human(d.wait);
        // A person answered and handed back: ask for a rating, once per
        // conversation.
        if (d.rate && S.r != c) ask(rateForm(c));
        // A long poll answering at once with nothing new (an old proxy, say)
        // must not become a busy loop against the limit of 30 requests a
        // minute.
        if (wait && !news && !!S.h == was && Date.now() - t0 < 2e3) await sleep(3e3);
        wait = 25;
      } catch (e) {
        // The next chat replaces a refused conversation.
        if (dead(e)) break;
        await sleep(e.s == 429 ? retryAfter(e) : Math.min(3e4, 3e3 * 2 ** fails++));
      }
    }
    if (polling == c) polling = 0;
  };

  // ask shows a form under the log (the offline form, the rating) in
  // place of the one before, its first field focused when the panel has
  // the focus.
  const extra = h('div', 'ex');
  panel.insertBefore(extra, qr);
  const ask = f => {
    extra.replaceChildren(f);
    if (root.activeElement) f.querySelector('input,button')?.focus();
  };
  const done = msg => {
    extra.replaceChildren();
    add({ r: 's', t: msg }, 1);
    box.focus();
  };
  const field = (label, attrs) => {
    const l = h('label', '', label);
    const i = h('input', '', '', attrs);
    l.append(i);
    return [l, i];
  };
  // offForm asks for an address (and a name) the team can answer at.
  const offForm = () => {
    const f = h('form', 'of', '', { 'aria-label': tOff });
    const [lm, mail] = field(tMail, { type: 'email', required: '', autocomplete: 'email', maxlength: 254 });
    const [ln, name] = field(tName, { autocomplete: 'name', maxlength: 100 });
    const err = h('div', 'st', '', { role: 'status' });
    f.append(h('p', '', tOff), lm, ln, err, h('button', '', tLeave, { type: 'submit' }));
    f.onsubmit = async e => {
      e.preventDefault();
      try {
        await call('api/widget/contact', { key, conversation_id: S.c, visitor_id: S.v, email: mail.value.trim(), name: name.value.trim(), lang });
        done(tLeft);
      } catch (x) {
        err.textContent = x.s == 400 ? x.message : tErr;
        mail.focus();
      }
    };
    return f;
  };
  // rateForm: five stars as a radio group (arrow keys move, as radios
  // do), an optional comment, and send.
  const rateForm = c => {
    const f = h('form', 'rf', '', { 'aria-label': tRate });
    const g = h('div', 'rs', '', { role: 'radiogroup', 'aria-label': tRate });
    let n = 0;
    const stars = [1, 2, 3, 4, 5].map(i => btn('★', () => pick(i), '', { role: 'radio', 'aria-checked': 'false', 'aria-label': tStar.replace('%d', i), tabindex: i == 1 ? 0 : -1 }));
    const pick = i => {
      n = i;
      stars.forEach((b, j) => {
        b.setAttribute('aria-checked', j == i - 1);
        b.tabIndex = j == i - 1 ? 0 : -1;
        b.classList.toggle('on', j < i);
      });
      stars[i - 1].focus();
    };
    g.onkeydown = e => {
      const k = { ArrowRight: 1, ArrowUp: 1, ArrowLeft: -1, ArrowDown: -1 }[e.key];
      if (k) {
        e.preventDefault();
        pick(Math.min(5, Math.max(1, (n || (k > 0 ? 0 : 6)) + k)));
      }
    };
    g.append(...stars);
    const [lc, cm] = field(tCmt, { maxlength: 1000 });
    const err = h('div', 'st', '', { role: 'status' });
    f.append(h('p', '', tRate), g, lc, err, h('button', '', tSendR, { type: 'submit' }));
    f.onsubmit = async e => {
      e.preventDefault();
      if (!n) return stars[0].focus();
      try {
        await call('api/widget/rating', { key, conversation_id: c, visitor_id: S.v, rating: n, comment: cm.value.trim() });
        S.r = c;
        save();
        done(tRated);
      } catch (x) {
        err.textContent = tErr;
      }
    };
    return f;
  };

  // add appends to the transcript and the log. quiet: no 'message' event
  // (the greeting, and visitor messages before the server took them).
  const add = (m, quiet) => {
    S.m.push(m);
    seen.add(m.i);
    // A long-lived conversation must not outgrow the storage quota.
    if (S.m.length > 200) S.m.splice(0, S.m.length - 200);
    save();
    draw(m);
    if (!quiet && m.r != 's') emit('message', { role: m.r == 'o' ? 'operator' : 'assistant', text: m.t, operator_name: m.n, sources: m.l });
  };

  // draw shows one message. Web addresses become links that open in a new
  // tab with no access back to this page; everything else stays text.
  const draw = m => {
    const el = h('div', 'm ' + m.r + (m.f ? ' f' : ''));
    const s = m.t;
    if (m.r == 'o') el.append(h('span', 'w', m.n || tOpr));
    else if (m.r != 's') el.append(h('span', 'sr', (m.r == 'u' ? tYou : S.n || tChat) + ': '));
    let i = 0;
    for (const x of s.matchAll(/https?:\/\/[^\s<>"']+/g)) {
      const u = x[0].replace(/[.,;:!?)\]]+$/, '');
      el.append(s.slice(i, x.index), h('a', '', u, { href: u, target: '_blank', rel: 'noopener noreferrer nofollow' }));
      i = x.index + u.length;
    }
    el.append(s.slice(i));
    // The pages and documents an answer cites (m.l, as chat sent them), as
    // a list under it. Only http(s) addresses become links; anything else,
    // and a document without one, stays text.
    const ls = (Array.isArray(m.l) ? m.l : []).filter(x => x?.title && typeof x.title == 'string').slice(0, 5);
    if (ls.length) {
      const ul = h('ul', '', '', { 'aria-label': tSrc });
      for (const x of ls) {
        let u;
        try {
          u = /^https?:$/.test(new URL(x.url).protocol) && x.url;
        } catch {}
        const li = h('li');
        li.append(u ? h('a', '', x.title, { href: u, target: '_blank', rel: 'noopener noreferrer' }) : x.title);
        ul.append(li);
      }
      // The visible label repeats the list's name: screen readers skip it.
      el.appendChild(h('div', 'sc')).append(h('span', '', tSrc, { 'aria-hidden': 'true' }), ul);
    }
    if (m.r == 'a' && m.i) el.append(thumbs(m));
    els.set(m, el);
    log.append(el);
    log.scrollTop = log.scrollHeight;
  };

  // thumbs: "Helpful" and "Not helpful" under an AI answer, toggle
  // buttons of which one at most is pressed (m.k: 1 up, 0 down). A click
  // shows at once; the other button changes the mind, the pressed one
  // again changes nothing. Sends go one at a time, each with the latest
  // choice, so the server ends with the last click; should it refuse one,
  // the buttons go back to what it has. The group is aria-busy meanwhile.
  const thumbs = m => {
    const g = h('div', 'fb');
    let q = Promise.resolve(), sent = m.k;
    const bs = [1, 0].map(k => {
      const b = btn('', () => {
        if (m.k === k) return;
        show(m.k = k);
        g.setAttribute('aria-busy', true);
        const mine = q = q.then(async () => {
          const want = m.k;
          if (want === sent) return;
          try {
            await call('api/widget/feedback', { key, conversation_id: m.c || S.c, visitor_id: S.v, message_id: m.i, helpful: !!want });
            sent = want;
          } catch {
            if (m.k === want) show(m.k = sent);
            status(tErr);
          }
          save();
        }).finally(() => mine == q && g.removeAttribute('aria-busy'));
      }, '', { 'aria-label': k ? tUp : tDown });
      // A thumb drawn here (no emoji font needed): outlined, filled when
      // pressed, the down one turned over by the style sheet.
      b.appendChild(svg('svg', { viewBox: '0 0 24 24', 'aria-hidden': 'true' })).append(svg('path', { d: 'M3 10h3v10H3zM8 20h8.6a2 2 0 0 0 2-1.6l1.3-6.2a1.8 1.8 0 0 0-1.8-2.2H14l.7-3.6a1.7 1.7 0 0 0-3-1.4L8 10z' }));
      return b;
    });
    const show = k => bs.forEach((b, j) => b.setAttribute('aria-pressed', k === 1 - j));
    show(m.k);
    g.append(...bs);
    return g;
  };

  const quick = o => {
    S.q = Array.isArray(o) ? o.filter(x => x && typeof x == 'string').slice(0, 6) : [];
    qr.replaceChildren(...S.q.map(x => btn(x, () => {
      // The button goes away; the focus must not fall to the page.
      box.focus();
      send(x);
    })));
    // At once, not only through the ResizeObserver: the scroll event of
    // the answer just drawn comes first and, measured with the shorter
    // log, can find it no longer at the bottom (quick replies are about
    // as tall as the margin pinned allows), which unpins it.
    if (pinned) log.scrollTop = log.scrollHeight;
  };

  const status = (msg, retry) => {
    st.textContent = msg || '';
    if (retry) st.append(' ', btn(tRetry, flush, 'rt'));
  };

  const count = () => {
    const n = chars(box.value), over = n > MAX;
    cnt.textContent = n + ' / ' + MAX;
    cnt.classList.toggle('o', over);
    box.setAttribute('aria-invalid', over);
    sendB.disabled = over;
    lim.textContent = over ? tLong : '';
  };

  const send = text => {
    quick();
    add({ r: 'u', t: text, f: 1 }, 1);
    flush();
  };

  const submit = () => {
    const text = box.value.trim();
    if (!text || chars(text) > MAX) return;
    box.value = '';
    S.d = '';
    save();
    count();
    send(text);
  };

  const named = () => {
    const n = S.n || tChat;
    title.textContent = n;
    panel.setAttribute('aria-label', n);
  };

  const open = focus => {
    panel.hidden = false;
    launcher.hidden = true;
    launcher.classList.remove('new');
    S.o = 1;
    save();
    log.scrollTop = log.scrollHeight;
    if (focus) box.focus();
    if (S.c) poll();
    // A signed-in visitor opening the chat in a new browser sees their
    // history at once (init returns it).
    else if (who().user_hash && !S.m.length) init().catch(() => { });
    else flush();
    emit('open');
  };

  const close = () => {
    if (panel.hidden) return;
    // The focus goes back to the launcher only from inside the panel: a
    // site calling Parley.close() must not have its focus taken.
    const inside = root.activeElement;
    panel.hidden = true;
    launcher.hidden = false;
    if (inside) launcher.focus();
    S.o = 0;
    save();
    emit('close');
  };

  form.onsubmit = e => {
    e.preventDefault();
    submit();
  };
  // Enter sends, Shift+Enter is a new line; the Enter that confirms an IME
  // composition must not send.
  box.onkeydown = e => {
    if (e.key == 'Enter' && !e.shiftKey && !e.isComposing) {
      e.preventDefault();
      submit();
    }
  };
  // The draft survives a reload too; writing storage on every key would be
  // wasteful, so it waits for a pause (and for pagehide).
  let draftT;
  // While a person handles the chat, tell them the visitor types: at most
  // every 4 s (each counts toward the per-address limit of 30 a minute).
  let typedAt = 0;
  box.oninput = () => {
    if (S.h && S.c && box.value.trim() && Date.now() - typedAt > 4e3) {
      typedAt = Date.now();
      api('api/widget/typing', { key, conversation_id: S.c, visitor_id: S.v }).catch(() => {});
    }
    count();
    S.d = box.value;
    clearTimeout(draftT);
    draftT = setTimeout(save, 400);
  };
  addEventListener('pagehide', save);
  // Not `e.key == 'Escape' && close()`: a handler returning false cancels
  // the event, which kept Tab from moving the focus in the panel.
  panel.onkeydown = e => {
    if (e.key == 'Escape') close();
  };

  box.value = typeof S.d == 'string' ? S.d : '';
  named();
  S.m.forEach(draw);
  quick(S.q);
  count();
  if (S.m.some(m => m.f)) status(tErr, 1);
  return { open, close };
}
