// Makes the document fixtures in test/fixtures/formats/ (committed: `npm test` never runs this).
// Run: node scripts/make-format-fixtures.mjs
// Needs the devDependencies (docx, pptxgenjs, exceljs), Chromium (/usr/bin/chromium, or $CHROMIUM)
// for the PDFs, qpdf for the encrypted PDF, and a Japanese font for the Japanese PDF (Debian:
// fonts-ipafont-gothic). Everything else is written by hand here (OpenDocument, EPUB, RTF, e-mail,
// legacy encodings) so the bytes are known. The million-row workbook is made by the test itself.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as docx from 'docx';
import ExcelJS from 'exceljs';
import { strToU8, zipSync } from 'fflate';
import iconv from 'iconv-lite';
import PptxGenJS from 'pptxgenjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const good = path.join(here, '..', 'test', 'fixtures', 'formats', 'good');
const broken = path.join(here, '..', 'test', 'fixtures', 'formats', 'broken');
const encodings = path.join(here, '..', 'test', 'fixtures', 'formats', 'encodings');
for (const d of [good, broken, encodings]) fs.mkdirSync(d, { recursive: true });
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-fixtures-'));
const chromium = process.env.CHROMIUM ?? '/usr/bin/chromium';

function printPdf(html, out, { headerFooter = false } = {}) {
  const src = path.join(tmp, `${path.basename(out)}.html`);
  fs.writeFileSync(src, html);
  execFileSync(chromium, [
    '--headless', '--no-sandbox', '--disable-gpu', ...(headerFooter ? [] : ['--no-pdf-header-footer']),
    `--print-to-pdf=${out}`, `file://${src}`,
  ], { stdio: 'ignore' });
}

const page = 'style="page-break-after: always"';

// ---- PDF: three pages, running header and footer (date, title, URL, "n/3") on every page
printPdf(
  `<html><head><title>Quarterly Field Report</title></head><body>
  <h1>Quarterly Field Report</h1><p ${page}>The survey team measured glacier retreat near Tromsø during the spring campaign.</p>
  <h2>Methods</h2><p ${page}>Drones photographed the lateral moraine every week; photogrammetry gave the ice volume.</p>
  <h2>Findings</h2><p>The glacier front retreated forty metres. An albatross was seen far from its usual range.</p>
  </body></html>`,
  path.join(good, 'report.pdf'),
  { headerFooter: true },
);
// ---- PDF in Japanese (needs a Japanese font installed for Chromium to embed)
printPdf(
  `<html lang="ja"><head><meta charset="utf-8"><title>東京の観光案内</title></head><body>
  <h1>東京の観光案内</h1><p ${page}>浅草寺は東京で最も古い寺です。雷門の提灯が有名です。</p>
  <h2>交通</h2><p>山手線は東京の中心部を一周する環状線です。</p></body></html>`,
  path.join(good, 'japanese.pdf'),
);
// ---- PDF in two columns whose content stream is not in reading order: on page 1 each line is placed
// on its own and the lines are drawn row by row (left, right, left, …: the two columns share
// baselines); on page 2 the right column is a float, which Chromium paints before the left column;
// page 3 is a table of two columns of text, which stays row by row
const left = ['The river guide explains how the ferry', 'crosses at dawn when the fog lifts from', 'the valley and the boatmen start their',
  'engines for the first crossing of the', 'day toward the old market town.'];
const right = ['Meanwhile the bakery on the far bank', 'opens its shutters and sells rye bread', 'to the farmers who arrive with their',
  'carts full of apples and late summer', 'pears from the orchards upstream.'];
