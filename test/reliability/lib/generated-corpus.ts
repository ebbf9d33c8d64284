// A deterministic corpus of ordinary Markdown notes, written at run time (nothing from ../shared):
// headed sections of plain sentences, a few kilobytes each, so every file is several chunks.
import fs from 'node:fs';
import path from 'node:path';

const WORDS = (
  'the keeper logs wind and swell every four hours while gannets dive from thirty metres and puffins nest in burrows ' +
  'on the cliff top retries back off with jitter so the herd never stampedes a lens turns once every ten seconds ' +
  'harbour lantern copper signal orchard glacier compass thunder velvet ember quarry falcon willow summit beacon'
).split(' ');

function sentence(seed: number, words: number): string {
  const out: string[] = [];
  let s = seed;
  for (let i = 0; i < words; i++) {
    s = (s * 1103515245 + 12345) & 0x7fffffff;
    out.push(WORDS[(s >>> 8) % WORDS.length]!);
  }
  const text = out.join(' ');
  return `${text[0]!.toUpperCase()}${text.slice(1)}.`;
}

/** Writes `count` notes under root (in folders of 40); returns their relative paths. */
export function writeNotes(root: string, count: number, seed = 1): string[] {
  const paths: string[] = [];
  for (let i = 0; i < count; i++) {
    const rel = `notes-${Math.floor(i / 40)}/note-${String(i).padStart(4, '0')}.md`;
    const sections = 2 + (i % 4);
    const body = Array.from({ length: sections }, (_, j) => `## Part ${j + 1}\n\n${Array.from({ length: 6 }, (_, k) => sentence(seed * 7919 + i * 131 + j * 17 + k, 14 + ((i + k) % 9))).join(' ')}\n`).join('\n');
    const abs = path.join(root, rel);
    fs.mkdirSync(path.dirname(abs), { recursive: true });
    fs.writeFileSync(abs, `# Note ${i}\n\n${body}`);
    paths.push(rel);
  }
  return paths;
}
