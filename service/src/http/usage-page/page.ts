/**
 * GET /app/usage: one self-contained page (HTML + CSS + JS, no external requests). It asks for the API
 * key (kept in sessionStorage: this tab only, gone when it closes), fetches ../v1/usage with it and
 * shows the allowance, used and remaining tokens, the reset time, and usage by day and by model as an
 * inline SVG stacked bar chart. The Content-Security-Policy allows only this page's own script and
 * style (by hash) and requests to the same origin.
 */
import crypto from 'node:crypto';

const STYLE = `
:root { --bg:#f6f7f9; --card:#fff; --ink:#1c2330; --muted:#5d6778; --line:#e3e6eb; --accent:#2f6fdf; --warn:#c2410c; --ok:#15803d;
  font-family: system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; color: var(--ink); background: var(--bg); }
* { box-sizing: border-box; }
body { margin: 0; }
header { background: var(--ink); color: #fff; padding: 14px 24px; display: flex; align-items: center; gap: 16px; }
header h1 { font-size: 18px; margin: 0; font-weight: 600; }
header .acct { margin-left: auto; font-size: 14px; opacity: .85; }
main { max-width: 1040px; margin: 0 auto; padding: 24px; }
.card { background: var(--card); border: 1px solid var(--line); border-radius: 10px; padding: 18px 20px; margin-bottom: 18px; }
form { display: flex; gap: 10px; flex-wrap: wrap; align-items: center; }
input[type=password] { flex: 1 1 360px; padding: 9px 11px; border: 1px solid #c7ccd4; border-radius: 7px; font: inherit; font-family: ui-monospace, SFMono-Regular, Menlo, monospace; }
button { padding: 9px 15px; border-radius: 7px; border: 1px solid var(--accent); background: var(--accent); color: #fff; font: inherit; cursor: pointer; }
button.secondary { background: #fff; color: var(--accent); }
button:disabled { opacity: .5; cursor: default; }
.hint { color: var(--muted); font-size: 13px; margin: 8px 0 0; }
.error { color: var(--warn); font-weight: 500; margin: 10px 0 0; }
.stats { display: grid; grid-template-columns: repeat(auto-fit, minmax(200px, 1fr)); gap: 14px; }
.stat .label { color: var(--muted); font-size: 13px; text-transform: uppercase; letter-spacing: .04em; }
.stat .value { font-size: 26px; font-weight: 650; margin-top: 4px; font-variant-numeric: tabular-nums; }
.stat .value.small { font-size: 20px; }
.stat .sub { color: var(--muted); font-size: 13px; margin-top: 2px; }
.bar { height: 12px; background: #e8ebf0; border-radius: 6px; overflow: hidden; margin-top: 14px; }
.bar > div { height: 100%; background: var(--accent); width: 0; }
.bar.full > div { background: var(--warn); }
h2 { font-size: 16px; margin: 0 0 12px; display: flex; align-items: center; gap: 10px; }
h2 .nav { margin-left: auto; display: flex; gap: 6px; }
h2 .nav button { padding: 4px 10px; font-size: 13px; }
#chart svg { width: 100%; height: auto; display: block; }
.legend { display: flex; flex-wrap: wrap; gap: 14px; font-size: 13px; margin-top: 8px; color: var(--muted); }
.legend span::before { content: ""; display: inline-block; width: 11px; height: 11px; border-radius: 2px; margin-right: 6px; vertical-align: -1px; background: var(--c); }
table { width: 100%; border-collapse: collapse; font-size: 14px; }
th, td { text-align: left; padding: 8px 6px; border-bottom: 1px solid var(--line); }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
.empty { color: var(--muted); font-size: 14px; padding: 24px 0; text-align: center; }
[hidden] { display: none !important; }
`;