const at = (x, y, text) => `<div style="position:absolute; left:${x}px; top:${y}px; white-space:nowrap">${text}</div>`;
const rows = left.flatMap((l, i) => [at(40, 120 + i * 22, l), at(420, 120 + i * 22, right[i])]).join('');
const para = (t) => `<p style="margin:0 0 12px">${t}</p>`;
printPdf(
  `<html><head><title>River Towns</title><style>body { font: 15px serif; margin: 0 } .page { position: relative; height: 600px; page-break-after: always }
  h1, h2 { margin: 0 40px; padding-top: 40px; font-family: sans-serif }</style></head><body>
  <div class="page"><h1>River Towns Gazette</h1>${rows}
    ${at(40, 260, 'The editors thank the ferry company for the timetable printed across both columns.')}</div>
  <div><h2>Harbour Notes</h2><div style="margin: 20px 40px">
    <div style="float:right; width:45%">${para('The lighthouse keeper logs every passing ship in a leather ledger kept beside the lamp.')}${para('On stormy nights the keeper winds the clockwork that turns the great lens until morning.')}</div>
    <div style="width:45%">${para('Fishing boats return to the harbour at noon and unload their catch on the stone quay.')}${para('Gulls follow the boats in and wait on the bollards for scraps from the fish market.')}</div>
    <div style="clear:both"></div></div>
    <p style="margin: 0 40px">Both columns end here, and this closing note runs the full width of the page below them.</p></div>
  <div style="page-break-before: always"><h2>Opening Hours</h2><table style="margin: 20px 40px; border-spacing: 40px 6px">${[
    ['Northern ferry quay', 'Opens at six in the morning'], ['The old market town hall with its clock tower', 'Closed on Sundays and holidays'],
    ['Harbour museum', 'Free entry on the first Monday'], ['Lighthouse gallery and the keeper’s cottage', 'Guided visits every afternoon'],
  ].map(([a, b]) => `<tr><td>${a}</td><td>${b}</td></tr>`).join('')}</table></div>
  </body></html>`,
  path.join(good, 'columns.pdf'),
);
// ---- PDF without a text layer (a drawing only): needs OCR
printPdf(
  '<html><body><svg width="400" height="300"><rect x="10" y="10" width="300" height="200" fill="#468"/><circle cx="200" cy="150" r="60" fill="#fc3"/></svg></body></html>',
  path.join(broken, 'scanned.pdf'),
);
// ---- broken PDFs: encrypted with a user password, and cut short
execFileSync('qpdf', ['--encrypt', 'secret', 'secret', '256', '--', path.join(good, 'report.pdf'), path.join(broken, 'encrypted.pdf')]);
const pdf = fs.readFileSync(path.join(good, 'report.pdf'));
fs.writeFileSync(path.join(broken, 'truncated.pdf'), pdf.subarray(0, 1200));

