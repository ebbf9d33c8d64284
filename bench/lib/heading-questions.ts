// bench:search's questions: natural-language questions built deterministically from a corpus's own
// headings ("how do I <heading>", "what is <heading>", "<heading> example", …), so they have answers
// and are phrased like a person would ask. The same seed gives the same questions in every build.
import fs from 'node:fs';
import path from 'node:path';

export function headingQuestions(dir: string, count: number): string[] {
  const headings: string[] = [];
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.md')) {
        for (const m of fs.readFileSync(p, 'utf8').matchAll(/^#{1,3} +(.{12,80})$/gm)) headings.push(m[1]!.replace(/[`*_]/g, ''));
      }
    }
  };
  walk(dir);
  let seed = 42;
  const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const templates = [
    (h: string) => `how do I ${h.toLowerCase()}`,
    (h: string) => `what is ${h.toLowerCase()}`,
    (h: string) => `${h} example`,
    (h: string) => `why does ${h.toLowerCase()} fail`,
    (h: string) => `explain ${h.toLowerCase()} in C++`,
  ];
  return Array.from({ length: count }, () => {
    const h = headings[Math.floor(rand() * headings.length)]!;
    return templates[Math.floor(rand() * templates.length)]!(h);
  });
}
