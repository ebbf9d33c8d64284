// Where a run's time goes, from V8 CPU profiles: the in-process part profiled through the inspector,
// child processes through `node --cpu-prof` (a file per thread on exit), and each profile summed up as
// self time per function and per area (a source file of Trove's, a package, or V8's own: GC,
// native code, idle). Used by bench:scale --profile; `tsx bench/lib/cpu-profile.ts [--until ms] <files…>`
// prints the same summary for profiles from elsewhere (--until: only their first milliseconds).
import fs from 'node:fs';
import { Session } from 'node:inspector/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

export interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

/** Runs `fn` under the V8 profiler of this thread and writes the profile to `file`. */
export async function profiled<T>(file: string, fn: () => Promise<T>): Promise<T> {
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 500 });
  await session.post('Profiler.start');
  try {
    return await fn();
  } finally {
    const { profile } = await session.post('Profiler.stop');
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, JSON.stringify(profile));
    session.disconnect();
  }
}

/** A source location as an area: Trove's file (src-main/…), a package (node_modules/<name>), node's internals, or V8's own. */
function areaOf(frame: ProfileNode['callFrame']): string {
  const url = frame.url;
  if (!url) return frame.functionName.startsWith('(') ? frame.functionName : '(native)';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return `package ${pkg[1]}`;
  const own = /\/(src-main\/.*|bench\/.*|dist\/.*)$/.exec(url);
  if (own) return own[1]!.replace(/^dist\//, 'src-main/').replace(/\.js$/, '.ts');
  if (url.startsWith('node:')) return url;
  return url;
}

export interface ProfileSummary {
  totalMs: number;
  byArea: { area: string; ms: number; share: number }[];
  byFunction: { fn: string; ms: number; share: number }[];
}

/** Self time summed per area and per function (each sample's time goes to the frame on top); `untilMs`: only the first ms of the profile (a cold start's). */
export function summarize(profile: CpuProfile, top = 15, untilMs = Infinity): ProfileSummary {
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const area = new Map<string, number>();
  const fns = new Map<string, number>();
  let total = 0;
  let at = 0;
  profile.samples.forEach((id, i) => {
    const ms = (profile.timeDeltas[i] ?? 0) / 1000;
    at += ms;
    if (at > untilMs) return;
    const frame = nodes.get(id)!.callFrame;
    total += ms;
    const a = areaOf(frame);
    area.set(a, (area.get(a) ?? 0) + ms);
    const f = `${frame.functionName || '(anonymous)'} ${a}${frame.url ? `:${frame.lineNumber + 1}` : ''}`;
    fns.set(f, (fns.get(f) ?? 0) + ms);
  });
  const rank = <K extends string>(m: Map<string, number>, key: K) =>
    [...m].sort((x, y) => y[1] - x[1]).slice(0, top).map(([k, ms]) => ({ [key]: k, ms: Math.round(ms), share: +(ms / total).toFixed(3) }) as Record<K, string> & { ms: number; share: number });
  return { totalMs: Math.round(total), byArea: rank(area, 'area'), byFunction: rank(fns, 'fn') };
}

export function readProfile(file: string): CpuProfile {
  return JSON.parse(fs.readFileSync(file, 'utf8')) as CpuProfile;
}

/** The summary as lines for a terminal. */
export function formatSummary(title: string, s: ProfileSummary): string {
  const pct = (x: number) => `${(x * 100).toFixed(1)}%`.padStart(6);
  return [
    `${title}: ${(s.totalMs / 1000).toFixed(1)} s sampled`,
    '  by area:',
    ...s.byArea.map((a) => `    ${pct(a.share)} ${String(a.ms).padStart(7)} ms  ${a.area}`),
    '  by function (self time):',
    ...s.byFunction.map((f) => `    ${pct(f.share)} ${String(f.ms).padStart(7)} ms  ${f.fn}`),
  ].join('\n');
}

if (process.argv[1] && path.resolve(process.argv[1]) === import.meta.filename) {
  const { values, positionals } = parseArgs({ allowPositionals: true, options: { until: { type: 'string' }, top: { type: 'string', default: '25' } } });
  const until = values.until === undefined ? Infinity : Number(values.until);
  if (!positionals.length || !(until > 0) || !(Number(values.top) > 0)) {
    console.error('usage: tsx bench/lib/cpu-profile.ts [--until ms] [--top n] <profile.cpuprofile>…');
    process.exit(2);
  }
  for (const f of positionals) console.log(formatSummary(`${f}${Number.isFinite(until) ? ` (first ${until} ms)` : ''}`, summarize(readProfile(f), Number(values.top), until)));
}