const SCRIPT = `
(function () {
  'use strict';
  var STORE = 'structqa.apiKey';
  var COLORS = ['#2f6fdf', '#e07b39', '#2a9d8f', '#b5479b', '#7a8b2f', '#8a5cf6', '#d64550', '#4a5568'];
  var fmt = new Intl.NumberFormat();
  var $ = function (id) { return document.getElementById(id); };
  var month = null;

  function key() { try { return sessionStorage.getItem(STORE) || ''; } catch (e) { return ''; } }
  function setKey(k) { try { if (k) sessionStorage.setItem(STORE, k); else sessionStorage.removeItem(STORE); } catch (e) {} }

  function showError(msg) { var e = $('error'); e.textContent = msg || ''; e.hidden = !msg; if (msg) $('keycard').hidden = false; }

  function signedOut() {
    $('keycard').hidden = false; $('login').hidden = false; $('report').hidden = true; $('forget').hidden = true; $('acct').textContent = '';
  }

  function load() {
    var k = key();
    if (!k) { signedOut(); return; }
    $('go').disabled = true;
    var url = '../v1/usage' + (month ? '?month=' + encodeURIComponent(month) : '');
    fetch(url, { headers: { Authorization: 'Bearer ' + k }, cache: 'no-store' }).then(function (res) {
      return res.json().catch(function () { return {}; }).then(function (body) { return { res: res, body: body }; });
    }).then(function (r) {
      $('go').disabled = false;
      if (!r.res.ok) {
        var d = r.body && r.body.detail;
        var msg = (d && d.message) || ('The service answered ' + r.res.status + '.');
        if (r.res.status === 401 || r.res.status === 403) { setKey(''); signedOut(); }
        showError(msg);
        return;
      }
      showError('');
      render(r.body);
    }).catch(function (err) {
      $('go').disabled = false;
      showError('Could not reach the service: ' + err.message);
    });
  }

  function utc(iso) { return iso.replace('T', ' ').replace(/:\\d\\d\\.\\d+Z$|:\\d\\dZ$/, '') + ' UTC'; }

  function until(iso) {
    var ms = Date.parse(iso) - Date.now();
    if (ms <= 0) return 'now';
    var d = Math.floor(ms / 86400000), h = Math.floor(ms % 86400000 / 3600000), m = Math.floor(ms % 3600000 / 60000);
    return 'in ' + (d ? d + ' d ' : '') + (d || h ? h + ' h ' : '') + m + ' min';
  }

  function el(name, attrs, text) {
    var e = document.createElementNS('http://www.w3.org/2000/svg', name);
    for (var a in attrs) e.setAttribute(a, attrs[a]);
    if (text !== undefined) e.textContent = text;
    return e;
  }

  function niceMax(v) {
    if (v <= 0) return 10;
    var p = Math.pow(10, Math.floor(Math.log10(v))), n = v / p;
    return (n <= 1 ? 1 : n <= 2 ? 2 : n <= 5 ? 5 : 10) * p;
  }

  function chart(days, models) {
    var box = $('chart');
    box.textContent = '';
    var W = 960, H = 300, L = 64, R = 12, T = 12, B = 40;
    var max = niceMax(Math.max.apply(null, days.map(function (d) { return d.processed_tokens; }).concat([0])));
    var svg = el('svg', { viewBox: '0 0 ' + W + ' ' + H, role: 'img', 'aria-label': 'Processed tokens by day and model', 'data-max': String(max) });
    var plotW = W - L - R, plotH = H - T - B;
    for (var i = 0; i <= 4; i++) {
      var y = T + plotH - plotH * i / 4;
      svg.appendChild(el('line', { x1: L, x2: W - R, y1: y, y2: y, stroke: '#e3e6eb' }));
      svg.appendChild(el('text', { x: L - 8, y: y + 4, 'text-anchor': 'end', 'font-size': 11, fill: '#5d6778' }, fmt.format(max * i / 4)));
    }
    var slot = plotW / Math.max(1, days.length), bw = Math.max(2, Math.min(28, slot * 0.7));
    days.forEach(function (d, i) {
      var x = L + slot * i + (slot - bw) / 2, base = T + plotH;
      models.forEach(function (m, j) {
        var v = d.by_model[m] || 0;
        if (!v) return;
        var h = plotH * v / max;
        var r = el('rect', { x: x.toFixed(1), y: (base - h).toFixed(1), width: bw.toFixed(1), height: Math.max(1, h).toFixed(1), fill: COLORS[j % COLORS.length], 'class': 'bar-seg' });
        r.appendChild(el('title', {}, d.date + ' · ' + m + ': ' + fmt.format(v) + ' tokens'));
        svg.appendChild(r);
        base -= h;
      });
      var every = Math.ceil(days.length / 16);
      if (i % every === 0 || (i === days.length - 1 && i % every >= every / 2)) {
        svg.appendChild(el('text', { x: (L + slot * i + slot / 2).toFixed(1), y: H - B + 16, 'text-anchor': 'middle', 'font-size': 11, fill: '#5d6778' }, d.date.slice(8)));
      }
    });
    svg.appendChild(el('line', { x1: L, x2: W - R, y1: T + plotH, y2: T + plotH, stroke: '#9aa3b2' }));
    svg.appendChild(el('text', { x: L + plotW / 2, y: H - 6, 'text-anchor': 'middle', 'font-size': 12, fill: '#5d6778' }, 'day of ' + (days[0] ? days[0].date.slice(0, 7) : '') + ' (UTC)'));
    box.appendChild(svg);
    var legend = $('legend');
    legend.textContent = '';
    models.forEach(function (m, j) {
      var s = document.createElement('span');
      s.style.setProperty('--c', COLORS[j % COLORS.length]);
      s.textContent = m;
      legend.appendChild(s);
    });
    $('nodata').hidden = models.length > 0;
  }

  function render(u) {
    $('keycard').hidden = !!$('error').textContent; $('login').hidden = true; $('report').hidden = false; $('forget').hidden = false;
    $('acct').textContent = 'Account: ' + u.account.name;
    month = u.period;
    $('period').textContent = u.period;
    $('allowance').textContent = fmt.format(u.allowance);
    $('used').textContent = fmt.format(u.used);
    var pct = u.allowance > 0 ? Math.min(100, 100 * u.used / u.allowance) : 100;
    $('usedPct').textContent = pct.toFixed(1) + ' % of the allowance' + (u.reserved ? ' · ' + fmt.format(u.reserved) + ' in running calls' : '');
    $('remaining').textContent = fmt.format(u.remaining);
    $('requests').textContent = fmt.format(u.requests) + ' answered calls';
    $('resets').textContent = utc(u.resets_at);
    $('resetsSub').textContent = until(u.resets_at) + ' · ' + new Date(u.resets_at).toLocaleString();
    $('meter').style.width = pct + '%';
    $('meterBox').classList.toggle('full', u.remaining <= 0);
    var models = u.by_model.map(function (m) { return m.model; });
    chart(u.by_day, models);
    var tb = $('models');
    tb.textContent = '';
    u.by_model.forEach(function (m, j) {
      var tr = document.createElement('tr');
      [m.model, fmt.format(m.requests), fmt.format(m.processed_tokens), (u.used ? (100 * m.processed_tokens / u.used).toFixed(1) : '0.0') + ' %'].forEach(function (t, i) {
        var td = document.createElement('td'); td.textContent = t; if (i) td.className = 'num'; tr.appendChild(td);
      });
      tb.appendChild(tr);
    });
    $('modelsEmpty').hidden = u.by_model.length > 0;
    $('next').disabled = Date.parse(u.resets_at) > Date.now();
  }

  function shift(delta) {
    if (!month) return;
    var y = +month.slice(0, 4), m = +month.slice(5, 7) - 1 + delta;
    var d = new Date(Date.UTC(y, m, 1));
    month = d.toISOString().slice(0, 7);
    load();
  }

  $('login').addEventListener('submit', function (ev) {
    ev.preventDefault();
    var k = $('key').value.trim();
    if (!k) { showError('Paste an API key first.'); return; }
    setKey(k); $('key').value = ''; month = null; load();
  });
  $('forget').addEventListener('click', function () { setKey(''); month = null; signedOut(); showError(''); });
  $('prev').addEventListener('click', function () { shift(-1); });
  $('next').addEventListener('click', function () { shift(1); });
  $('refresh').addEventListener('click', function () { load(); });
  load();
})();
`;

