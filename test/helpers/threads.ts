// This process's threads as Linux sees them: for tests that prove a worker runs niced (background
// work: parsing, OCR, background embedding) while the threads answering searches keep their priority.
import fs from 'node:fs';

/** Nice value of each of this process's threads by thread id (/proc/self/task/<tid>/stat, field 19). */
export function threadNiceness(): Map<number, number> {
  const out = new Map<number, number>();
  for (const tid of fs.readdirSync('/proc/self/task')) {
    try {
      const stat = fs.readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      out.set(Number(tid), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]));
    } catch {
      /* a thread that ended meanwhile */
    }
  }
  return out;
}
