// A minimal PNG reader for the test's "is the screenshot blank?" check:
// 8-bit RGB or RGBA, not interlaced (what Chromium's screenshots are).
import zlib from 'node:zlib';

export function decodePng(buf) {
  const SIG = '89504e470d0a1a0a';
  if (buf.subarray(0, 8).toString('hex') !== SIG) throw new Error('not a PNG');
  let off = 8, width = 0, height = 0, depth = 0, type = 0, interlace = 0;
  const idat = [];
  while (off < buf.length) {
    const len = buf.readUInt32BE(off);
    const kind = buf.toString('latin1', off + 4, off + 8);
    const data = buf.subarray(off + 8, off + 8 + len);
    if (kind === 'IHDR') {
      width = data.readUInt32BE(0); height = data.readUInt32BE(4);
      depth = data[8]; type = data[9]; interlace = data[12];
    } else if (kind === 'IDAT') idat.push(data);
    else if (kind === 'IEND') break;
    off += 12 + len;
  }
  if (depth !== 8 || (type !== 2 && type !== 6) || interlace) throw new Error(`unsupported PNG (depth ${depth}, colour type ${type}, interlace ${interlace})`);
  const bpp = type === 6 ? 4 : 3;
  const raw = zlib.inflateSync(Buffer.concat(idat));
  const stride = width * bpp;
  const px = new Uint8Array(height * stride);
  for (let y = 0; y < height; y++) {
    const f = raw[y * (stride + 1)];
    const src = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
    const cur = px.subarray(y * stride, (y + 1) * stride);
    const prev = y ? px.subarray((y - 1) * stride, y * stride) : null;
    for (let i = 0; i < stride; i++) {
      const a = i >= bpp ? cur[i - bpp] : 0, b = prev ? prev[i] : 0, c = prev && i >= bpp ? prev[i - bpp] : 0;
      let v = src[i];
      if (f === 1) v += a;
      else if (f === 2) v += b;
      else if (f === 3) v += (a + b) >> 1;
      else if (f === 4) { const p = a + b - c, pa = Math.abs(p - a), pb = Math.abs(p - b), pc = Math.abs(p - c); v += pa <= pb && pa <= pc ? a : pb <= pc ? b : c; }
      cur[i] = v & 255;
    }
  }
  return { width, height, bpp, pixels: px };
}

// How many pixels have each colour (0xRRGGBB -> count).
function colourCounts(pixels, bpp) {
  const counts = new Map();
  for (let i = 0; i < pixels.length; i += bpp) {
    const k = (pixels[i] << 16) | (pixels[i + 1] << 8) | pixels[i + 2];
    counts.set(k, (counts.get(k) || 0) + 1);
  }
  return counts;
}

// Distinct colours and the share of the most common one.
export function colourStats({ pixels, bpp }) {
  const counts = colourCounts(pixels, bpp);
  let top = 0;
  for (const n of counts.values()) top = Math.max(top, n);
  return { distinct: counts.size, topShare: top / (pixels.length / bpp) };
}

// Re-encode as an 8-bit palette PNG (for the README's screenshot): the 256
// most common colours, every other colour mapped to its nearest one.  UI
// screenshots lose nothing visible (only anti-aliasing shades move).
export function toPalettePng({ width, height, bpp, pixels }) {
  const counts = colourCounts(pixels, bpp);
  const palette = [...counts.entries()].sort((a, b) => b[1] - a[1]).slice(0, 256).map((e) => e[0]);
  const index = new Map(palette.map((k, i) => [k, i]));
  const nearest = (k) => {
    let best = 0, bestD = Infinity;
    const r = k >> 16, g = (k >> 8) & 255, b = k & 255;
    for (let i = 0; i < palette.length; i++) {
      const p = palette[i], dr = r - (p >> 16), dg = g - ((p >> 8) & 255), db = b - (p & 255);
      const d = 2 * dr * dr + 4 * dg * dg + 3 * db * db;
      if (d < bestD) { bestD = d; best = i; }
    }
    index.set(k, best);
    return best;
  };
  const raw = Buffer.alloc(height * (width + 1));
  for (let y = 0; y < height; y++) {
    raw[y * (width + 1)] = 0;
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * bpp;
      const k = (pixels[i] << 16) | (pixels[i + 1] << 8) | pixels[i + 2];
      raw[y * (width + 1) + 1 + x] = index.get(k) ?? nearest(k);
    }
  }
  const chunk = (type, data) => {
    const len = Buffer.alloc(4); len.writeUInt32BE(data.length);
    const td = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const crc = Buffer.alloc(4); crc.writeUInt32BE(crc32(td));
    return Buffer.concat([len, td, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0); ihdr.writeUInt32BE(height, 4); ihdr[8] = 8; ihdr[9] = 3;
  const plte = Buffer.alloc(palette.length * 3);
  palette.forEach((k, i) => { plte[3 * i] = k >> 16; plte[3 * i + 1] = (k >> 8) & 255; plte[3 * i + 2] = k & 255; });
  return Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), chunk('IHDR', ihdr), chunk('PLTE', plte),
    chunk('IDAT', zlib.deflateSync(raw, { level: 9 })), chunk('IEND', Buffer.alloc(0))]);
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
function crc32(buf) {
  let c = 0xffffffff;
  for (const b of buf) c = CRC_TABLE[(c ^ b) & 255] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}