// ---- DOCX: headings, a table, a comment, tracked changes
const { Document, Packer, Paragraph, TextRun, HeadingLevel, Table, TableRow, TableCell, InsertedTextRun, DeletedTextRun, CommentRangeStart, CommentRangeEnd, CommentReference } = docx;
const handbook = new Document({
  title: 'Employee Handbook',
  creator: 'People Team',
  keywords: 'policy, onboarding',
  comments: { children: [{ id: 0, author: 'Reviewer', date: new Date(0), children: [new Paragraph('Please check the parking rules with facilities.')] }] },
  sections: [{
    children: [
      new Paragraph({ text: 'Welcome', heading: HeadingLevel.HEADING_1 }),
      new Paragraph('New colleagues receive a laptop and a badge on their first day.'),
      new Paragraph({ text: 'Travel', heading: HeadingLevel.HEADING_2 }),
      new Paragraph({
        children: [
          new CommentRangeStart(0),
          new TextRun('Bicycles may be parked in the courtyard.'),
          new CommentRangeEnd(0),
          new TextRun({ children: [new CommentReference(0)] }),
        ],
      }),
      new Paragraph({
        children: [
          new TextRun('Expenses are refunded within '),
          new DeletedTextRun({ text: 'thirty', id: 1, author: 'Finance', date: '2026-01-01T00:00:00Z' }),
          new InsertedTextRun({ text: 'fourteen', id: 2, author: 'Finance', date: '2026-01-01T00:00:00Z' }),
          new TextRun(' days.'),
        ],
      }),
      new Paragraph({ text: 'Offices', heading: HeadingLevel.HEADING_2, pageBreakBefore: true }),
      new Table({
        rows: [
          new TableRow({ children: ['City', 'Floor'].map((t) => new TableCell({ children: [new Paragraph(t)] })) }),
          new TableRow({ children: ['Lisbon', 'Third'].map((t) => new TableCell({ children: [new Paragraph(t)] })) }),
          new TableRow({ children: ['Nairobi', 'Ground'].map((t) => new TableCell({ children: [new Paragraph(t)] })) }),
        ],
      }),
    ],
  }],
});
fs.writeFileSync(path.join(good, 'handbook.docx'), await Packer.toBuffer(handbook));
const chinese = new Document({
  title: '全文检索系统设计',
  sections: [{
    children: [
      new Paragraph({ text: '全文检索系统设计', heading: HeadingLevel.HEADING_1 }),
      new Paragraph('本文介绍倒排索引和中文分词技术。'),
      new Paragraph({ text: '排序', heading: HeadingLevel.HEADING_2 }),
      new Paragraph('搜索结果按照相关性排序，常用的算法是BM25。'),
    ],
  }],
});
fs.writeFileSync(path.join(good, 'chinese.docx'), await Packer.toBuffer(chinese));
// a DOCX as Word saves it: where its last layout broke pages (w:lastRenderedPageBreak)
const W = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"';
const para = (text, brk = false) => `<w:p><w:r>${brk ? '<w:lastRenderedPageBreak/>' : ''}<w:t>${text}</w:t></w:r></w:p>`;
fs.writeFileSync(path.join(good, 'rendered.docx'), zipSync({
  '[Content_Types].xml': strToU8('<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>'),
  'word/document.xml': strToU8(`<?xml version="1.0"?><w:document ${W}><w:body>${para('The first page describes the lighthouse lens.')}${para('Still on the first page.')}${para('The second page starts with the keeper’s logbook.', true)}${para('A third page mentions the foghorn.', true)}</w:body></w:document>`),
}));
// a DOCX whose body decompresses to 100 MB (a zip bomb): the handbook with its document.xml replaced
const bomb = '<?xml version="1.0"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body><w:p><w:r><w:t>' +
  ' '.repeat(100 * 1024 * 1024) + '</w:t></w:r></w:p></w:body></w:document>';
fs.writeFileSync(path.join(broken, 'zip-bomb.docx'), zipSync({
  '[Content_Types].xml': strToU8('<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>'),
  'word/document.xml': [strToU8(bomb), { level: 9 }],
}));

// ---- PPTX: titled slides, a table, speaker notes
const pres = new PptxGenJS();
pres.title = 'Roadmap 2026';
pres.defineSlideMaster({ title: 'TITLED', objects: [{ placeholder: { options: { name: 'title', type: 'title', x: 0.5, y: 0.3, w: 9, h: 1 }, text: '' } }] });
const s1 = pres.addSlide({ masterName: 'TITLED' });
s1.addText('Roadmap 2026', { placeholder: 'title' });
s1.addText('We will ship the offline search engine in spring.', { x: 0.5, y: 1.5, w: 9, h: 1 });
s1.addNotes('Mention the beta testers from Reykjavik.');
const s2 = pres.addSlide({ masterName: 'TITLED' });
s2.addText('Milestones', { placeholder: 'title' });
s2.addTable([[{ text: 'Quarter' }, { text: 'Goal' }], [{ text: 'Q1' }, { text: 'Indexing of spreadsheets' }], [{ text: 'Q2' }, { text: 'Watercolour theme' }]], { x: 0.5, y: 1.5, w: 9 });
const s3 = pres.addSlide({ masterName: 'TITLED' });
s3.addText('Risks', { placeholder: 'title' });
s3.addText('Hiring may slow down the harpsichord integration.', { x: 0.5, y: 1.5, w: 9, h: 1 });
s3.addNotes('Ask finance about the contingency budget.');
fs.writeFileSync(path.join(good, 'deck.pptx'), await pres.write({ outputType: 'nodebuffer' }));

