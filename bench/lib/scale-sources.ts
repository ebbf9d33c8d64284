// The raw material of bench:scale's corpus, read once from the bench corpora in ../shared/bench:
// Markdown documents (cpp-docs, powershell-docs) cut into sections at their headings, the code
// blocks inside them by language, and SciFact's abstracts and claims. Everything is in a stable
// order (sorted paths, file order), so the same seed always draws the same corpus.
import fs from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { markdownFiles } from './pdf-corpus.js';

export interface SourceDoc {
  /** Which corpus it came from (`cpp-docs`, `powershell-docs`). */
  corpus: string;
  /** Path relative to its corpus. */
  rel: string;
  /** Front matter (kept whole, as the originals have it), or ''. */
  frontMatter: string;
  /** The body cut at its headings: the first section may have no heading. */
  sections: string[];
}

export interface CodeSnippet {
  /** The file extension its language is written in (`cpp`, `h`, `ps1`, `cs`). */
  ext: string;
  text: string;
}

export interface Abstract {
  title: string;
  text: string;
}

export interface Sources {
  docs: SourceDoc[];
  /** Every section of every document, for the sections a generated document borrows. */
  sections: string[];
  /** Code blocks by file extension. */
  code: Map<string, CodeSnippet[]>;
  abstracts: Abstract[];
  /** SciFact's claims: natural-language questions a person would type. */
  claims: string[];
}

/** The fence languages that become code files, and the extension each is saved under. */
const CODE_FENCES: Record<string, string> = { cpp: 'cpp', c: 'h', powershell: 'ps1', csharp: 'cs' };

/** Reads the corpora under `benchDir` (../shared/bench). Throws naming what is missing. */
export function loadSources(benchDir: string): Sources {
  const markdown: { corpus: string; rel: string; md: string }[] = [];
  for (const corpus of ['cpp-docs', 'powershell-docs']) {
    const dir = path.join(benchDir, 'corpora', corpus);
    if (!fs.existsSync(dir)) throw new Error(`bench corpus not found: ${dir}`);
    for (const rel of markdownFiles(dir, Infinity)) markdown.push({ corpus, rel, md: fs.readFileSync(path.join(dir, rel), 'utf8') });
  }
  const scifact = path.join(benchDir, 'beir', 'scifact');
  const corpusFile = path.join(scifact, 'corpus.jsonl.gz');
  if (!fs.existsSync(corpusFile)) throw new Error(`SciFact corpus not found: ${corpusFile}`);
  const abstracts = gunzipSync(fs.readFileSync(corpusFile))
    .toString('utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Abstract);
  const claims = fs
    .readFileSync(path.join(scifact, 'queries.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => (JSON.parse(l) as { text: string }).text);
  return sourcesFrom(markdown, abstracts, claims);
}

/** The pools, from Markdown texts (in the order given), abstracts and claims. */
export function sourcesFrom(markdown: readonly { corpus: string; rel: string; md: string }[], abstracts: readonly Abstract[], claims: readonly string[]): Sources {
  const docs: SourceDoc[] = [];
  const code = new Map<string, CodeSnippet[]>();
  for (const { corpus, rel, md } of markdown) {
    const text = md.replace(/\r\n?/g, '\n');
    const doc = splitMarkdown(corpus, rel, text);
    if (doc.sections.length) docs.push(doc);
    for (const s of codeBlocks(text)) {
      const list = code.get(s.ext) ?? [];
      list.push(s);
      code.set(s.ext, list);
    }
  }
  if (!docs.length || !code.size || !abstracts.length || !claims.length) throw new Error('the sources need Markdown documents with code blocks, abstracts and claims');
  return { docs, sections: docs.flatMap((d) => d.sections), code, abstracts: abstracts.filter((a) => a.text.trim()), claims: [...claims] };
}

/** Front matter apart, then sections starting at each heading outside code fences. */
function splitMarkdown(corpus: string, rel: string, md: string): SourceDoc {
  const fm = /^---\n[\s\S]*?\n---\n/.exec(md);
  const body = fm ? md.slice(fm[0].length) : md;
  const sections: string[] = [];
  let current: string[] = [];
  let fence: string | null = null;
  for (const line of body.split('\n')) {
    const f = /^\s*(```|~~~)/.exec(line);
    if (f) fence = fence === null ? f[1]! : line.trimStart().startsWith(fence) ? null : fence;
    if (fence === null && /^#{1,6}\s/.test(line) && current.some((l) => l.trim())) {
      sections.push(current.join('\n').trim());
      current = [];
    }
    current.push(line);
  }
  if (current.some((l) => l.trim())) sections.push(current.join('\n').trim());
  return { corpus, rel, frontMatter: fm ? fm[0] : '', sections };
}

/** The fenced code blocks in a language we save as code files. */
function codeBlocks(md: string): CodeSnippet[] {
  const out: CodeSnippet[] = [];
  for (const m of md.matchAll(/^\s*```([A-Za-z#+-]+)[^\n]*\n([\s\S]*?)\n\s*```/gm)) {
    const ext = CODE_FENCES[m[1]!.toLowerCase()];
    const text = m[2]!.replace(/^\s*\n|\s+$/g, '');
    if (ext && text.length >= 40) out.push({ ext, text });
  }
  return out;
}

/** The first heading of a text (without its marks), or ''. */
export function firstHeading(text: string): string {
  return (/^#{1,6}\s+(.+)$/m.exec(text)?.[1] ?? '').replace(/[`*_#]/g, '').trim();
}
