// The house's arrows between its own files — the engine's floors and the faces' arrows — are the
// lint's (eslint.config.js over floors.config.js: a wrong arrow fails `npm run lint` in the editor).
// This test keeps what the lint does not see: which outside packages each area may load, that the
// engine's public types stay type-only, and that every room of the engine stands on a floor (a new
// room left out of floors.config.js would escape the lint).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ENGINE_FLOORS } from '../floors.config.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SRC = path.join(ROOT, 'src-main');
const FRONT_DOOR = 'engine/index';

function sourceFiles(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const abs = path.join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(abs);
    return /\.(c|m)?[jt]sx?$/.test(e.name) && !e.name.endsWith('.d.ts') ? [abs] : [];
  });
}

interface ImportRef {
  spec: string;
  typeOnly: boolean;
  /** import(): loaded when the code runs, not with the module */
  onDemand: boolean;
}

// static imports and re-exports (including `import type`), side-effect imports, dynamic import(), require()
const IMPORT = /(?:\bimport\s+(type\s+)?(?:[\w*{}\s,$]+\s+from\s+)?|\bexport\s+(type\s+)?[\w*{}\s,$]+\s+from\s+|\bimport\s*\(\s*|\brequire\s*\(\s*)(['"`])([^'"`]+)\3/g;

export function importRefs(file: string): ImportRef[] {
  const text = fs.readFileSync(file, 'utf8').replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
  return [...text.matchAll(IMPORT)].map((m) => ({ spec: m[4]!, typeOnly: !!(m[1] || m[2]), onDemand: /^import\s*\(/.test(m[0]) }));
}

export function importsOf(file: string): string[] {
  return importRefs(file).map((r) => r.spec);
}

/** Where a relative import lands, relative to the repo ('src-main/engine/index', 'src-main/mcp/server', …), without extension. */
function targetOf(fromFile: string, spec: string): string {
  return path.relative(ROOT, path.resolve(path.dirname(fromFile), spec)).split(path.sep).join('/').replace(/\.(js|ts|tsx|mjs)$/, '');
}

type Rule = (target: string | null, ref: ImportRef) => boolean;

/** Every import of every file under `area` (relative to the repo) that the rule refuses. */
function violations(area: string, allowed: Rule): string[] {
  const out: string[] = [];
  for (const file of sourceFiles(path.join(ROOT, area))) {
    for (const ref of importRefs(file)) {
      const target = ref.spec.startsWith('.') ? targetOf(file, ref.spec) : null;
      if (!allowed(target, ref)) out.push(`${path.relative(ROOT, file)} imports ${ref.spec}${ref.typeOnly ? ' (type)' : ''}`);
    }
  }
  return out;
}

const under = (target: string | null, dir: string) => target !== null && (target === dir || target.startsWith(`${dir}/`));

/** Our own files a module loads with it (relative to the repo, no extension): its static imports, followed through. */
function loadedWith(entry: string): Set<string> {
  const seen = new Set<string>();
  const visit = (target: string) => {
    if (seen.has(target)) return;
    seen.add(target);
    const file = `${path.join(ROOT, target)}.ts`;
    for (const ref of importRefs(file)) if (!ref.typeOnly && !ref.onDemand && ref.spec.startsWith('.')) visit(targetOf(file, ref.spec));
  };
  visit(entry);
  return seen;
}

describe('architecture', () => {
  it('the import scanner sees every form of import (so the checks below can fail)', () => {
    const dir = fs.mkdtempSync(path.join(fs.realpathSync(process.env.TMPDIR ?? '/tmp'), 'trove-arch-'));
    try {
      const f = path.join(dir, 'sample.ts');
      fs.writeFileSync(
        f,
        [
          "import { app } from 'electron';",
          "import type { Server } from '@modelcontextprotocol/server';",
          "import x, { y } from '../mcp/server.js';",
          "export { z } from '../cli/main.js';",
          "export type * from './types/index.js';",
          "import '../host/side-effect.js';",
          "const lazy = await import('../app/window.js');",
          'const req = require("electron/main");',
          "// import { commented } from 'electron';",
          "import {\n  multi,\n  line,\n} from '../engine/ok.js';",
        ].join('\n'),
      );
      expect(importRefs(f)).toEqual([
        { spec: 'electron', typeOnly: false, onDemand: false },
        { spec: '@modelcontextprotocol/server', typeOnly: true, onDemand: false },
        { spec: '../mcp/server.js', typeOnly: false, onDemand: false },
        { spec: '../cli/main.js', typeOnly: false, onDemand: false },
        { spec: './types/index.js', typeOnly: true, onDemand: false },
        { spec: '../host/side-effect.js', typeOnly: false, onDemand: false },
        { spec: '../app/window.js', typeOnly: false, onDemand: true },
        { spec: 'electron/main', typeOnly: false, onDemand: false },
        { spec: '../engine/ok.js', typeOnly: false, onDemand: false },
      ]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('has sources in every area it checks', () => {
    for (const area of ['engine', 'engine/types', 'api', 'mcp', 'host', 'cli', 'app']) {
      expect(sourceFiles(path.join(SRC, area)).length, area).toBeGreaterThan(1);
    }
    expect(fs.existsSync(path.join(SRC, `${FRONT_DOOR}.ts`))).toBe(true);
  });

  it('the engine imports nothing from electron, the MCP SDK, the faces or the app API', () => {
    expect(
      violations('src-main/engine', (t, r) =>
        t === null ? !/^(electron($|\/)|@modelcontextprotocol\/)/.test(r.spec) : under(t, 'src-main/engine'),
      ),
    ).toEqual([]);
  });

  it("the engine's public types are types only and self-contained (the renderer compiles them)", () => {
    expect(violations('src-main/engine/types', (t, r) => r.typeOnly && under(t, 'src-main/engine/types'))).toEqual([]);
  });

  it('the app API is zod and the engine types, as types only', () => {
    expect(
      violations('src-main/api', (t, r) => (t === null ? r.spec === 'zod' : under(t, 'src-main/api') || (r.typeOnly && under(t, 'src-main/engine/types')))),
    ).toEqual([]);
  });

  it('every room of the engine stands on exactly one floor of the lint (floors.config.js)', () => {
    const placed = ENGINE_FLOORS.flatMap(([, rooms]) => rooms);
    expect(new Set(placed).size, 'a room on two floors').toBe(placed.length);
    const rooms = fs.readdirSync(path.join(SRC, 'engine'), { withFileTypes: true }).map((e) => e.name).filter((n) => !n.endsWith('.d.ts'));
    expect(rooms.filter((r) => !placed.includes(r)), 'rooms on no floor').toEqual([]);
    expect(placed.filter((r) => !rooms.includes(r)), 'floors naming rooms that are gone').toEqual([]);
  });

  it('mcp, the host and the CLI load neither Electron nor (CLI) the MCP SDK', () => {
    expect(violations('src-main/mcp', (t, r) => t !== null || !/^electron($|\/)/.test(r.spec))).toEqual([]);
    expect(violations('src-main/host', (t, r) => t !== null || !/^electron($|\/)/.test(r.spec))).toEqual([]);
    expect(violations('src-main/cli', (t, r) => t !== null || !/^(electron($|\/)|@modelcontextprotocol\/)/.test(r.spec))).toEqual([]);
  });

  it('`trove mcp`, the relay every stdio client starts, loads no more of the engine than its edge (engine/edge.ts)', () => {
    const loaded = [...loadedWith('src-main/cli/main'), ...loadedWith('src-main/cli/commands/mcp-command')];
    expect(loaded).toContain('src-main/host/stdio-relay'); // the walk reaches the relay
    expect(loaded).toContain('src-main/engine/edge');
    const edge = loadedWith('src-main/engine/edge');
    expect(loaded.filter((t) => under(t, 'src-main/engine') && !edge.has(t))).toEqual([]);
  });

  it('the Electron main process never loads the engine: it supervises the host process and relays the app API', () => {
    expect(violations('src-main/app', (t, r) => (t === null ? /^(electron($|\/)|node:)/.test(r.spec) : under(t, 'src-main/app') || under(t, 'src-main/api')))).toEqual([]);
  });

  it('the preload and the renderer see only the app API', () => {
    const uiRule: Rule = (t) => t === null || !under(t, 'src-main') || under(t, 'src-main/api');
    expect(violations('src-preload', uiRule)).toEqual([]);
    expect(violations('src-renderer', uiRule)).toEqual([]);
  });
});
