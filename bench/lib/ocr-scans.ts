// The scan set of bench:ocr, built here from known text with libraries only (never Trove's code):
// @napi-rs/canvas draws the pages, sharp degrades and encodes them, pdf-lib wraps them into
// image-only PDFs. Variants: clean (300 dpi), noisy (300 dpi: blur, grain, specks, JPEG), skewed 2°
// (300 dpi), photo-like (150 dpi: uneven light, low contrast, grain, JPEG); English and Chinese.
import fs from 'node:fs';
import { createCanvas, GlobalFonts } from '@napi-rs/canvas';
import { PDFDocument } from 'pdf-lib';
import sharp from 'sharp';
import { rng } from './memory-workload.js';

export type Variant = 'clean' | 'noisy' | 'skewed' | 'photo150';
export type Lang = 'eng' | 'chi_sim';

export interface Scan {
  id: string;
  lang: Lang;
  variant: Variant;
  /** What Trove is given: the image file, or an image-only PDF of it. */
  container: 'png' | 'jpeg' | 'pdf';
  /** The raster (PNG or JPEG): what the tesseract CLI reads, and what the PDF holds. */
  image: Buffer;
  imageExt: 'png' | 'jpg';
  pdf?: Uint8Array;
  truth: string;
}

const FONTS: Record<Lang, { family: string; files: string[]; apt: string }> = {
  eng: { family: 'DejaVu Serif', files: ['/usr/share/fonts/truetype/dejavu/DejaVuSerif.ttf'], apt: 'fonts-dejavu-core' },
  chi_sim: { family: 'Noto Serif CJK SC', files: ['/usr/share/fonts/opentype/noto/NotoSerifCJK-Regular.ttc'], apt: 'fonts-noto-cjk' },
};

const DPI = 300;
const PAGE = { width: Math.round(8.5 * DPI), height: 11 * DPI, margin: Math.round(0.9 * DPI) };
const FONT_PX = Math.round((11 / 72) * DPI); // 11 pt
const LINE_PX = Math.round(FONT_PX * 1.4);

function useFont(lang: Lang): string {
  const f = FONTS[lang];
  const file = f.files.find((p) => fs.existsSync(p));
  if (!file) throw new Error(`bench:ocr needs the font ${f.family} (${f.files.join(' or ')}): apt-get install ${f.apt}`);
  if (!GlobalFonts.families.some((x) => x.family === f.family)) GlobalFonts.registerFromPath(file, f.family);
  return f.family;
}

/** Lays `text` out in pages of lines (paragraphs split at blank lines) at 11 pt on US Letter. */
function layout(text: string, lang: Lang): string[][] {
  const ctx = createCanvas(10, 10).getContext('2d');
  ctx.font = `${FONT_PX}px "${useFont(lang)}"`;
  const width = PAGE.width - 2 * PAGE.margin;
  const perPage = Math.floor((PAGE.height - 2 * PAGE.margin) / LINE_PX);
  const lines: string[] = [];
  const paragraphs = lang === 'eng' ? text.trim().split(/\n\s*\n/).map((p) => p.replace(/\s+/g, ' ')) : text.trim().split('\n');
  for (const para of paragraphs) {
    const units = lang === 'eng' ? para.split(' ') : [...para];
    let line = '';
    for (const u of units) {
      const next = line ? (lang === 'eng' ? `${line} ${u}` : line + u) : u;
      if (ctx.measureText(next).width > width && line) {
        lines.push(line);
        line = u;
      } else line = next;
    }
    if (line) lines.push(line);
    lines.push('');
  }
  const pages: string[][] = [];
  for (let i = 0; i < lines.length; i += perPage) pages.push(lines.slice(i, i + perPage));
  return pages.map((p) => trimBlank(p)).filter((p) => p.length);
}

function trimBlank(lines: string[]): string[] {
  const out = [...lines];
  while (out.length && !out[0]) out.shift();
  while (out.length && !out.at(-1)) out.pop();
  return out;
}

/** One clean page at 300 dpi as 8-bit grey PNG. */
function render(lines: string[], lang: Lang): Buffer {
  const canvas = createCanvas(PAGE.width, PAGE.height);
  const ctx = canvas.getContext('2d');
  ctx.fillStyle = '#ffffff';
  ctx.fillRect(0, 0, PAGE.width, PAGE.height);
  ctx.fillStyle = '#000000';
  ctx.font = `${FONT_PX}px "${useFont(lang)}"`;
  lines.forEach((l, i) => ctx.fillText(l, PAGE.margin, PAGE.margin + FONT_PX + i * LINE_PX));
  return canvas.toBuffer('image/png');
}

