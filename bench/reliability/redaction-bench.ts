// reliability:redaction [--corpus dir]…: secret redaction over clean documentation corpora (by
// default ../shared/bench/corpora/cpp-docs and powershell-docs), where every redaction is a false
// positive. Prints redactions per corpus and rule with a few examples each (to judge them), the
// time it took, and one JSON line.
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { findSecrets } from '../../src-main/engine/redaction/secret-scanner.js';

const SHARED = path.resolve(import.meta.dirname, '../../../shared/bench/corpora');
const { values } = parseArgs({ options: { corpus: { type: 'string', multiple: true } } });
const corpora = values.corpus ?? [path.join(SHARED, 'cpp-docs'), path.join(SHARED, 'powershell-docs')];
const TEXT = /\.(md|markdown|txt|html?|ya?ml|json|ps1|psm1|cpp|h|c)$/i;

const results: Record<string, unknown>[] = [];
for (const root of corpora) {
  const files = (fs.readdirSync(root, { recursive: true, withFileTypes: true }) as fs.Dirent[]).filter((e) => e.isFile() && TEXT.test(e.name));
  const byRule = new Map<string, string[]>();
  let bytes = 0;
  let redactions = 0;
  let filesWith = 0;
  const t0 = performance.now();
  for (const f of files) {
    const abs = path.join(f.parentPath, f.name);
    const text = fs.readFileSync(abs, 'utf8');
    bytes += text.length;
    const found = findSecrets(text);
    if (found.length) filesWith++;
    redactions += found.length;
    for (const s of found) {
      const list = byRule.get(s.rule) ?? [];
      list.push(`${path.relative(root, abs)}: ${JSON.stringify(text.slice(Math.max(0, s.start - 30), Math.min(text.length, s.end + 10)))}`);
      byRule.set(s.rule, list);
    }
  }
  const seconds = (performance.now() - t0) / 1000;
  console.log(`${path.basename(root)}: ${files.length} files, ${(bytes / 1e6).toFixed(1)} MB of text: ${redactions} redactions in ${filesWith} files (${seconds.toFixed(1)} s, ${(bytes / 1e6 / seconds).toFixed(1)} MB/s)`);
  for (const [rule, list] of [...byRule.entries()].sort((a, b) => b[1].length - a[1].length)) {
    console.log(`  ${rule}: ${list.length}`);
    for (const ex of list.slice(0, 3)) console.log(`    ${ex.slice(0, 200)}`);
  }
  results.push({ corpus: path.basename(root), files: files.length, mb: Math.round(bytes / 1e5) / 10, redactions, filesWith, byRule: Object.fromEntries([...byRule].map(([r, l]) => [r, l.length])), seconds: Math.round(seconds * 10) / 10 });
}
console.log(JSON.stringify({ bench: 'reliability:redaction', corpora: results }));
