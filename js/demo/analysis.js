// Byte analysis used by the demo Worker: marker search, Shannon entropy
// and the sampled picture of a file for the byte map.

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
