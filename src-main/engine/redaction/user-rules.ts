// The user's own redaction rules (settings.json `redaction`, regex sources): their matches become
// [redacted] in the document text a face returns. A person's regex can be catastrophically slow
// (nested repetition over a long line), and JavaScript cannot interrupt a running regex, so the
// rules run in a worker thread under a time budget per text and rule: one that runs over it is
// stopped (the worker is terminated and replaced), named, and the call fails closed — no text
// goes out unredacted — until the rule is fixed or removed. Rules with nested repetition are
// refused when saved (safe-regex2), so most never get that far.
import { Worker } from 'node:worker_threads';
import safeRegex from 'safe-regex2';
import { TroveError } from '../errors.js';
import type { Cut } from './spans.js';

export const REDACTED = '[redacted]';

/** How long a new worker thread may take to pick up its first job (a loaded machine's start-up), apart from the rules' budget. */
const WORKER_START_MS = 30_000;

/** Each text after the rules, and per text the replacements of each rule's pass, in order. */
export interface RuleOutput {
  texts: string[];
  passes: Cut[][][];
}

/** Why a rule source cannot be saved, or null when it is fine. */
export function ruleProblem(source: string): string | null {
  let re: RegExp;
  try {
    re = new RegExp(source, 'gu');
  } catch (err) {
    return `not a valid regular expression: ${(err as Error).message}`;
  }
  if (re.test('')) return 'the rule matches empty text; it must match at least one character';
  if (!safeRegex(source)) return 'the rule nests repetition (like (a+)+) and could take exponential time on some text; rewrite it without the nesting';
  return null;
}

/** A hand-edited file can hold any rule: an invalid or empty-matching one is skipped, not fatal. */
function usable(source: string): boolean {
  try {
    return !new RegExp(source, 'gu').test('');
  } catch {
    return false;
  }
}

// the worker: compiles each rule once and reports which text and rule it is on through shared memory
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const progress = new Int32Array(workerData);
const cache = new Map();
parentPort.on('message', ({ id, sources, texts }) => {
  const rules = sources.map((s) => { let re = cache.get(s); if (!re) { re = new RegExp(s, 'gu'); cache.set(s, re); } return re; });
  const out = [];
  const cuts = [];
  for (const text of texts) {
    let t = text;
    const passes = [];
    for (let j = 0; j < rules.length; j++) {
      Atomics.store(progress, 1, j);
      Atomics.add(progress, 0, 1);
      rules[j].lastIndex = 0;
      const pass = [];
      t = t.replace(rules[j], (match, ...args) => {
        const offset = args.find((a) => typeof a === 'number');
        pass.push([offset, match.length]);
        return ${JSON.stringify(REDACTED)};
      });
      passes.push(pass);
    }
    out.push(t);
    cuts.push(passes);
  }
  Atomics.add(progress, 0, 1);
  parentPort.postMessage({ id, texts: out, cuts });
});`;

export class UserRuleRunner {
  private worker: Worker | null = null;
  private progress = new Int32Array(new SharedArrayBuffer(8));
  private chain: Promise<unknown> = Promise.resolve();
  private nextId = 1;
  /** Rule source → why it was stopped; cleared for a source only by editing the rules. */
  private readonly tooSlow = new Map<string, string>();

  constructor(private readonly budgetMs = 250) {}

  /**
   * The texts with every usable rule applied, and for each text the replacements of each rule's pass
   * (to move highlight spans); rejects (UNAVAILABLE) when a rule is or becomes too slow.
   */
  apply(texts: readonly string[], sources: readonly string[]): Promise<RuleOutput> {
    const rules = sources.filter(usable);
    if (!rules.length || !texts.length) return Promise.resolve({ texts: [...texts], passes: texts.map(() => []) });
    const known = rules.find((r) => this.tooSlow.has(r));
    if (known) return Promise.reject(slowError(known, this.tooSlow.get(known)!));
    const run = this.chain.then(() => this.run(texts, rules));
    this.chain = run.catch(() => undefined); // one job in the worker at a time, so a stuck rule is known
    return run;
  }

  /** Forgets stopped rules that are no longer saved (the person fixed or removed them). */
  forgetExcept(sources: readonly string[]): void {
    for (const s of this.tooSlow.keys()) if (!sources.includes(s)) this.tooSlow.delete(s);
  }

  async close(): Promise<void> {
    const w = this.worker;
    this.worker = null;
    await w?.terminate();
  }

  private ensureWorker(): Worker {
    if (!this.worker) {
      const buffer = new SharedArrayBuffer(8);
      this.progress = new Int32Array(buffer);
      this.worker = new Worker(WORKER_SOURCE, { eval: true, workerData: buffer });
      this.worker.unref();
    }
    return this.worker;
  }

  private run(texts: readonly string[], rules: string[]): Promise<RuleOutput> {
    const worker = this.ensureWorker();
    const id = this.nextId++;
    return new Promise<RuleOutput>((resolve, reject) => {
      const posted = Atomics.load(this.progress, 0);
      const postedAt = performance.now();
      let lastStep = posted;
      let lastChange = postedAt;
      const watchdog = setInterval(() => {
        const step = Atomics.load(this.progress, 0);
        if (step !== lastStep) {
          lastStep = step;
          lastChange = performance.now();
          return;
        }
        // the budget is the rules' time: a new thread's start (hundreds of ms on a loaded machine) is not theirs
        if (step === posted) {
          if (performance.now() - postedAt < WORKER_START_MS) return;
          finish();
          this.worker = null;
          void worker.terminate();
          reject(new TroveError('UNAVAILABLE', `redaction rules could not be applied, so no document text is returned: their worker did not start in ${WORKER_START_MS / 1000} s`));
          return;
        }
        if (performance.now() - lastChange < this.budgetMs) return;
        const rule = rules[Atomics.load(this.progress, 1)] ?? rules[0]!;
        const why = `it ran for more than ${this.budgetMs} ms on one text and was stopped`;
        this.tooSlow.set(rule, why);
        process.stderr.write(`trove: redaction rule ${JSON.stringify(rule)} ${why}\n`); // the rule, never the text
        finish();
        this.worker = null;
        void worker.terminate();
        reject(slowError(rule, why));
      }, Math.max(10, Math.min(50, this.budgetMs / 4)));
      const onMessage = (m: { id: number; texts: string[]; cuts: [number, number][][][] }) => {
        if (m.id !== id) return;
        finish();
        resolve({ texts: m.texts, passes: m.cuts.map((perRule) => perRule.map((pass) => pass.map(([start, length]) => ({ start, end: start + length, length: REDACTED.length })))) });
      };
      const onError = (err: Error) => {
        finish();
        this.worker = null;
        reject(new TroveError('UNAVAILABLE', `redaction rules could not be applied, so no document text is returned: ${err.message}`));
      };
      const finish = () => {
        clearInterval(watchdog);
        worker.off('message', onMessage);
        worker.off('error', onError);
      };
      worker.on('message', onMessage);
      worker.on('error', onError);
      worker.postMessage({ id, sources: rules, texts });
    });
  }
}

function slowError(rule: string, why: string): TroveError {
  return new TroveError(
    'UNAVAILABLE',
    `redaction rule ${JSON.stringify(rule)} is too slow (${why}); no document text is returned until it is fixed or removed in Settings`,
    { rule },
  );
}