function gaussian(rnd: () => number): number {
  return Math.sqrt(-2 * Math.log(rnd() || 1e-12)) * Math.cos(2 * Math.PI * rnd());
}

async function grey(png: Buffer): Promise<{ data: Buffer; width: number; height: number }> {
  const { data, info } = await sharp(png).greyscale().raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height };
}

async function degrade(png: Buffer, variant: Variant, seed: number): Promise<{ image: Buffer; ext: 'png' | 'jpg'; dpi: number }> {
  const rnd = rng(seed);
  if (variant === 'clean') return { image: await sharp(png).greyscale().png().withMetadata({ density: DPI }).toBuffer(), ext: 'png', dpi: DPI };
  if (variant === 'skewed') {
    const rotated = await sharp(png).greyscale().rotate(2, { background: '#ffffff' }).png().withMetadata({ density: DPI }).toBuffer();
    return { image: rotated, ext: 'png', dpi: DPI };
  }
  if (variant === 'noisy') {
    const g = await grey(await sharp(png).blur(0.8).png().toBuffer());
    for (let i = 0; i < g.data.length; i++) {
      let v = g.data[i]! + gaussian(rnd) * 28;
      const r = rnd();
      if (r < 0.003) v = 0; // dark specks (dust, toner)
      else if (r < 0.006) v = 255; // dropouts
      g.data[i] = Math.max(0, Math.min(255, Math.round(v)));
    }
    const image = await sharp(g.data, { raw: { width: g.width, height: g.height, channels: 1 } }).jpeg({ quality: 80 }).withMetadata({ density: DPI }).toBuffer();
    return { image, ext: 'jpg', dpi: DPI };
  }
  // photo-like at 150 dpi: half the resolution, light falling off across the page, grey paper and ink, grain
  const small = await grey(await sharp(png).resize(Math.round(PAGE.width / 2), Math.round(PAGE.height / 2)).blur(0.5).png().toBuffer());
  for (let y = 0; y < small.height; y++) {
    for (let x = 0; x < small.width; x++) {
      const i = y * small.width + x;
      const light = 1 - 0.22 * ((x / small.width) * 0.6 + (y / small.height) * 0.4);
      const v = (60 + (small.data[i]! / 255) * 160) * light + gaussian(rnd) * 7;
      small.data[i] = Math.max(0, Math.min(255, Math.round(v)));
    }
  }
  const image = await sharp(small.data, { raw: { width: small.width, height: small.height, channels: 1 } }).jpeg({ quality: 78 }).withMetadata({ density: 150 }).toBuffer();
  return { image, ext: 'jpg', dpi: 150 };
}

async function imagePdf(image: Buffer, ext: 'png' | 'jpg', dpi: number): Promise<Uint8Array> {
  const pdf = await PDFDocument.create();
  const img = ext === 'png' ? await pdf.embedPng(image) : await pdf.embedJpg(image);
  const page = pdf.addPage([(img.width * 72) / dpi, (img.height * 72) / dpi]);
  page.drawImage(img, { x: 0, y: 0, width: page.getWidth(), height: page.getHeight() });
  return pdf.save();
}

/** The scan set: every page of each text in each variant, the containers alternating between file and PDF. */
export async function buildScans(texts: Record<Lang, string>, plan: { lang: Lang; variant: Variant; pages: number }[]): Promise<Scan[]> {
  const scans: Scan[] = [];
  let seed = 1;
  for (const { lang, variant, pages } of plan) {
    const laid = layout(texts[lang], lang).slice(0, pages);
    for (const [i, lines] of laid.entries()) {
      const { image, ext, dpi } = await degrade(render(lines, lang), variant, seed++);
      const asPdf = i % 2 === 0;
      scans.push({
        id: `${lang}-${variant}-${i + 1}`,
        lang,
        variant,
        container: asPdf ? 'pdf' : ext === 'png' ? 'png' : 'jpeg',
        image,
        imageExt: ext,
        pdf: asPdf ? await imagePdf(image, ext, dpi) : undefined,
        truth: lines.join('\n'),
      });
    }
  }
  return scans;
}
