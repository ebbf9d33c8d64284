// The context-server workload of ../shared/bench/peers/context-server.sh, for Trove: ~300-character
// slices of SciFact abstracts (the same slicing), entries with 2 of 16 tags and the same metadata,
// natural-language queries from spans of stored texts (the same five templates), and the same
// latency statistics. Only the random order differs (a seeded generator, not Python's).
import fs from 'node:fs';
import zlib from 'node:zlib';

export const TAGS = ['biology', 'medicine', 'genetics', 'cells', 'cancer', 'immunology', 'neuroscience', 'cardiology', 'metabolism', 'clinical', 'pharmacology', 'proteins', 'infection', 'aging', 'imaging', 'statistics'];
const WORDS = (
  'the a of in to and for with on by from that this these we our results study data model cell cells protein gene expression patients treatment risk analysis increased reduced response signal pathway ' +
  'mouse human tissue clinical trial effect effects significant associated levels role function activity during after before between within mechanism receptor binding growth factor immune infection disease ' +
  'brain heart liver blood cancer tumor therapy dose samples cohort age years survival rate mortality'
).split(' ');

/** A small seeded generator (mulberry32): the same run every time. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface SciFactDoc {
  id: string;
  title: string;
  text: string;
}

export function readSciFact(dir: string): SciFactDoc[] {
  const raw = zlib.gunzipSync(fs.readFileSync(`${dir}/corpus.jsonl.gz`)).toString('utf8');
  return raw.split('\n').filter(Boolean).map((l) => {
    const o = JSON.parse(l) as { _id: string; title: string; text: string };
    return { id: String(o._id), title: o.title, text: o.text };
  });
}

/** `need` texts: slices of the abstracts as the peer cuts them, then (beyond the corpus) halves of two slices joined, then generated sentences. */
export function workloadTexts(docs: readonly SciFactDoc[], need: number, random: () => number): string[] {
  const out: string[] = [];
  for (const d of docs) {
    const toks = `${d.title.replace(/\.+$/, '')}. ${d.text}`.split(/\s+/).filter(Boolean);
    let cur: string[] = [];
    for (const t of toks) {
      cur.push(t);
      if (cur.join(' ').length >= 280) {
        out.push(cur.join(' ').slice(0, 340));
        cur = [];
      }
    }
    if (cur.join(' ').length >= 200) out.push(cur.join(' '));
  }
  shuffle(out, random);
  const base = out.length;
  for (let i = 0; out.length < need && base > 1; i++) {
    const a = out[Math.floor(random() * base)]!;
    const b = out[Math.floor(random() * base)]!;
    out.push(`${a.slice(0, Math.floor(a.length / 2))} ${b.slice(Math.floor(b.length / 2))}`.slice(0, 340));
  }
  while (out.length < need) {
    const s: string[] = [];
    while (s.join(' ').length < 290) s.push(Array.from({ length: 6 + Math.floor(random() * 9) }, () => WORDS[Math.floor(random() * WORDS.length)]).join(' ') + '.');
    out.push(s.join(' ').slice(0, 340));
  }
  return out.slice(0, need);
}

export function shuffle<T>(a: T[], random: () => number): void {
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [a[i], a[j]] = [a[j]!, a[i]!];
  }
}

export function entry(text: string, thread: string, random: () => number) {
  const tags = [...TAGS];
  shuffle(tags, random);
  return {
    thread_id: thread,
    source: 'agent',
    text,
    tags: tags.slice(0, 2),
    metadata: { status: ['pending', 'active', 'done'][Math.floor(random() * 3)], agent_name: ['alpha', 'beta', 'gamma'][Math.floor(random() * 3)], priority: 1 + Math.floor(random() * 5) },
  };
}

const TEMPLATES = [(q: string) => q, (q: string) => `${q}?`, (q: string) => `what is known about ${q}?`, (q: string) => `evidence that ${q}`, (q: string) => `how does ${q} affect outcomes`];

/** Natural-language queries (raw: with punctuation) and their keyword variant (clean), each from a span of a stored text. */
export function workloadQueries(texts: readonly string[], n: number, random: () => number): { raw: string[]; clean: string[]; source: number[] } {
  const raw: string[] = [];
  const clean: string[] = [];
  const source: number[] = [];
  for (let i = 0; i < n; i++) {
    const k = Math.floor(random() * texts.length);
    const toks = texts[k]!.split(/\s+/);
    const len = 3 + Math.floor(random() * 4);
    const s = Math.floor(random() * Math.max(1, toks.length - len));
    const span = toks.slice(s, s + len).join(' ');
    raw.push(TEMPLATES[Math.floor(random() * TEMPLATES.length)]!(span.replace(/[.,;:]+$/, '')));
    clean.push((span.match(/[A-Za-z0-9]+/g) ?? ['cells']).join(' '));
    source.push(k);
  }
  return { raw, clean, source };
}

/** The peer's percentiles: linear interpolation, in milliseconds (input in ms). */
export function pct(xs: readonly number[], p: number): number | null {
  if (!xs.length) return null;
  const s = [...xs].sort((a, b) => a - b);
  const k = ((s.length - 1) * p) / 100;
  const lo = Math.floor(k);
  const hi = Math.min(lo + 1, s.length - 1);
  return Math.round((s[lo]! + (s[hi]! - s[lo]!) * (k - lo)) * 1000) / 1000;
}

export function lat(xs: readonly number[]) {
  return { p50_ms: pct(xs, 50), p95_ms: pct(xs, 95), mean_ms: xs.length ? Math.round((xs.reduce((a, b) => a + b, 0) / xs.length) * 1000) / 1000 : null };
}

/** Errors by kind, one sample each (as the peer reports them). */
export class Errs {
  n = 0;
  readonly kinds: Record<string, number> = {};
  readonly samples: string[] = [];
  add(msg: string): void {
    this.n++;
    const kind = /syntax error/i.test(msg) ? 'fts5_syntax' : /no such column/i.test(msg) ? 'fts5_column_filter' : /timed? ?out/i.test(msg) ? 'timeout' : 'other';
    if (!(kind in this.kinds)) this.samples.push(msg.slice(0, 160));
    this.kinds[kind] = (this.kinds[kind] ?? 0) + 1;
  }
  out() {
    return { errors: this.n, error_kinds: this.kinds, error_samples: this.samples };
  }
}
