// The demo page: controls, the Worker that runs the workloads, and the
// side-by-side rendering of what reached OPFS.
import { SIZE, BUDGETS, BUDGET_START, BUDGET_DEFAULT, KIND_LABELS, loadWorkloads, workloadsFor } from './workloads.js';

// The demo's workloads, from the workload table (test/workloads.txt).
let WORKLOADS = [];

const $ = (id) => document.getElementById(id);
const fmt = (n) => Math.round(n).toLocaleString('en-US');
const setState = (s) => { document.body.dataset.state = s; };

function bytes(n) {
  if (n >= 1024 * 1024 && n % (1024 * 1024) === 0) return `${fmt(n / 1024 / 1024)} MiB`;
  if (n < 1024) return `${fmt(n)} B`;
  if (n < 1000 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / 1024 / 1024).toFixed(2)} MiB`;
}

function el(tag, attrs = {}, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === 'class') e.className = v;
    else if (k === 'text') e.textContent = v;
    else if (k.startsWith('data-')) e.setAttribute(k, v);
    else e[k] = v;
  }
  for (const k of kids) if (k !== null && k !== undefined) e.append(k);
  return e;
}

// A default secret made at page load, so it is never part of a cached file.
function makeSecret() {
  const r = crypto.getRandomValues(new Uint32Array(3));
  const names = ['Alice', 'Bruno', 'Chen', 'Dana', 'Emeka', 'Farah', 'Gustav', 'Hana', 'Ines', 'Jonas'];
  const pin = (x) => String(x % 10000).padStart(4, '0');
  return `${names[r[0] % names.length]}'s PIN ${pin(r[1])}-${pin(r[2])}`;
}

// ---------------------------------------------------------------- OPFS check
function noOpfs(why) {
  const b = $('no-opfs');
  b.hidden = false;
  b.replaceChildren(
    el('b', { text: 'This browser cannot run the demo: ' }), why,
    el('br'),
    'The demo needs the Origin Private File System with synchronous access handles in a dedicated Worker ' +
    '(current Chrome, Edge, Firefox or Safari), over https or on localhost / 127.0.0.1. Private windows of ' +
    'some browsers turn OPFS off.');
  $('run').disabled = true;
  $('status').textContent = 'OPFS is not available here.';
  setState('no-opfs');
}

function mainThreadOpfsProblem() {
  if (!window.isSecureContext) return `this page is not a secure context (${location.protocol}//${location.host}), and OPFS exists only in secure contexts.`;
  if (!navigator.storage || typeof navigator.storage.getDirectory !== 'function') return 'navigator.storage.getDirectory() is missing: this browser has no OPFS.';
  if (typeof Worker !== 'function') return 'this browser has no Web Workers.';
  return null;
}

// ---------------------------------------------------------------- Worker
let worker = null;
let pending = null;
function startWorker() {
  worker = new Worker(new URL('./demo-worker.js', import.meta.url), { type: 'module' });
  worker.onmessage = ({ data }) => { const p = pending; pending = null; if (p) p.resolve(data); };
  worker.onerror = (e) => {
    const p = pending; pending = null;
    const msg = `the demo Worker failed to load or crashed${e.message ? ': ' + e.message : ''}`;
    if (p) p.resolve({ ok: false, error: msg });
    else showError(msg);
  };
}
function call(msg) {
  return new Promise((resolve) => { pending = { resolve }; worker.postMessage(msg); });
}

function showError(msg) {
  $('status').replaceChildren(el('span', { class: 'error', text: `Error: ${msg}` }));
  setState('error');
}

