/**
 * A tiny RGB raster and PNG encoder (node:zlib deflate + CRC-32 per chunk), enough to draw the
 * reliability diagram of `npm run eval` without an image dependency. Text uses a built-in 3×5 pixel
 * font (digits, upper-case letters and a little punctuation; lower case is drawn as upper case).
 */
import zlib from 'node:zlib';

export type RGB = readonly [number, number, number];

const CRC_TABLE = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();

export function crc32(buf: Uint8Array): number {
  let c = 0xffffffff;
  for (const byte of buf) c = CRC_TABLE[(c ^ byte) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'ascii');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
  return Buffer.concat([head, data, crc]);
}

// 3×5 glyphs, rows top to bottom, 3 bits each (4 = left pixel).
const FONT: Record<string, number[]> = {
  '0': [7, 5, 5, 5, 7], '1': [2, 6, 2, 2, 7], '2': [7, 1, 7, 4, 7], '3': [7, 1, 7, 1, 7],
  '4': [5, 5, 7, 1, 1], '5': [7, 4, 7, 1, 7], '6': [7, 4, 7, 5, 7], '7': [7, 1, 1, 2, 2],
  '8': [7, 5, 7, 5, 7], '9': [7, 5, 7, 1, 7],
  A: [2, 5, 7, 5, 5], B: [6, 5, 6, 5, 6], C: [3, 4, 4, 4, 3], D: [6, 5, 5, 5, 6], E: [7, 4, 6, 4, 7],
  F: [7, 4, 6, 4, 4], G: [3, 4, 5, 5, 3], H: [5, 5, 7, 5, 5], I: [7, 2, 2, 2, 7], J: [1, 1, 1, 5, 2],
  K: [5, 5, 6, 5, 5], L: [4, 4, 4, 4, 7], M: [5, 7, 7, 5, 5], N: [6, 5, 5, 5, 5], O: [2, 5, 5, 5, 2],
  P: [6, 5, 6, 4, 4], Q: [2, 5, 5, 6, 3], R: [6, 5, 6, 5, 5], S: [3, 4, 2, 1, 6], T: [7, 2, 2, 2, 2],
  U: [5, 5, 5, 5, 7], V: [5, 5, 5, 5, 2], W: [5, 5, 7, 7, 5], X: [5, 5, 2, 5, 5], Y: [5, 5, 2, 2, 2],
  Z: [7, 1, 2, 4, 7],
  ' ': [0, 0, 0, 0, 0], '.': [0, 0, 0, 0, 2], ',': [0, 0, 0, 2, 4], ':': [0, 2, 0, 2, 0],
  '-': [0, 0, 7, 0, 0], '=': [0, 7, 0, 7, 0], '/': [1, 1, 2, 4, 4], '(': [2, 4, 4, 4, 2],
  ')': [2, 1, 1, 1, 2], '%': [5, 1, 2, 4, 5], '+': [0, 2, 7, 2, 0], '_': [0, 0, 0, 0, 7],
  '?': [7, 1, 2, 0, 2], '#': [5, 7, 5, 7, 5], '<': [1, 2, 4, 2, 1], '>': [4, 2, 1, 2, 4],
};

export class Raster {
  readonly pixels: Uint8Array;
  constructor(
    readonly width: number,
    readonly height: number,
    background: RGB = [255, 255, 255],
  ) {
    this.pixels = new Uint8Array(width * height * 3);
    this.fillRect(0, 0, width, height, background);
  }

  set(x: number, y: number, c: RGB, alpha = 1): void {
    x = Math.round(x);
    y = Math.round(y);
    if (x < 0 || y < 0 || x >= this.width || y >= this.height) return;
    const i = (y * this.width + x) * 3;
    for (let k = 0; k < 3; k++) this.pixels[i + k] = Math.round(this.pixels[i + k]! * (1 - alpha) + c[k]! * alpha);
  }