// ---- XLSX: two sheets
const book = new ExcelJS.Workbook();
book.title = 'Household Budget';
const budget = book.addWorksheet('Budget');
budget.addRows([['Item', 'Amount'], ['Rent', 1200], ['Groceries', 450], ['Cello lessons', 80]]);
const staff = book.addWorksheet('Contacts');
staff.addRows([['Name', 'Role'], ['Amara Okafor', 'Plumber'], ['Lars Nilsen', 'Piano tuner']]);
fs.writeFileSync(path.join(good, 'budget.xlsx'), Buffer.from(await book.xlsx.writeBuffer()));

// ---- OpenDocument: text, presentation, spreadsheet (written by hand, zipped with the mimetype first and stored)
const NS = 'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" ' +
  'xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0" ' +
  'xmlns:presentation="urn:oasis:names:tc:opendocument:xmlns:presentation:1.0" xmlns:dc="http://purl.org/dc/elements/1.1/" ' +
  'xmlns:meta="urn:oasis:names:tc:opendocument:xmlns:meta:1.0"';
const odf = (mimetype, title, body) => zipSync({
  mimetype: [strToU8(mimetype), { level: 0 }],
  'META-INF/manifest.xml': strToU8(`<?xml version="1.0"?><manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0"><manifest:file-entry manifest:full-path="/" manifest:media-type="${mimetype}"/></manifest:manifest>`),
  'meta.xml': strToU8(`<?xml version="1.0"?><office:document-meta ${NS}><office:meta><dc:title>${title}</dc:title><dc:creator>Trove fixtures</dc:creator></office:meta></office:document-meta>`),
  'content.xml': strToU8(`<?xml version="1.0" encoding="UTF-8"?><office:document-content ${NS}><office:body>${body}</office:body></office:document-content>`),
});
fs.writeFileSync(path.join(good, 'charter.odt'), odf('application/vnd.oasis.opendocument.text', 'Project Charter', `<office:text>
  <text:h text:outline-level="1">Project Charter</text:h>
  <text:p>The community garden needs<text:s/>raised beds<office:annotation><dc:creator>Ana</dc:creator><text:p>Ask the council about water.</text:p></office:annotation> and a compost bay.</text:p>
  <text:h text:outline-level="2">Budget</text:h>
  <table:table table:name="Costs"><table:table-row><table:table-cell><text:p>Timber</text:p></table:table-cell><table:table-cell><text:p>300</text:p></table:table-cell></table:table-row></table:table>
  <text:p>Volunteers meet on Saturdays near the greenhouse.</text:p></office:text>`));
fs.writeFileSync(path.join(good, 'talk.odp'), odf('application/vnd.oasis.opendocument.presentation', 'Beekeeping Basics', `<office:presentation>
  <draw:page draw:name="p1"><draw:frame presentation:class="title"><draw:text-box><text:p>Beekeeping Basics</text:p></draw:text-box></draw:frame>
    <draw:frame presentation:class="outline"><draw:text-box><text:p>A hive holds one queen and thousands of workers.</text:p></draw:text-box></draw:frame>
    <presentation:notes><draw:frame presentation:class="notes"><draw:text-box><text:p>Bring the smoker to the demo.</text:p></draw:text-box></draw:frame></presentation:notes></draw:page>
  <draw:page draw:name="p2"><draw:frame presentation:class="title"><draw:text-box><text:p>Harvest</text:p></draw:text-box></draw:frame>
    <draw:frame presentation:class="outline"><draw:text-box><text:p>Honey is extracted in late summer with a centrifuge.</text:p></draw:text-box></draw:frame></draw:page>
  </office:presentation>`));