// ---------------------------------------------------------------- rendering
// Colour of one byte in the byte map (mark: 1 = part of the secret,
// 2 = past the end of the file).  Four shades per class are enough to
// see structure, and keep screenshots small.
const SHADES = {
  text: [[62, 120, 205], [79, 143, 232], [104, 163, 240], [132, 182, 245]],
  low: [[46, 140, 72], [63, 174, 90], [90, 190, 112], [120, 205, 140]],
  high: [[165, 52, 48], [200, 70, 64], [217, 83, 79], [235, 120, 110]],
};
function colour(b, mark) {
  if (mark === 2) return [238, 238, 238];
  if (mark === 1) return [255, 212, 0];
  if (b === 0) return [0, 0, 0];
  if (b === 255) return [255, 255, 255];
  if (b >= 0x20 && b < 0x7f) return SHADES.text[Math.min(3, (b - 0x20) >> 5)];
  if (b < 0x20 || b === 0x7f) return SHADES.low[(b >> 3) & 3];
  return SHADES.high[(b - 0x80) >> 5];
}

function byteMap(map) {
  const c = el('canvas', { class: 'bytemap', width: map.width, height: map.rows });
  const ctx = c.getContext('2d');
  const img = ctx.createImageData(map.width, map.rows);
  for (let i = 0; i < map.bytes.length; i++) {
    const [r, g, b] = colour(map.bytes[i], map.marks[i]);
    img.data[4 * i] = r; img.data[4 * i + 1] = g; img.data[4 * i + 2] = b; img.data[4 * i + 3] = 255;
  }
  ctx.putImageData(img, 0, 0);
  c.title = map.partial ? `${map.rows} lines of 256 bytes sampled across the file` : 'the whole file';
  return c;
}

function metric(name, label, value, cls = '') {
  return el('div', { class: `metric ${cls}`, 'data-metric': name },
    el('span', { class: 'value', text: value }), el('span', { class: 'label', text: label }));
}

const CLASS_LABELS = { 'main-db': 'main database (your table, by design)', journal: 'rollback journal', temp: 'temp files', free: 'empty pool files', other: 'other files' };

function scanLine(title, by, extra) {
  const parts = [];
  let tempHits = 0;
  for (const cls of ['temp', 'free', 'other', 'journal', 'main-db']) {
    const b = by[cls];
    if (!b) continue;
    if (cls !== 'main-db' && cls !== 'journal') tempHits += b.hits;
    parts.push(`${CLASS_LABELS[cls]}: ${fmt(b.files)} file${b.files === 1 ? '' : 's'}, ${bytes(b.bytes)}, secret found ${fmt(b.hits)}×`);
  }
  return el('div', { class: `scan ${tempHits ? 'bad' : 'good'}` },
    el('b', { text: title }), ' ', extra || '', el('br'), parts.join(' · '));
}

