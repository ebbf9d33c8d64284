// Image files → the 8-bit grey page Tesseract reads. sharp (libvips) decodes PNG, JPEG, TIFF,
// WebP and GIF; BMP, which sharp's prebuilt libvips has no loader for, goes through bmp-js (the
// decoder tesseract.js itself uses for BMP). Bounds first: a page's size is read from its header
// and refused before any pixel is decoded when it is over the limit (a decompression bomb), and a
// file that ends early fails as truncated instead of becoming a half-grey page. EXIF orientation
// is applied, transparency flattened onto white.
/// <reference path="./bmp-js.d.ts" />
import bmp from 'bmp-js';
import sharp from 'sharp';
import type { OcrLimits } from './types.js';

export type ImageFormat = 'png' | 'jpeg' | 'tiff' | 'webp' | 'gif' | 'bmp';

/** A page as Tesseract gets it: one byte of grey per pixel, row by row. */
export interface GreyPage {
  width: number;
  height: number;
  data: Uint8Array;
  /** Resolution when it is known (a rendered PDF page): Tesseract sizes text by it. */
  dpi?: number;
}

/** An image that cannot be read, with the reason a person can act on. */
export class ImageError extends Error {}

export const IMAGE_EXTENSIONS: Record<string, ImageFormat> = {
  png: 'png', jpg: 'jpeg', jpeg: 'jpeg', jpe: 'jpeg', jfif: 'jpeg', tif: 'tiff', tiff: 'tiff', webp: 'webp', gif: 'gif', bmp: 'bmp', dib: 'bmp',
};