fs.writeFileSync(path.join(good, 'inventory.ods'), odf('application/vnd.oasis.opendocument.spreadsheet', 'Inventory', `<office:spreadsheet>
  <table:table table:name="Tools"><table:table-row><table:table-cell><text:p>Hammer</text:p></table:table-cell><table:table-cell office:value-type="float" office:value="3"><text:p>3</text:p></table:table-cell></table:table-row>
    <table:table-row table:number-rows-repeated="1048570"><table:table-cell table:number-columns-repeated="1024"/></table:table-row></table:table>
  <table:table table:name="Seeds"><table:table-row><table:table-cell><text:p>Sunflower</text:p></table:table-cell><table:table-cell><text:p>Heirloom</text:p></table:table-cell></table:table-row></table:table>
  </office:spreadsheet>`));

// ---- EPUB: three chapters in spine order (and a copy whose second chapter is missing)
const chapter = (title, text) => strToU8(`<?xml version="1.0" encoding="UTF-8"?><html xmlns="http://www.w3.org/1999/xhtml"><head><title>${title}</title></head><body><h1>${title}</h1><p>${text}</p></body></html>`);
const epub = (omit) => {
  const files = {
    mimetype: [strToU8('application/epub+zip'), { level: 0 }],
    'META-INF/container.xml': strToU8('<?xml version="1.0"?><container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><rootfiles><rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/></rootfiles></container>'),
    'OEBPS/content.opf': strToU8(`<?xml version="1.0"?><package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="id"><metadata xmlns:dc="http://purl.org/dc/elements/1.1/">
      <dc:identifier id="id">urn:trove:fixture</dc:identifier><dc:title>The Lighthouse Keeper</dc:title><dc:creator>Ines Moreau</dc:creator><dc:language>en</dc:language><dc:subject>Sea</dc:subject></metadata>
      <manifest><item id="c1" href="text/one.xhtml" media-type="application/xhtml+xml"/><item id="c2" href="text/two.xhtml" media-type="application/xhtml+xml"/><item id="c3" href="text/three.xhtml" media-type="application/xhtml+xml"/></manifest>
      <spine><itemref idref="c1"/><itemref idref="c2"/><itemref idref="c3"/></spine></package>`),
    'OEBPS/text/one.xhtml': chapter('Arrival', 'Mara reached the island on a grey morning and climbed to the lamp room.'),
    'OEBPS/text/two.xhtml': chapter('The Storm', 'Waves broke over the lighthouse gallery; the fog signal sounded all night.'),
    'OEBPS/text/three.xhtml': chapter('Departure', 'In spring the supply boat brought oranges and a letter from the mainland.'),
  };
  if (omit) delete files[omit];
  return zipSync(files);
};
fs.writeFileSync(path.join(good, 'novel.epub'), epub(null));
fs.writeFileSync(path.join(broken, 'missing-chapter.epub'), epub('OEBPS/text/two.xhtml'));

// ---- RTF: code page 1252 bytes, a GBK font run, \u escapes, a title and an outline heading
const gbk = [...iconv.encode('全文检索', 'gbk')].map((b) => `\\'${b.toString(16)}`).join('');
fs.writeFileSync(path.join(good, 'menu.rtf'), [
  '{\\rtf1\\ansi\\ansicpg1252\\deff0{\\fonttbl{\\f0\\fswiss\\fcharset0 Arial;}{\\f1\\fnil\\fcharset134 SimSun;}}',
  '{\\colortbl;\\red0\\green0\\blue0;}{\\info{\\title Caf\\\'e9 Menu}{\\author Chef}}',
  '\\pard\\outlinelevel0\\b Caf\\\'e9 Menu\\b0\\par',
  '\\pard Our cr\\\'e8me br\\\'fbl\\\'e9e costs \\\'805 \\endash  served daily.\\par',
  `\\pard {\\f1 ${gbk}}\\par`,
  '\\pard Specials from \\u26481?\\u20140? are on Fridays.\\par}',
].join('\n'), 'latin1');