function renderSide(side, r) {
  const body = $(`side-${side}`).querySelector('.body');
  const w = WORKLOADS.find((x) => x.id === r.workload);
  const found = r.hits > 0;
  const ent = r.entropy === null ? '—' : r.entropy.toFixed(2);
  const st = r.stats;
  const opened = st.nFileEncrypted + st.nFilePlain;
  // The memory tier applies to encrypted temp files only.
  const tier = r.enabled;
  const metrics = el('div', { class: 'metrics' },
    metric('hits', 'times your secret reached OPFS', fmt(r.hits), found ? 'bad' : 'good'),
    metric('entropy', 'entropy, bits per byte', ent, r.entropy !== null && r.entropy > 7.9 ? 'good' : r.entropy === null ? '' : 'bad'),
    metric('opened', 'temp files SQLite opened', fmt(opened)),
    metric('files', 'temp files in OPFS', fmt(r.temp.length)),
    metric('written', 'written to temp files in OPFS', bytes(r.written)),
    metric('read', 'read back from OPFS', bytes(r.read)),
    metric('memory', tier ? `in memory at most (budget ${bytes(r.budget)})` : 'in memory (no memory tier with tempcrypt off)', tier ? bytes(st.nMemPeak) : '—'),
    metric('spilled', tier ? 'spilled to OPFS past the budget' : 'spilled to OPFS past a budget', tier ? bytes(st.nSpilled) : '—'),
    metric('enciphered', 'through the cipher (both ways)', bytes(st.nEnciphered)),
    metric('time', 'run time', `${fmt(r.ms)} ms`));
  let verdict;
  if (opened === 0) {
    verdict = el('p', { class: 'verdict', text: `${w.label} opened no temp file at ${fmt(r.rows)} rows: SQLite kept it in memory. Move the slider up.` });
  } else if (found) {
    verdict = el('p', { class: 'verdict bad', text: `Your secret was written to OPFS ${fmt(r.hits)} times, in plaintext, in ${r.temp.filter((f) => f.hits).length} of ${r.temp.length} temp files.` });
  } else if (r.temp.length === 0) {
    verdict = el('p', { class: 'verdict good', text: `Your secret never reached OPFS: all ${opened} temp files stayed in memory (at most ${bytes(st.nMemPeak)} at once, within the ${bytes(r.budget)} budget). Lower the budget to watch them spill, encrypted.` });
  } else {
    verdict = el('p', { class: 'verdict good', text: `Your secret was not found in any of the ${bytes(r.written)} written to temp files: ${st.nFileEncrypted} files encrypted, each under its own key; ${r.temp.length} of them reached OPFS` +
      (st.nMemPeak ? `, and up to ${bytes(st.nMemPeak)} stayed in memory.` : '.') });
  }

  const table = el('table', { class: 'files' },
    el('thead', {}, el('tr', {}, ...['temp file', 'written', 'read', 'secret found', 'entropy'].map((h) => el('th', { text: h })))));
  const tbody = el('tbody');
  for (const f of r.temp) {
    tbody.append(el('tr', { class: `file ${f.hits ? 'bad' : ''}`, title: `open flags 0x${f.flags.toString(16)}` },
      el('td', {}, el('b', { text: KIND_LABELS[f.kind] || f.kind }), ' ',
        el('span', { class: 'dim', text: `${f.name}${f.open ? ' (still open)' : ''}` })),
      el('td', { class: 'num', text: bytes(f.written) }),
      el('td', { class: 'num', text: bytes(f.read) }),
      el('td', { class: 'num', text: fmt(f.hits) }),
      el('td', { class: 'num', text: f.entropy === null ? '—' : f.entropy.toFixed(3) })));
    tbody.append(el('tr', { class: 'map' }, el('td', { colSpan: 5 }, byteMap(f.map))));
  }
  table.append(tbody);

  const named = r.named.filter((f) => f.written || f.read)
    .map((f) => `${KIND_LABELS[f.kind] || f.kind} ${f.name}: ${bytes(f.written)} written, ${bytes(f.read)} read`).join(' · ');
  const open = scanLine('OPFS right after the run', r.poolOpen, '(connection still open; the files of finished statements are already closed and wiped):');
  const after = scanLine('Everything in OPFS after closing', r.opfsAfter, `(${fmt(r.opfsAfterFiles)} files, ${bytes(r.opfsAfterBytes)}):`);
  body.replaceChildren(metrics, verdict, r.temp.length ? table : '', open, after,
    named ? el('p', { class: 'dim small', text: `Named files (stored as they are, not temp files): ${named}.` }) : '',
    el('p', { class: 'dim small', text: `Setup (${fmt(r.rows)} rows, not watched): ${fmt(r.setupMs)} ms. The spy took ${fmt(r.spyMs)} ms more.` }));
  $(`side-${side}`).dataset.done = '1';
}

function renderRunning(side, text) {
  $(`side-${side}`).querySelector('.body').replaceChildren(el('p', { class: 'empty', text }));
  delete $(`side-${side}`).dataset.done;
}

// ---------------------------------------------------------------- controls
function describeWorkload() {
  const w = WORKLOADS.find((x) => x.id === $('workload').value);
  $('workload-what').textContent = w.what;
  $('workload-sql').textContent = w.sql;
}

