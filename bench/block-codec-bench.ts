// bench:block-codec [dir] [--block 8192]: the text blocks' codec (store/content-blocks.ts) against
// the one before it, on a corpus's Markdown cut as the index cuts it: ratio, compression MB/s and
// the time to inflate one block, zstd level 1 (zstd-napi, contexts reused) beside brotli quality 1
// (node:zlib). Default corpus: ../shared/bench/corpora/cpp-docs.
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import zlib from 'node:zlib';
import { BLOCK_CHARS, inflateBlock, packText } from '../src-main/engine/store/content-blocks.js';

const { values, positionals } = parseArgs({ allowPositionals: true, options: { block: { type: 'string' }, files: { type: 'string', default: '3000' } } });
const dir = path.resolve(positionals[0] ?? path.join(import.meta.dirname, '../../shared/bench/corpora/cpp-docs'));
const blockChars = Number(values.block ?? BLOCK_CHARS);
const files = fs.readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile() && e.name.endsWith('.md')).slice(0, Number(values.files));
const texts: string[] = [];
for (const f of files) {
  const text = fs.readFileSync(path.join(f.parentPath, f.name), 'utf8');
  const starts = packText(text, blockChars).map((b) => b.start);
  starts.forEach((s, i) => texts.push(text.slice(s, starts[i + 1] ?? text.length)));
}
const raw = texts.reduce((n, t) => n + Buffer.byteLength(t), 0);
const brotli = { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 1, [zlib.constants.BROTLI_PARAM_MODE]: zlib.constants.BROTLI_MODE_TEXT } };
const codecs: Record<string, { pack: (t: string) => Buffer; inflate: (b: Buffer) => Buffer }> = {
  'zstd 1 (now)': { pack: (t) => packText(t, Number.MAX_SAFE_INTEGER)[0]!.data, inflate: (b) => inflateBlock(b) },
  'brotli 1 (before)': { pack: (t) => zlib.brotliCompressSync(Buffer.from(t), brotli), inflate: (b) => zlib.brotliDecompressSync(b) },
};
console.log(`${texts.length} blocks of ≤ ${blockChars} chars, ${(raw / 1e6).toFixed(1)} MB of UTF-8 from ${files.length} files of ${dir}`);
for (let round = 0; round < 2; round++) {
  for (const [name, c] of Object.entries(codecs)) {
    let t = performance.now();
    const packed = texts.map(c.pack);
    const packMs = performance.now() - t;
    const bytes = packed.reduce((n, b) => n + b.length, 0);
    t = performance.now();
    let out = 0;
    for (let i = 0; i < 3; i++) for (const b of packed) out += c.inflate(b).length;
    const inflateMs = (performance.now() - t) / 3;
    if (out !== raw * 3) throw new Error(`${name}: inflated ${out / 3} bytes, not ${raw}`);
    console.log(JSON.stringify({ round, codec: name, ratio: +(raw / bytes).toFixed(2), compress_mb_s: Math.round(raw / 1e3 / packMs), inflate_us_per_block: +((inflateMs * 1e3) / packed.length).toFixed(2) }));
  }
}
