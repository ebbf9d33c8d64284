// Picks the parser for a file by its extension. New formats (PDF, DOCX, …) register here.
import { codeParser } from './code.js';
import { htmlParser } from './html.js';
import { markdownParser } from './markdown.js';
import { textParser } from './text.js';
import type { Parser } from './types.js';

const MARKDOWN = new Set(['md', 'markdown', 'mdx', 'mdown']);
const HTML = new Set(['html', 'htm', 'xhtml']);
const CODE: Record<string, string> = {
  ts: 'typescript', tsx: 'typescript', mts: 'typescript', cts: 'typescript', js: 'javascript', jsx: 'javascript',
  mjs: 'javascript', cjs: 'javascript', vue: 'vue', svelte: 'svelte', py: 'python', pyi: 'python', rb: 'ruby', go: 'go',
  rs: 'rust', java: 'java', kt: 'kotlin', kts: 'kotlin', scala: 'scala', swift: 'swift', m: 'objective-c',
  mm: 'objective-c', c: 'c', h: 'c', cc: 'cpp', cpp: 'cpp', cxx: 'cpp', hpp: 'cpp', hh: 'cpp', cs: 'csharp',
  fs: 'fsharp', php: 'php', pl: 'perl', lua: 'lua', r: 'r', jl: 'julia', dart: 'dart', ex: 'elixir', exs: 'elixir',
  erl: 'erlang', hs: 'haskell', clj: 'clojure', el: 'elisp', zig: 'zig', nim: 'nim', sol: 'solidity', sh: 'shell',
  bash: 'shell', zsh: 'shell', fish: 'shell', ps1: 'powershell', psm1: 'powershell', bat: 'batch', cmd: 'batch',
  sql: 'sql', graphql: 'graphql', proto: 'protobuf', css: 'css', scss: 'scss', less: 'less',
};
const codeParsers = new Map<string, Parser>();

export function extensionOf(path: string): string {
  const base = path.slice(path.lastIndexOf('/') + 1);
  const dot = base.lastIndexOf('.');
  return dot > 0 ? base.slice(dot + 1).toLowerCase() : '';
}

export function parserFor(path: string): Parser {
  const ext = extensionOf(path);
  if (MARKDOWN.has(ext)) return markdownParser;
  if (HTML.has(ext)) return htmlParser;
  const language = CODE[ext];
  if (language) {
    let p = codeParsers.get(language);
    if (!p) codeParsers.set(language, (p = codeParser(language)));
    return p;
  }
  return textParser;
}