async function runBoth(ev) {
  ev.preventDefault();
  const marker = $('secret').value;
  if (new TextEncoder().encode(marker).length < 6) {
    showError('the secret must be at least 6 bytes long (a shorter string could turn up in random bytes by chance).');
    return;
  }
  const workload = $('workload').value;
  const rows = Number($('size').value);
  const budget = BUDGETS[Number($('budget').value)];
  $('run').disabled = true;
  setState('running');
  const label = WORKLOADS.find((x) => x.id === workload).label;
  try {
    const res = {};
    for (const [side, enabled] of [['plain', false], ['enc', true]]) {
      renderRunning(side, 'Running…');
      $('status').textContent = `Running “${label}” on ${fmt(rows)} rows with tempcrypt ${enabled ? `on (memory budget ${bytes(budget)})` : 'off'}…`;
      const out = await call({ cmd: 'run', marker, workload, rows, enabled, budget });
      if (!out.ok) throw new Error(out.error);
      res[side] = out.result;
      renderSide(side, out.result);
    }
    const { plain, enc } = res;
    $('status').textContent = plain.temp.length === 0
      ? `“${label}” did not spill to a temp file at ${fmt(rows)} rows. Try more rows.`
      : `“${label}”, ${fmt(rows)} rows: secret found ${fmt(plain.hits)}× in plaintext temp files, ${fmt(enc.hits)}× with tempcrypt ` +
        `(memory budget ${bytes(enc.budget)}: ${bytes(enc.stats.nMemPeak)} in memory, ${bytes(enc.stats.nSpilled)} to OPFS). ` +
        (enc.entropy === null ? '' : `Entropy ${plain.entropy.toFixed(2)} vs ${enc.entropy.toFixed(2)} bits/byte. `) + `Time ${fmt(plain.ms)} vs ${fmt(enc.ms)} ms.`;
    setState('done');
  } catch (e) {
    showError(e.message);
  } finally {
    $('run').disabled = false;
  }
}

async function main() {
  WORKLOADS = workloadsFor(await loadWorkloads(), 'demo');
  const sel = $('workload');
  for (const w of WORKLOADS) sel.append(el('option', { value: w.id, text: w.label }));
  const params = new URLSearchParams(location.search);
  if (params.get('workload') && WORKLOADS.some((w) => w.id === params.get('workload'))) sel.value = params.get('workload');
  const size = $('size');
  Object.assign(size, { min: SIZE.min, max: SIZE.max, step: SIZE.step, value: Number(params.get('rows')) || SIZE.value });
  const showSize = () => { $('size-out').textContent = fmt(Number(size.value)); };
  size.addEventListener('input', showSize);
  showSize();
  // The budget control steps through BUDGETS (?budget=BYTES picks one).
  const budget = $('budget');
  const asked = params.has('budget') ? BUDGETS.indexOf(Number(params.get('budget'))) : -1;
  Object.assign(budget, { min: 0, max: BUDGETS.length - 1, step: 1, value: asked >= 0 ? asked : BUDGETS.indexOf(BUDGET_START) });
  budget.dataset.budgets = BUDGETS.join(',');
  const showBudget = () => {
    const b = BUDGETS[Number(budget.value)];
    $('budget-out').textContent = b === 0 ? '0 (no memory tier)' : `${bytes(b)}${b === BUDGET_DEFAULT ? ' (the default)' : ''}`;
  };
  budget.addEventListener('input', showBudget);
  showBudget();
  sel.addEventListener('change', describeWorkload);
  describeWorkload();
  $('secret').value = makeSecret();
  $('controls').addEventListener('submit', runBoth);

  const problem = mainThreadOpfsProblem();
  if (problem) { noOpfs(problem); return; }
  startWorker();
  const probe = await call({ cmd: 'probe' });
  if (!probe.ok) { showError(probe.error); return; }
  if (!probe.opfs) { noOpfs(`in a Worker, ${probe.missing}.`); return; }
  $('status').textContent = 'Warming up SQLite…';
  const warm = await call({ cmd: 'warmup' });
  if (!warm.ok) { showError(warm.error); return; }
  $('run').disabled = false;
  $('status').textContent = 'Ready. Type a secret (or keep the one made up for you), pick a workload and press “Run both”.';
  setState('ready');
}

main().catch((e) => showError(e.message));