  fillRect(x: number, y: number, w: number, h: number, c: RGB, alpha = 1): void {
    const x0 = Math.max(0, Math.round(x));
    const y0 = Math.max(0, Math.round(y));
    const x1 = Math.min(this.width, Math.round(x + w));
    const y1 = Math.min(this.height, Math.round(y + h));
    for (let yy = y0; yy < y1; yy++) for (let xx = x0; xx < x1; xx++) this.set(xx, yy, c, alpha);
  }

  strokeRect(x: number, y: number, w: number, h: number, c: RGB): void {
    this.line(x, y, x + w, y, c);
    this.line(x + w, y, x + w, y + h, c);
    this.line(x + w, y + h, x, y + h, c);
    this.line(x, y + h, x, y, c);
  }

  /** A line `thickness` pixels wide; `dash` > 0 draws dashes of that many pixels. */
  line(x0: number, y0: number, x1: number, y1: number, c: RGB, thickness = 1, dash = 0): void {
    const steps = Math.max(1, Math.ceil(Math.max(Math.abs(x1 - x0), Math.abs(y1 - y0))));
    const r = (thickness - 1) / 2;
    for (let s = 0; s <= steps; s++) {
      if (dash > 0 && Math.floor(s / dash) % 2 === 1) continue;
      const x = x0 + ((x1 - x0) * s) / steps;
      const y = y0 + ((y1 - y0) * s) / steps;
      if (thickness <= 1) this.set(x, y, c);
      else this.fillRect(x - r, y - r, thickness, thickness, c);
    }
  }

  /** Text at (x, y) = top-left, each font pixel drawn as a `scale`×`scale` square. */
  text(x: number, y: number, s: string, c: RGB, scale = 2): void {
    let cx = x;
    for (const ch of s.toUpperCase()) {
      const glyph = FONT[ch] ?? FONT['?']!;
      glyph.forEach((row, gy) => {
        for (let gx = 0; gx < 3; gx++) {
          if (row & (4 >> gx)) this.fillRect(cx + gx * scale, y + gy * scale, scale, scale, c);
        }
      });
      cx += 4 * scale;
    }
  }

  static textWidth(s: string, scale = 2): number {
    return s.length ? (s.length * 4 - 1) * scale : 0;
  }

  /** Text rotated 90° anticlockwise (reads bottom to top), (x, y) = bottom-left of the first glyph. */
  textVertical(x: number, y: number, s: string, c: RGB, scale = 2): void {
    let cy = y;
    for (const ch of s.toUpperCase()) {
      const glyph = FONT[ch] ?? FONT['?']!;
      glyph.forEach((row, gy) => {
        for (let gx = 0; gx < 3; gx++) {
          if (row & (4 >> gx)) this.fillRect(x + gy * scale, cy - (gx + 1) * scale, scale, scale, c);
        }
      });
      cy -= 4 * scale;
    }
  }

  /** 8-bit RGB PNG (colour type 2, no interlace), one filter-0 scanline per row. */
  toPng(): Buffer {
    const header = Buffer.alloc(13);
    header.writeUInt32BE(this.width, 0);
    header.writeUInt32BE(this.height, 4);
    header[8] = 8; // bit depth
    header[9] = 2; // colour type: truecolour
    header[10] = 0; // compression
    header[11] = 0; // filter method
    header[12] = 0; // no interlace
    const stride = this.width * 3;
    const raw = Buffer.alloc((stride + 1) * this.height);
    for (let y = 0; y < this.height; y++) {
      raw[y * (stride + 1)] = 0;
      raw.set(this.pixels.subarray(y * stride, (y + 1) * stride), y * (stride + 1) + 1);
    }
    return Buffer.concat([
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
      chunk('IHDR', header),
      chunk('IDAT', zlib.deflateSync(raw, { level: 9 })),
      chunk('IEND', Buffer.alloc(0)),
    ]);
  }
}
