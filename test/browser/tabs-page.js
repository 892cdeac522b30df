// In a test page (test/browser/multitab.mjs): a database shared by tabs,
// and a writer that writes numbered rows until told to stop.  What each
// writer was told about each write goes to localStorage, which outlives
// the page (a tab closed or reloaded mid-write), so the test can count.
import { open } from '/dist/index.js';

// Open `name` in this page as window.db; the owners seen are appended to
// localStorage 'owners' (a handover log: [time, tab id of the new owner]).
export async function openDb(name, options = {}) {
  const db = await open(name, options);
  window.db = db;
  const log = (owner) => {
    const owners = JSON.parse(localStorage.getItem('owners') || '[]');
    if (!owners.length || owners[owners.length - 1][1] !== owner.id) owners.push([Date.now(), owner.id]);
    localStorage.setItem('owners', JSON.stringify(owners));
  };
  log(db.owner);
  db.onownerchange = log;
  return { owner: db.owner, tab: db.tab };
}

// Rows (writer, seq, part) for seq = 1, 2, ... one at a time until
// window.stopWriting; every 5th seq is a transaction of two rows (parts 0
// and 1).  localStorage: sent:<writer> the last seq tried, acked:<writer>
// the last one acknowledged, unknown:<writer> seqs whose outcome is
// unknown (SQLITE_ABORT), failed:<writer> [seq, code] of those refused
// (each key written by one page only).
export function startWriter(writer) {
  localStorage.setItem(`sent:${writer}`, '0');   // (one key per writer: tabs write localStorage at once)
  const note = (kind, entry) => {
    const key = `${kind}:${writer}`;
    localStorage.setItem(key, JSON.stringify([...JSON.parse(localStorage.getItem(key) || '[]'), entry]));
  };
  window.stopWriting = false;
  window.writing = (async () => {
    const db = window.db;
    for (let seq = 1; !window.stopWriting; seq++) {
      localStorage.setItem(`sent:${writer}`, String(seq));
      try {
        if (seq % 5 === 0) {
          await db.transaction(async (tx) => {
            await tx.run('INSERT INTO w VALUES (?, ?, 0)', [writer, seq]);
            await tx.run('INSERT INTO w VALUES (?, ?, 1)', [writer, seq]);
          });
        } else {
          await db.run('INSERT INTO w VALUES (?, ?, 0)', [writer, seq]);
        }
        localStorage.setItem(`acked:${writer}`, String(seq));
      } catch (e) {
        if (e.code === 4) note('unknown', seq);
        else note('failed', [seq, e.code, e.message]);
      }
    }
  })();
}

// What the writers were told, from localStorage.
export function told() {
  const get = (k, d) => JSON.parse(localStorage.getItem(k) || d);
  const writers = Object.keys(localStorage).filter((k) => k.startsWith('sent:')).map((k) => k.slice(5));
  return {
    owners: get('owners', '[]'),
    writers: Object.fromEntries(writers.map((w) => [w, {
      sent: Number(localStorage.getItem(`sent:${w}`) || 0),
      acked: Number(localStorage.getItem(`acked:${w}`) || 0),
      unknown: get(`unknown:${w}`, '[]'),
      failed: get(`failed:${w}`, '[]'),
    }])),
  };
}