const BODY = `<header><h1>structqa · Usage</h1><span class="acct" id="acct"></span><button class="secondary" id="forget" hidden>Forget key</button></header>
<main>
<section class="card" id="keycard">
  <form id="login" hidden autocomplete="off">
    <input type="password" id="key" placeholder="API key (sqa_live_…)" aria-label="API key" spellcheck="false">
    <button id="go" type="submit">Show usage</button>
  </form>
  <p class="hint" id="loginHint">The key stays in this browser tab only (sessionStorage) and is sent to this service alone.</p>
  <p class="error" id="error" role="alert" hidden></p>
</section>
<div id="report" hidden>
  <section class="card">
    <h2>Monthly free allowance · <span id="period"></span>
      <span class="nav"><button class="secondary" id="prev" type="button">‹ Earlier</button><button class="secondary" id="next" type="button">Later ›</button><button class="secondary" id="refresh" type="button">Refresh</button></span></h2>
    <div class="stats">
      <div class="stat"><div class="label">Allowance</div><div class="value" id="allowance"></div><div class="sub">processed tokens per month</div></div>
      <div class="stat"><div class="label">Used</div><div class="value" id="used"></div><div class="sub" id="usedPct"></div></div>
      <div class="stat"><div class="label">Remaining</div><div class="value" id="remaining"></div><div class="sub" id="requests"></div></div>
      <div class="stat"><div class="label">Resets</div><div class="value small" id="resets"></div><div class="sub" id="resetsSub"></div></div>
    </div>
    <div class="bar" id="meterBox"><div id="meter"></div></div>
  </section>
  <section class="card">
    <h2>Processed tokens by day and model</h2>
    <div id="chart" data-testid="chart"></div>
    <div class="legend" id="legend"></div>
    <p class="empty" id="nodata" hidden>No answered calls in this month yet.</p>
  </section>
  <section class="card">
    <h2>By model</h2>
    <table><thead><tr><th>Model</th><th class="num">Calls</th><th class="num">Processed tokens</th><th class="num">Share</th></tr></thead><tbody id="models"></tbody></table>
    <p class="empty" id="modelsEmpty" hidden>No usage yet.</p>
  </section>
</div>
</main>`;

const hash = (s: string) => `'sha256-${crypto.createHash('sha256').update(s, 'utf8').digest('base64')}'`;

export const USAGE_PAGE_HTML = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex"><title>Usage · structqa</title>
<style>${STYLE}</style></head>
<body>${BODY}
<script>${SCRIPT}</script>
</body></html>`;

export const USAGE_PAGE_HEADERS: Record<string, string> = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  'content-security-policy': `default-src 'none'; script-src ${hash(SCRIPT)}; style-src ${hash(STYLE)}; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`,
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
};

