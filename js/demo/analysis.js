// Byte analysis used by the demo Worker: the storage spy, marker search,
// Shannon entropy and the sampled picture of a file for the byte map.
// No browser API here, so the test can check it in Node.

// Occurrences of needle that start in hay[from, to).
export function countIn(hay, needle, from = 0, to = hay.length) {
  const m = needle.length;
  if (m === 0) return 0;
  const first = needle[0];
  const last = Math.min(to, hay.length - m + 1);
  let n = 0;
  outer: for (let i = Math.max(0, from); i < last; i++) {
    if (hay[i] !== first) continue;
    for (let j = 1; j < m; j++) if (hay[i + j] !== needle[j]) continue outer;
    n++;
  }
  return n;
}

// Mark (1) every byte of hay[0, size) that belongs to an occurrence of needle.
export function markAll(hay, size, needle) {
  const mask = new Uint8Array(size);
  const m = needle.length;
  const first = needle[0];
  outer: for (let i = 0; i + m <= size; i++) {
    if (hay[i] !== first) continue;
    for (let j = 1; j < m; j++) if (hay[i + j] !== needle[j]) continue outer;
    mask.fill(1, i, i + m);
  }
  return mask;
}

export function addToHistogram(hist, bytes) {
  for (let i = 0; i < bytes.length; i++) hist[bytes[i]]++;
}

// Shannon entropy in bits per byte of a 256-bin histogram (null if empty).
export function entropy(hist) {
  let n = 0;
  for (let i = 0; i < 256; i++) n += hist[i];
  if (n === 0) return null;
  let h = 0;
  for (let i = 0; i < 256; i++) {
    if (hist[i]) { const p = hist[i] / n; h -= p * Math.log2(p); }
  }
  return h;
}

// A picture of a file for the byte map: `rows` rows of `width` consecutive
// bytes each, from evenly spaced places in the file (the whole file when it
// fits).  Returns the bytes, a mask (1: part of the marker, 2: past the
// end of the file) and the offsets.
export function sampleRows(image, mask, size, width = 256, maxRows = 40) {
  const total = Math.ceil(size / width);
  const rows = Math.max(1, Math.min(maxRows, total));
  const bytes = new Uint8Array(rows * width);
  const marks = new Uint8Array(rows * width);
  const offsets = [];
  for (let r = 0; r < rows; r++) {
    const row = total <= maxRows ? r : Math.floor(r * (total - 1) / Math.max(1, rows - 1));
    const off = row * width;
    const end = Math.min(size, off + width);
    offsets.push(off);
    if (end > off) {
      bytes.set(image.subarray(off, end), r * width);
      marks.set(mask.subarray(off, end), r * width);
    }
    marks.fill(2, r * width + Math.max(0, end - off), (r + 1) * width);   // past the end
  }
  return { bytes, marks, width, rows, offsets, partial: total > maxRows };
}

// The spy: one record per file SQLite opened.  For temp files it keeps a
// shadow image of the file (every write applied at its offset), so a
// marker split across two writes is still found: each write is searched
// together with the bytes around it in the image.  dropClosed: let go of a
// temp file's image when it is closed (its counts stay).
export function makeSpy(needle, { now = () => performance.now(), dropClosed = false } = {}) {
  const open = new Map();      // fileId -> record (while open)
  const all = [];              // every record, in open order
  let spyMs = 0;
  const grow = (f, end) => {
    if (end <= f.image.length) return;
    const g = new Uint8Array(Math.max(end, f.image.length * 2, 65536));
    g.set(f.image.subarray(0, f.size));
    f.image = g;
  };
  const observer = (ev) => {
    const t0 = now();
    if (ev.op === 'open') {
      const f = { name: ev.name, kind: ev.kind, flags: ev.flags, temp: !!ev.temp, open: true,
        written: 0, read: 0, writes: 0, reads: 0, hits: 0, size: 0,
        image: new Uint8Array(0), hist: new Float64Array(256) };
      open.set(ev.fileId, f);
      all.push(f);
    } else if (ev.op === 'close') {
      const f = open.get(ev.fileId);
      if (f) {
        f.open = false;
        if (dropClosed) f.image = new Uint8Array(0);
      }
      open.delete(ev.fileId);
    } else if (ev.op === 'read') {
      const f = open.get(ev.fileId);
      if (f) { f.reads++; f.read += ev.got ?? ev.length; }
    } else if (ev.op === 'truncate') {
      const f = open.get(ev.fileId);
      if (f && f.temp && ev.size < f.size) { f.image.fill(0, ev.size, f.size); f.size = ev.size; }
    } else if (ev.op === 'write') {
      const f = open.get(ev.fileId);
      if (f) {
        f.writes++;
        f.written += ev.length;
        if (f.temp) {
          // ev.data is a view into wasm memory, valid only now: copy it.
          const end = ev.offset + ev.length;
          grow(f, end);
          if (ev.offset > f.size) f.image.fill(0, f.size, ev.offset);
          f.image.set(ev.data, ev.offset);
          f.size = Math.max(f.size, end);
          addToHistogram(f.hist, ev.data);
          const m = needle.length;
          f.hits += countIn(f.image, needle, ev.offset - m + 1, Math.min(f.size, end + m - 1) - m + 1);
        }
      }
    }
    spyMs += now() - t0;
  };
  return { observer, all, get spyMs() { return spyMs; } };
}
