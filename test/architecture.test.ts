// The house's layers only look down, and each face comes in through the front door. The allowed
// arrows are written down in docs/architecture.md; this test is the machine that keeps them:
//   engine            → nothing above it (no electron, no MCP SDK, no face, no api)
//   engine/types      → only engine/types, type-only (the renderer compiles it)
//   api               → zod, and engine/types as types only
//   mcp               → the engine's front door (engine/index.ts), its own rooms
//   host              → the engine's front door, mcp, api, its own rooms
//   cli               → the engine's front door, host, its own rooms
//   app (Electron)    → electron, api, its own rooms: never the engine (it runs in the host process)
//   preload, renderer → api only
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

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
}

// static imports and re-exports (including `import type`), side-effect imports, dynamic import(), require()
const IMPORT = /(?:\bimport\s+(type\s+)?(?:[\w*{}\s,$]+\s+from\s+)?|\bexport\s+(type\s+)?[\w*{}\s,$]+\s+from\s+|\bimport\s*\(\s*|\brequire\s*\(\s*)(['"`])([^'"`]+)\3/g;

export function importRefs(file: string): ImportRef[] {
  const text = fs.readFileSync(file, 'utf8').replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
  return [...text.matchAll(IMPORT)].map((m) => ({ spec: m[4]!, typeOnly: !!(m[1] || m[2]) }));
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
/** A face may enter the engine only through its front door. */
const frontDoor = (target: string | null) => target === `src-main/${FRONT_DOOR}`;

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
        { spec: 'electron', typeOnly: false },
        { spec: '@modelcontextprotocol/server', typeOnly: true },
        { spec: '../mcp/server.js', typeOnly: false },
        { spec: '../cli/main.js', typeOnly: false },
        { spec: './types/index.js', typeOnly: true },
        { spec: '../host/side-effect.js', typeOnly: false },
        { spec: '../app/window.js', typeOnly: false },
        { spec: 'electron/main', typeOnly: false },
        { spec: '../engine/ok.js', typeOnly: false },
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

  it('mcp enters the engine only by its front door and imports no other face', () => {
    expect(violations('src-main/mcp', (t, r) => (t === null ? !/^electron($|\/)/.test(r.spec) : frontDoor(t) || under(t, 'src-main/mcp')))).toEqual([]);
  });

  it('the host enters the engine only by its front door; it may wire mcp and the app API, never the CLI or Electron', () => {
    expect(
      violations('src-main/host', (t, r) =>
        t === null ? !/^electron($|\/)/.test(r.spec) : frontDoor(t) || under(t, 'src-main/host') || under(t, 'src-main/mcp') || under(t, 'src-main/api'),
      ),
    ).toEqual([]);
  });

  it('the CLI enters the engine only by its front door and reaches MCP only through the host', () => {
    expect(
      violations('src-main/cli', (t, r) =>
        t === null ? !/^(electron($|\/)|@modelcontextprotocol\/)/.test(r.spec) : frontDoor(t) || under(t, 'src-main/cli') || under(t, 'src-main/host'),
      ),
    ).toEqual([]);
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
