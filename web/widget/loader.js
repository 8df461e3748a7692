// Parley embed script, the part every page view loads (served as /widget.js):
//   <script async src="https://HOST/widget.js" data-key="wk_..."></script>
// It only draws the launcher button and exposes window.Parley; the chat UI
// (ui.js) is a separate module fetched when the visitor first opens the chat
// (or points at the launcher), so a page whose visitors never chat pays for
// about 2 KB. Hand-written; web/internal/widgetbuild minifies it and fills
// in PARLEY_UI (the UI chunk's hashed file name), PARLEY_LAUNCHER_CSS and
// the launcher's name in each language.
// Elements are made with createElement and filled with textContent, styles
// are constructed stylesheets and nothing is evaluated from strings, so a
// CSP that allows this script's origin in script-src and connect-src is
// enough.
(() => {
  // currentScript is set only while this file first runs, so read it now.
  const me = document.currentScript || document.querySelector('script[data-key][src*="widget.js"]');
  const ds = me?.dataset || {};
  const key = ds.key;
  // One widget per page: a second copy of the tag must not draw a second
  // launcher or fight over the same storage. A page may have defined
  // Parley as a stub that queues calls (q) until this script runs.
  const early = window.Parley?.q;
  if (!key || !me.src || (window.Parley && !early)) return;

  // The launcher's name in every language the widget speaks, by language:
  // the build fills it in from the message catalogues (web/i18n, key
  // widget.open), so a new language needs no edit here.
  const OPEN = PARLEY_OPEN;
  // The first of data-lang, <html lang>, the browser's language that we
  // speak; "ro-RO" counts as "ro".
  const lang = [ds.lang, document.documentElement.lang, navigator.language]
    .map(l => (l || '').slice(0, 2).toLowerCase())
    .find(l => OPEN[l]) || 'en';

  // The state one browser keeps per widget key, shared with ui.js and with
  // every page of the site (see docs/widget.md for the fields). Storage may
  // be blocked (privacy modes, sandboxed frames); the widget then works for
  // this page view only.
  const SK = 'parley:' + key;
  let S = {};
  const save = () => { try { localStorage.setItem(SK, JSON.stringify(S)); } catch { } };

  const listeners = {};
  const emit = (ev, data) => listeners[ev]?.forEach(fn => {
    // A site owner's handler must not break the widget.
    try { fn(data); } catch (e) { console.error(e); }
  });

  let host, root, launcher, label, sheet, mod, ui, pending;

  // Identity verification (docs/widget.md): who the site says the visitor
  // is, from data-user-id etc. or Parley('identify', {...}); strings only.
  let who;
  const identify = o => {
    who = {};
    for (const k of ['user_id', 'user_hash', 'name', 'email']) if (typeof o?.[k] == 'string') who[k] = o[k];
    mine();
  };
  // A transcript kept in this browser is one user's: when the site names
  // another user (or none after one), it is dropped, not shown.
  const mine = () => {
    if (!host || (S.u || '') == (who.user_id || '')) return;
    for (const k of ['c', 'm', 'cur', 'h', 'q']) delete S[k];
    S.u = who.user_id;
    save();
  };
  identify({ user_id: ds.userId, user_hash: ds.userHash, name: ds.name, email: ds.email });

  // apply styles the launcher (and, through the CSS variables, the panel)
  // from the agent's config as the last init returned it: --pc brand colour,
  // --pf text on it, --pa the brand colour where it is readable on white.
  // The variables go into the launcher's one stylesheet: parsing one sheet
  // is measurably cheaper than two on every page view.
  const apply = () => {
    const g = S.g || {};
    // Only a plain hex colour reaches the stylesheet: config cannot inject CSS.
    const c = /^#([\da-f]{3}|[\da-f]{6})$/i.test(g.color) ? g.color : '#2563eb';
    const hex = c.length == 4 ? c.replace(/\w/g, d => d + d) : c;
    const n = parseInt(hex.slice(1), 16);
    // WCAG relative luminance, then whichever text colour contrasts more.
    const lin = v => (v /= 255) <= .03928 ? v / 12.92 : ((v + .055) / 1.055) ** 2.4;
    const L = .2126 * lin(n >> 16) + .7152 * lin(n >> 8 & 255) + .0722 * lin(n & 255);
    const onWhite = 1.05 / (L + .05);
    sheet.replaceSync(`:host{--pc:${hex};--pf:${onWhite >= (L + .05) / .056 ? '#fff' : '#111'};--pa:${onWhite >= 3 ? hex : '#111'}}` + PARLEY_LAUNCHER_CSS);
    host.classList.toggle('left', (ds.position || g.position) == 'left');
    label.textContent = typeof g.launcher_text == 'string' ? g.launcher_text.slice(0, 40) : '';
  };

  // load fetches the UI module once; it only defines functions, so doing it
  // early on hover or focus costs nothing visible. A loader cached from
  // before a deploy may name a chunk the server no longer has: the
  // unversioned path always serves the current one.
  const load = () => mod ||= import(new URL(PARLEY_UI, me.src))
    .catch(() => import(new URL('widget-ui.js', me.src)))
    .catch(e => { mod = null; throw e; });

  const open = (focus = true) => {
    if (!root) return void (pending = focus);
    ui ||= load().then(m => m.mount({ key, src: me.src, lang, S, save, emit, apply, root, launcher, who: () => who }));
    // Nothing to show if even the fallback failed; the next click tries again.
    ui.then(u => u.open(focus), () => { ui = null; });
  };

  const start = () => {
    try { S = JSON.parse(localStorage.getItem(SK)) || {}; } catch { }
    if (typeof S != 'object') S = {};
    // The agent refused this site lately (ui.js): show nothing.
    if (Date.now() - S.x < 864e5) return;
    host = document.createElement('div');
    host.id = 'parley-widget';
    mine();
    root = host.attachShadow({ mode: 'open' });
    // Constructed stylesheets are not subject to CSP style-src, unlike
    // <style> elements and style attributes.
    sheet = new CSSStyleSheet();
    root.adoptedStyleSheets = [sheet];
    launcher = document.createElement('button');
    launcher.type = 'button';
    launcher.className = 'la';
    label = document.createElement('span');
    const name = document.createElement('span');
    name.className = 'sr';
    name.textContent = OPEN[lang];
    launcher.append(label, name);
    launcher.onclick = () => open();
    launcher.onpointerenter = launcher.onfocus = () => load().catch(() => { });
    root.append(launcher);
    apply();
    document.body.append(host);
    // Continue where the visitor was: an open chat stays open across pages
    // and reloads, without taking the focus. data-open opens it only until
    // the visitor has opened or closed it once.
    if (pending != null || S.o || (S.o == null && 'open' in ds && ds.open != 'false')) open(!!pending);
  };

  // Parley('identify', {...}) and Parley('open') as common widgets take
  // them, and Parley.open() etc. as before.
  const P = window.Parley = (cmd, ...a) => cmd == 'identify' ? identify(a[0]) : P[cmd]?.(...a);
  Object.assign(P, {
    open: () => open(),
    close: () => ui?.then(u => u.close()),
    // on returns a function that removes the listener again.
    on: (ev, fn) => ((listeners[ev] ||= []).push(fn), () => listeners[ev] = listeners[ev].filter(f => f != fn)),
  });
  early?.forEach?.(a => P(...a));
  // The page's own loading comes first: reading storage (the first access
  // is a synchronous round trip to the browser process) and drawing the
  // launcher wait until the browser is idle, or a second at most. Safari
  // has no requestIdleCallback; a timeout there still runs after the
  // current task.
  const later = () => (window.requestIdleCallback || setTimeout)(start, { timeout: 1000 });
  document.body ? later() : addEventListener('DOMContentLoaded', later);
})();
