/**
 * Our icon: a bank front (roof, three columns, base) in white on the dashboard's accent blue, as SVG
 * (`/favicon.svg`, linked from every page) and as a 32x32 ICO (`/favicon.ico`, which browsers ask for
 * on their own). The ICO is rasterized here from the same shapes, with 4x4 supersampled edges, into
 * a 32-bit BMP inside the ICO container: no image file or tool to keep in step with the SVG.
 */
import { createHash } from 'node:crypto';

const BLUE = [0x1f, 0x4f, 0xd1] as const;

export const FAVICON_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32">' +
  '<rect width="32" height="32" rx="7" fill="#1f4fd1"/>' +
  '<path fill="#fff" d="M16 5 5 11v2h22v-2zM7 15h4v8H7zm7 0h4v8h-4zm7 0h4v8h-4zM6 25h20v2H6z"/>' +
  '</svg>';

/** The shapes of the SVG, as point tests on the 32x32 canvas. */
function inRoundedSquare(x: number, y: number): boolean {
  const r = 7;
  const cx = Math.min(Math.max(x, r), 32 - r);
  const cy = Math.min(Math.max(y, r), 32 - r);
  return (x - cx) ** 2 + (y - cy) ** 2 <= r * r;
}

const box = (x: number, y: number, x0: number, y0: number, w: number, h: number) =>
  x >= x0 && x < x0 + w && y >= y0 && y < y0 + h;

function inGlyph(x: number, y: number): boolean {
  // Roof: the triangle (16,5) (5,11) (27,11), then its 2-unit band down to y = 13.
  const roof = y >= 5 && y < 11 && Math.abs(x - 16) <= ((y - 5) / 6) * 11;
  return (
    roof ||
    box(x, y, 5, 11, 22, 2) ||
    box(x, y, 7, 15, 4, 8) ||
    box(x, y, 14, 15, 4, 8) ||
    box(x, y, 21, 15, 4, 8) ||
    box(x, y, 6, 25, 20, 2)
  );
}

/** BGRA pixels, bottom row first (BMP order). */
function pixels(size: number): Buffer {
  const out = Buffer.alloc(size * size * 4);
  const scale = 32 / size;
  const n = 4;
  for (let row = 0; row < size; row++) {
    for (let col = 0; col < size; col++) {
      let cover = 0;
      let white = 0;
      for (let sy = 0; sy < n; sy++) {
        for (let sx = 0; sx < n; sx++) {
          const x = (col + (sx + 0.5) / n) * scale;
          const y = (row + (sy + 0.5) / n) * scale;
          if (!inRoundedSquare(x, y)) continue;
          cover++;
          if (inGlyph(x, y)) white++;
        }
      }
      const mix = (c: number) => (cover === 0 ? 0 : Math.round((c * (cover - white) + 255 * white) / cover));
      const i = ((size - 1 - row) * size + col) * 4;
      out[i] = mix(BLUE[2]);
      out[i + 1] = mix(BLUE[1]);
      out[i + 2] = mix(BLUE[0]);
      out[i + 3] = Math.round((cover / (n * n)) * 255);
    }
  }
  return out;
}

/** One 32x32 image, 32 bits per pixel, in an ICO container (BMP data, alpha channel, empty AND mask). */
function buildIco(size = 32): Buffer {
  const xor = pixels(size);
  const andMask = Buffer.alloc(((size + 31) >> 5) * 4 * size); // all zero: alpha decides
  const bmp = Buffer.alloc(40);
  bmp.writeUInt32LE(40, 0); // BITMAPINFOHEADER size
  bmp.writeInt32LE(size, 4);
  bmp.writeInt32LE(size * 2, 8); // XOR and AND masks stacked
  bmp.writeUInt16LE(1, 12); // planes
  bmp.writeUInt16LE(32, 14); // bits per pixel
  bmp.writeUInt32LE(xor.length + andMask.length, 20);
  const image = Buffer.concat([bmp, xor, andMask]);
  const header = Buffer.alloc(6 + 16);
  header.writeUInt16LE(0, 0);
  header.writeUInt16LE(1, 2); // icon
  header.writeUInt16LE(1, 4); // one image
  header.writeUInt8(size, 6);
  header.writeUInt8(size, 7);
  header.writeUInt16LE(1, 10); // planes
  header.writeUInt16LE(32, 12); // bits per pixel
  header.writeUInt32LE(image.length, 14);
  header.writeUInt32LE(header.length, 18); // image offset
  return Buffer.concat([header, image]);
}

export interface Icon {
  body: Buffer;
  type: string;
  etag: string;
}

const icon = (body: Buffer, type: string): Icon => ({
  body,
  type,
  etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`,
});

let cached: { svg: Icon; ico: Icon } | null = null;

export function favicons(): { svg: Icon; ico: Icon } {
  cached ??= {
    svg: icon(Buffer.from(FAVICON_SVG), 'image/svg+xml'),
    ico: icon(buildIco(), 'image/x-icon'),
  };
  return cached;
}