// ---- E-mail: a message with a DOCX attachment, a mailbox of two messages, a message with a broken part
const b64 = (buf) => buf.toString('base64').replace(/.{76}/g, '$&\r\n');
fs.writeFileSync(path.join(good, 'minutes.eml'), [
  'From: Priya Raman <priya@example.org>', 'To: Team <team@example.org>', 'Subject: Minutes of the harbour meeting',
  'Date: Tue, 03 Mar 2026 09:30:00 +0000', 'MIME-Version: 1.0', 'Content-Type: multipart/mixed; boundary="b1"', '',
  '--b1', 'Content-Type: text/plain; charset=utf-8', '', 'We agreed to repaint the harbour crane before the regatta.', '',
  '--b1', 'Content-Type: application/vnd.openxmlformats-officedocument.wordprocessingml.document; name="handbook.docx"',
  'Content-Disposition: attachment; filename="handbook.docx"', 'Content-Transfer-Encoding: base64', '',
  b64(fs.readFileSync(path.join(good, 'handbook.docx'))), '--b1--', '',
].join('\r\n'));
fs.writeFileSync(path.join(good, 'archive.mbox'), [
  'From alice@example.org Mon Mar  2 10:00:00 2026', 'From: Alice <alice@example.org>', 'To: bob@example.org', 'Subject: Kayak trip',
  'Date: Mon, 02 Mar 2026 10:00:00 +0000', '', 'The kayak trip starts at the northern pier.', '>From the pier we paddle east.', '',
  'From bob@example.org Mon Mar  2 11:00:00 2026', 'From: Bob <bob@example.org>', 'To: alice@example.org', 'Subject: Re: Kayak trip',
  'Date: Mon, 02 Mar 2026 11:00:00 +0000', '', 'I will bring the waterproof thermos.', '',
].join('\n'));
fs.writeFileSync(path.join(broken, 'broken-part.eml'), [
  'From: Scanner <scanner@example.org>', 'To: Office <office@example.org>', 'Subject: Scanned invoice', 'MIME-Version: 1.0',
  'Content-Type: multipart/mixed; boundary="zz"', '', '--zz', 'Content-Type: text/plain', '', 'The invoice for the greenhouse glass is attached.', '',
  '--zz', 'Content-Type: application/pdf; name="invoice.pdf"', 'Content-Disposition: attachment; filename="invoice.pdf"',
  'Content-Transfer-Encoding: base64', '', 'JVBERi0xLjQKJ!!!this part was cut off in transit', '',
].join('\r\n'));
// a legacy binary Word file: the OLE signature and nothing readable
fs.writeFileSync(path.join(broken, 'legacy.doc'), Buffer.concat([Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]), Buffer.alloc(504)]));

// ---- legacy text encodings and UTF-16 with a byte-order mark
const write = (name, buf) => fs.writeFileSync(path.join(encodings, name), buf);
write('gbk.txt', iconv.encode('这是一份关于全文检索的中文说明，倒排索引让搜索变得很快。我们测试编码自动识别。', 'gbk'));
write('shift_jis.txt', iconv.encode('これは日本語の説明書です。東京の天気は晴れ、富士山がよく見えます。', 'shift_jis'));
write('euc-kr.txt', iconv.encode('이것은 한국어 설명서입니다. 서울의 날씨는 맑고 한강이 아름답습니다.', 'euc-kr'));
write('windows-1252.txt', iconv.encode('The café served “crème brûlée” for €5 — a naïve façade on the Champs-Élysées.', 'windows-1252'));
write('utf16le.txt', Buffer.concat([Buffer.from([0xff, 0xfe]), iconv.encode('Little-endian text about a narwhal.\n', 'utf-16le')]));
write('utf16be.txt', Buffer.concat([Buffer.from([0xfe, 0xff]), iconv.encode('Big-endian text about a pangolin.\n', 'utf-16be')]));

fs.rmSync(tmp, { recursive: true, force: true });
console.log('fixtures written to test/fixtures/formats/');