/** The format by its magic bytes (the extension can lie). */
export function sniffImage(bytes: Uint8Array): ImageFormat | null {
  const b = bytes;
  const ascii = (from: number, to: number) => String.fromCharCode(...b.subarray(from, to));
  if (b.length >= 8 && b[0] === 0x89 && ascii(1, 4) === 'PNG') return 'png';
  if (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return 'jpeg';
  if (b.length >= 4 && (ascii(0, 4) === 'II*\0' || ascii(0, 4) === 'MM\0*')) return 'tiff';
  if (b.length >= 12 && ascii(0, 4) === 'RIFF' && ascii(8, 12) === 'WEBP') return 'webp';
  if (b.length >= 6 && (ascii(0, 6) === 'GIF87a' || ascii(0, 6) === 'GIF89a')) return 'gif';
  if (b.length >= 26 && ascii(0, 2) === 'BM') return 'bmp';
  return null;
}

function formatOf(bytes: Uint8Array): ImageFormat {
  const format = sniffImage(bytes);
  if (!format) throw new ImageError('not an image Trove can read (PNG, JPEG, TIFF, WebP, GIF or BMP expected)');
  return format;
}

/**
 * Pages of an image file: a multi-page TIFF's pages (a fax, a scanned contract); every other
 * image is one page (the frames of an animated GIF or WebP are not pages: its first is read).
 */
export async function imagePageCount(bytes: Uint8Array): Promise<{ format: ImageFormat; pages: number }> {
  const format = formatOf(bytes);
  if (format !== 'tiff') return { format, pages: 1 };
  const meta = await sharp(bytes, { limitInputPixels: false }).metadata().catch((err: Error) => {
    throw damaged(err);
  });
  return { format, pages: Math.max(1, meta.pages ?? 1) };
}

/** Decodes page `page` (1-based) of an image file to grey, upright (EXIF), within the bounds. */
export async function decodeImagePage(bytes: Uint8Array, page: number, limits: Pick<OcrLimits, 'maxPixelsPerPage'>): Promise<GreyPage> {
  const format = formatOf(bytes);
  if (format === 'bmp') return decodeBmp(bytes, limits.maxPixelsPerPage);
  const opts = { page: format === 'tiff' ? page - 1 : 0, pages: 1, failOn: 'warning' as const, limitInputPixels: false as const };
  const meta = await sharp(bytes, opts).metadata().catch((err: Error) => {
    throw damaged(err);
  });
  if (!meta.width || !meta.height) throw new ImageError('the image has no size in its header (damaged?)');
  checkPixels(meta.width, meta.height, limits.maxPixelsPerPage);
  try {
    const { data, info } = await sharp(bytes, { ...opts, limitInputPixels: limits.maxPixelsPerPage })
      .autoOrient()
      .flatten({ background: '#ffffff' })
      .greyscale()
      .raw()
      .toBuffer({ resolveWithObject: true });
    // the resolution the file states (as the tesseract CLI reads it): Tesseract sizes text and gaps by it
    const dpi = meta.density && meta.density >= 70 && meta.density <= 2400 ? Math.round(meta.density) : undefined;
    return { width: info.width, height: info.height, data: new Uint8Array(data.buffer, data.byteOffset, info.width * info.height), ...(dpi ? { dpi } : {}) };
  } catch (err) {
    throw damaged(err as Error);
  }
}

function checkPixels(width: number, height: number, max: number): void {
  if (width * height <= max) return;
  const mp = (n: number) => `${(n / 1e6).toFixed(n < 1e7 ? 1 : 0)} MP`;
  throw new ImageError(`the image is ${width}×${height} pixels (${mp(width * height)}), over the ${mp(max)} a page may have; it was not decoded (a decompression bomb?)`);
}

function damaged(err: Error): ImageError {
  if (err instanceof ImageError) return err;
  const m = err.message;
  if (/premature end|truncat|read error|unexpected end|end of file|short read|out of data/i.test(m)) return new ImageError(`the image is truncated (${m})`);
  if (/unsupported image format/i.test(m)) return new ImageError('not an image Trove can read (PNG, JPEG, TIFF, WebP, GIF or BMP expected)');
  return new ImageError(`the image cannot be decoded: ${m}`);
}

/** BMP: header checked (size, bounds, pixel data present) before bmp-js decodes it. */
function decodeBmp(bytes: Uint8Array, maxPixels: number): GreyPage {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const dataOffset = view.getUint32(10, true);
  const width = view.getInt32(18, true);
  const rawHeight = view.getInt32(22, true);
  const bits = view.getUint16(28, true);
  const height = Math.abs(rawHeight);
  if (width <= 0 || height === 0 || ![1, 4, 8, 15, 16, 24, 32].includes(bits)) throw new ImageError('the BMP header is damaged');
  checkPixels(width, height, maxPixels);
  const rowBytes = Math.ceil((width * bits) / 32) * 4;
  if (dataOffset + rowBytes * height > bytes.length) throw new ImageError(`the image is truncated (the BMP has ${bytes.length} bytes, its pixels need ${dataOffset + rowBytes * height})`);
  let decoded: { width: number; height: number; data: Uint8Array };
  try {
    decoded = bmp.decode(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
  } catch (err) {
    throw new ImageError(`the image cannot be decoded: ${(err as Error).message}`);
  }
  // bmp-js gives ABGR; ITU-R BT.601 luma, as libvips' greyscale uses
  const out = new Uint8Array(decoded.width * decoded.height);
  const d = decoded.data;
  for (let i = 0, j = 0; i < out.length; i++, j += 4) out[i] = Math.round(0.299 * d[j + 3]! + 0.587 * d[j + 2]! + 0.114 * d[j + 1]!);
  return { width: decoded.width, height: decoded.height, data: out };
}

/** A grey page as a binary PGM (P5), which Tesseract's image reader (Leptonica) takes as it is. */
export function toPgm(page: GreyPage): Uint8Array {
  const header = new TextEncoder().encode(`P5\n${page.width} ${page.height}\n255\n`);
  const out = new Uint8Array(header.length + page.data.length);
  out.set(header, 0);
  out.set(page.data, header.length);
  return out;
}
