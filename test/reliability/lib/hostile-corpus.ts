// The hostile corpus: a good corpus (every file must be searchable) next to a table of bad files
// (each must be reported with a reason, be indexed safely, or be left alone — never crash, hang
// or leak). A new kind of bad file is one row of HOSTILE.
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { zipArchive } from './zip.js';

export type Scale = 'small' | 'full';

/**
 * indexed: searchable by its marker. reported: skipped or failed with a reason (or a scan notice).
 * ignored: never read and never indexed (not a regular file, outside the root, a secret, not included).
 */
export type Expectation = 'indexed' | 'reported' | 'ignored';

export interface HostileRow {
  kind: string;
  expect: Expectation;
  /** Writes the file(s) under root; returns the paths (relative, '/'-separated) this row is about. */
  make(root: string, scale: Scale, marker: string): string[];
}

const isRoot = process.getuid?.() === 0;

function write(root: string, rel: string, data: string | Buffer): string {
  const abs = path.join(root, ...rel.split('/'));
  fs.mkdirSync(path.dirname(abs), { recursive: true });
  fs.writeFileSync(abs, data);
  return rel;
}

function randomBytes(n: number, seed: string): Buffer {
  const out = Buffer.alloc(n);
  let block = crypto.createHash('sha256').update(seed).digest();
  for (let i = 0; i < n; i += 32) {
    block.copy(out, i, 0, Math.min(32, n - i));
    block = crypto.createHash('sha256').update(block).digest();
  }
  return out;
}

/** How many variants of the repeatable rows each scale writes. */
const COPIES: Record<Scale, number> = { small: 6, full: 40 };

