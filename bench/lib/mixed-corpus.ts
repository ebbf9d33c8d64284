// The mixed folder of bench:formats: the same Markdown sections written as DOCX (docx), PPTX
// (pptxgenjs, a slide per section), XLSX (exceljs, a row per line) and EPUB (a chapter per
// section), beside the Markdown originals and the printed PDFs. Cached like the PDF corpus.
import fs from 'node:fs';
import path from 'node:path';
import * as docx from 'docx';
import ExcelJS from 'exceljs';
import { strToU8, zipSync } from 'fflate';
import PptxGenJS from 'pptxgenjs';

interface Section {
  heading: string;
  lines: string[];
}

function sections(md: string): Section[] {
  const out: Section[] = [{ heading: '', lines: [] }];
  for (const raw of md.replace(/^---\n[\s\S]*?\n---\n/, '').split('\n')) {
    const h = /^#{1,6}\s+(.*)$/.exec(raw);
    if (h) out.push({ heading: h[1]!.trim(), lines: [] });
    else if (raw.trim() && !/^\s*(```|~~~)/.test(raw)) out.at(-1)!.lines.push(raw.trim().replace(/[`*]/g, ''));
  }
  return out.filter((s) => s.heading || s.lines.length);
}

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

export async function writeDocx(md: string, title: string, target: string): Promise<void> {
  const children = sections(md).flatMap((s) => [
    ...(s.heading ? [new docx.Paragraph({ text: s.heading, heading: docx.HeadingLevel.HEADING_2 })] : []),
    ...s.lines.map((l) => new docx.Paragraph(l)),
  ]);
  fs.writeFileSync(target, await docx.Packer.toBuffer(new docx.Document({ title, sections: [{ children }] })));
}

export async function writePptx(md: string, title: string, target: string): Promise<void> {
  const pres = new PptxGenJS();
  pres.title = title;
  for (const s of sections(md).slice(0, 60)) {
    const slide = pres.addSlide();
    slide.addText(s.heading || title, { x: 0.5, y: 0.3, w: 9, h: 0.8, fontSize: 24 });
    slide.addText(s.lines.slice(0, 12).join('\n') || ' ', { x: 0.5, y: 1.2, w: 9, h: 4, fontSize: 12 });
    if (s.lines.length > 12) slide.addNotes(s.lines.slice(12).join('\n'));
  }
  fs.writeFileSync(target, (await pres.write({ outputType: 'nodebuffer' })) as Buffer);
}

export async function writeXlsx(md: string, title: string, target: string): Promise<void> {
  const book = new ExcelJS.Workbook();
  book.title = title;
  const sheet = book.addWorksheet('Lines');
  for (const s of sections(md)) for (const l of s.lines) sheet.addRow([s.heading, l]);
  fs.writeFileSync(target, Buffer.from(await book.xlsx.writeBuffer()));
}

export function writeEpub(md: string, title: string, target: string): void {
  const chapters = sections(md);
  const files: Record<string, Uint8Array | [Uint8Array, { level: 0 }]> = {
    mimetype: [strToU8('application/epub+zip'), { level: 0 }],
    'META-INF/container.xml': strToU8('<?xml version="1.0"?><container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><rootfiles><rootfile full-path="book.opf" media-type="application/oebps-package+xml"/></rootfiles></container>'),
    'book.opf': strToU8(`<?xml version="1.0"?><package xmlns="http://www.idpf.org/2007/opf" version="3.0"><metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>${esc(title)}</dc:title></metadata>
      <manifest>${chapters.map((_, i) => `<item id="c${i}" href="c${i}.xhtml" media-type="application/xhtml+xml"/>`).join('')}</manifest>
      <spine>${chapters.map((_, i) => `<itemref idref="c${i}"/>`).join('')}</spine></package>`),
  };
  chapters.forEach((s, i) => {
    files[`c${i}.xhtml`] = strToU8(`<?xml version="1.0"?><html xmlns="http://www.w3.org/1999/xhtml"><head><title>${esc(s.heading)}</title></head><body><h1>${esc(s.heading || title)}</h1>${s.lines.map((l) => `<p>${esc(l)}</p>`).join('')}</body></html>`);
  });
  fs.writeFileSync(target, zipSync(files));
}

/** Writes `count` files of each kind (from the first Markdown files) into `dir/<kind>/`, once. */
export async function buildMixedFolder(corpus: string, markdown: string[], pdfCache: string, pdfs: string[], dir: string, count: number): Promise<void> {
  const done = path.join(dir, '.complete');
  if (fs.existsSync(done) && fs.readFileSync(done, 'utf8') === String(count)) return;
  fs.rmSync(dir, { recursive: true, force: true });
  console.error(`writing the mixed folder (${count} files of each kind) into ${dir} (once) …`);
  for (const kind of ['md', 'pdf', 'docx', 'pptx', 'xlsx', 'epub']) fs.mkdirSync(path.join(dir, kind), { recursive: true });
  for (const [i, rel] of markdown.slice(0, count).entries()) {
    const md = fs.readFileSync(path.join(corpus, rel), 'utf8');
    const title = path.basename(rel, '.md');
    const name = `${String(i).padStart(4, '0')}-${title}`;
    fs.copyFileSync(path.join(corpus, rel), path.join(dir, 'md', `${name}.md`));
    if (pdfs[i]) fs.copyFileSync(path.join(pdfCache, pdfs[i]), path.join(dir, 'pdf', `${name}.pdf`));
    await writeDocx(md, title, path.join(dir, 'docx', `${name}.docx`));
    await writePptx(md, title, path.join(dir, 'pptx', `${name}.pptx`));
    await writeXlsx(md, title, path.join(dir, 'xlsx', `${name}.xlsx`));
    writeEpub(md, title, path.join(dir, 'epub', `${name}.epub`));
  }
  fs.writeFileSync(done, String(count));
}