export const HOSTILE: HostileRow[] = [
  { kind: 'binary bytes with a .md name', expect: 'reported', make: (r, s) => times(s, (i) => write(r, `bad/binary-${i}.md`, randomBytes(4096 + i, `bin${i}`))) },
  { kind: 'PNG renamed .txt', expect: 'reported', make: (r) => [write(r, 'bad/picture.txt', Buffer.concat([Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex'), randomBytes(2000, 'png')]))] },
  { kind: 'NUL bytes inside text', expect: 'reported', make: (r, s, m) => times(s, (i) => write(r, `bad/nul-${i}.txt`, `${m} text\0with\0nuls ${i}\n`)) },
  { kind: '0-byte file', expect: 'reported', make: (r, s) => times(s, (i) => write(r, `bad/empty-${i}.md`, '')) },
  { kind: 'sparse multi-GB file', expect: 'reported', make: (r, s) => [sparse(r, 'bad/huge.log', s === 'full' ? 8 * 2 ** 30 : 3 * 2 ** 30)] },
  { kind: 'invalid UTF-8', expect: 'indexed', make: (r, s, m) => times(s, (i) => write(r, `bad/latin-${i}.md`, Buffer.concat([Buffer.from(`# ${m}\n\ncaf`), Buffer.from([0xe9, 0x20, 0xc3, 0x28, 0xa0, 0xa1]), Buffer.from(` ${i}\n`)]))) },
  { kind: 'UTF-16 with a BOM', expect: 'indexed', make: (r, _s, m) => [write(r, 'bad/utf16.txt', Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(`${m} wide text\n`, 'utf16le')]))] },
  {
    kind: 'one very long line (no newline)',
    expect: 'indexed',
    // full: 50 MB (the suite raises the per-file limit to 64 MB so it is really chunked)
    make: (r, s, m) => [write(r, 'bad/one-line.txt', `${m} ${'lorem ipsum dolor sit amet '.repeat(s === 'full' ? 1_900_000 : 60_000)}`)],
  },
  { kind: 'one 1 MB word', expect: 'indexed', make: (r, _s, m) => [write(r, 'bad/long-word.md', `${m}\n${'x'.repeat(1 << 20)}\n`)] },
  { kind: 'HTML nested 200 levels deep', expect: 'indexed', make: (r, _s, m) => [write(r, 'bad/nested.html', `${'<div>'.repeat(200)}<p>${m}</p>${'</div>'.repeat(200)}`)] },
  { kind: 'HTML nested 20,000 levels, never closed', expect: 'indexed', make: (r, _s, m) => [write(r, 'bad/unclosed.html', `<p>${m}</p>${'<div><span>'.repeat(20_000)}`)] },
  { kind: 'Markdown quotes and lists 200 levels deep', expect: 'indexed', make: (r, _s, m) => [write(r, 'bad/nested.md', `${'> '.repeat(200)}${m}\n${Array.from({ length: 200 }, (_, i) => `${'  '.repeat(i)}- item ${i}`).join('\n')}\n`)] },
  { kind: 'truncated HTML and an unclosed code fence', expect: 'indexed', make: (r, _s, m) => [write(r, 'bad/cut.html', `<html><body><p>${m} <a href="`), write(r, 'bad/fence.md', `# ${m}\n\n\`\`\`js\nconst a = 1;\n`)] },
  { kind: 'folders 200 levels deep', expect: 'indexed', make: (r, _s, m) => [write(r, `${'d/'.repeat(200)}deep.md`, `# ${m}\n`)] },
  { kind: 'a name with a newline', expect: 'indexed', make: (r, _s, m) => [write(r, 'names/line\nbreak.md', `# ${m}\n`)] },
  { kind: 'emoji names', expect: 'indexed', make: (r, _s, m) => [write(r, 'names/📚 notes 🦀.md', `# ${m}\n`)] },
  { kind: 'a 250-byte name', expect: 'indexed', make: (r, _s, m) => [write(r, `names/${'n'.repeat(247)}.md`, `# ${m}\n`)] },
  { kind: 'a symlink loop', expect: 'ignored', make: (r) => [link(r, '..', 'loops/self'), link(r, 'b', 'loops/a'), link(r, 'a', 'loops/b')] },
  {
    kind: 'links escaping the root',
    expect: 'ignored',
    make: (r, _s, m) => {
      fs.writeFileSync(path.join(path.dirname(r), 'outside.md'), `# ${m}\n`); // beside the root, never inside it
      return [link(r, '/etc', 'escape/etc'), link(r, '/etc/hostname', 'escape/hostname.txt'), link(r, path.join(path.dirname(r), 'outside.md'), 'escape/outside.md')];
    },
  },
  { kind: 'a FIFO named .md', expect: 'ignored', make: (r) => [fifo(r, 'bad/pipe.md')] },
  { kind: 'secret files', expect: 'ignored', make: (r, _s, m) => [write(r, 'secrets/.env', `API_KEY=${m}`), write(r, 'secrets/id_rsa', m), write(r, 'secrets/server.pem', m), write(r, 'secrets/credentials.json', `{"k":"${m}"}`)] },
  // root reads any file whatever its mode; the CLI test runs as nobody for that (test/cli/unreadable.test.ts)
  { kind: 'an unreadable file', expect: isRoot ? 'indexed' : 'reported', make: (r, _s, m) => [locked(r, 'bad/locked.md', `# ${m}\n`)] },
  { kind: 'an unreadable folder', expect: isRoot ? 'indexed' : 'reported', make: (r, _s, m) => [lockedDir(r, 'sealed', `# ${m}\n`)] },
  // documents (issue 16): parsed in workers; a broken one fails with its reason, a bomb is refused
  { kind: 'corrupt and truncated PDFs', expect: 'reported', make: (r, s) => times(s, (i) => write(r, `formats/corrupt-${i}.pdf`, Buffer.concat([Buffer.from('%PDF-1.7\n1 0 obj\n<< /Type /Catalog'), randomBytes(500 * (i + 1), `pdf${i}`)]))) },
  { kind: 'an encrypted PDF', expect: 'reported', make: (r) => [write(r, 'formats/encrypted.pdf', '%PDF-1.7\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\ntrailer\n<< /Root 1 0 R /Encrypt << /Filter /Standard /V 5 /R 6 /Length 256 >> >>\n%%EOF\n')] },
  { kind: 'a truncated .docx', expect: 'reported', make: (r) => [write(r, 'formats/cut.docx', zipArchive([{ name: '[Content_Types].xml', text: '<Types/>' }, { name: 'word/document.xml', text: '<w:document><w:body><w:p><w:r><w:t>cut</w:t></w:r></w:p></w:body></w:document>' }]).subarray(0, 120))] },
  { kind: 'a .xlsx that is not a zip', expect: 'reported', make: (r) => [write(r, 'formats/not-a-zip.xlsx', randomBytes(3000, 'xlsx'))] },
  {
    kind: 'a zip-bomb .docx',
    expect: 'reported',
    make: (r, s) => [write(r, 'formats/bomb.docx', zipArchive([{ name: '[Content_Types].xml', text: '<Types/>' }, ...Array.from({ length: s === 'full' ? 64 : 4 }, (_, i) => ({ name: `word/document${i || ''}.xml`, zeros: 64 << 20 }))]))],
  },
];

function times(scale: Scale, make: (i: number) => string): string[] {
  return Array.from({ length: COPIES[scale] }, (_, i) => make(i));
}

function sparse(root: string, rel: string, size: number): string {
  const abs = path.join(root, rel);
  fs.mkdirSync(path.dirname(abs), { recursive: true });
  const fd = fs.openSync(abs, 'w');
  fs.ftruncateSync(fd, size);
  fs.closeSync(fd);
  return rel;
}

function link(root: string, target: string, rel: string): string {
  const abs = path.join(root, rel);
  fs.mkdirSync(path.dirname(abs), { recursive: true });
  fs.symlinkSync(target, abs);
  return rel;
}

function fifo(root: string, rel: string): string {
  const abs = path.join(root, rel);
  fs.mkdirSync(path.dirname(abs), { recursive: true });
  execFileSync('mkfifo', [abs]); // node has no mkfifo; coreutils' is everywhere the tests run
  return rel;
}

function locked(root: string, rel: string, text: string): string {
  write(root, rel, text);
  fs.chmodSync(path.join(root, rel), 0o000);
  return rel;
}

function lockedDir(root: string, rel: string, text: string): string {
  write(root, `${rel}/inside.md`, text);
  fs.chmodSync(path.join(root, rel), 0o000);
  return `${rel}/inside.md`;
}

/** Gives back what chmod took away, so the folder can be removed. */
export function unlock(root: string): void {
  for (const rel of ['bad/locked.md', 'sealed']) {
    try {
      fs.chmodSync(path.join(root, rel), 0o755);
    } catch {
      /* not written at this scale */
    }
  }
}

const WORDS = 'river stone lantern harbour meadow copper signal orchard glacier compass thunder velvet ember quarry falcon willow summit beacon cobalt prairie'.split(' ');

/** Good documents, each with a unique marker word; every one must be found by it. */
export function writeGoodCorpus(root: string, count: number): { path: string; marker: string }[] {
  const out: { path: string; marker: string }[] = [];
  for (let i = 0; i < count; i++) {
    const marker = `goodmark${i.toString(36)}q`;
    const body = Array.from({ length: 12 }, (_, j) => `${WORDS[(i + j) % WORDS.length]} ${WORDS[(i * 7 + j) % WORDS.length]} notes line ${j}.`).join('\n');
    const ext = ['md', 'txt', 'html'][i % 3]!;
    const text = ext === 'html' ? `<html><body><h1>Doc ${i}</h1><p>${marker}</p><p>${body}</p></body></html>` : `# Doc ${i}\n\n${marker}\n\n${body}\n`;
    out.push({ path: write(root, `good/${Math.floor(i / 50)}/doc-${i}.${ext}`, text), marker });
  }
  return out;
}

/** The marker a row's files carry (one per row, so a search finds exactly that row). */
export function markerFor(row: HostileRow): string {
  return `hostilemark${crypto.createHash('sha1').update(row.kind).digest('hex').slice(0, 8)}`;
}
