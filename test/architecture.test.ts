// The layers only look down: the engine imports nothing from electron, the MCP SDK, or the
// faces (mcp, cli, host, app); the MCP server and the CLI do not import each other.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../src-main');

function sourceFiles(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const abs = path.join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(abs);
    return /\.(c|m)?[jt]sx?$/.test(e.name) && !e.name.endsWith('.d.ts') ? [abs] : [];
  });
}

// static imports and re-exports (including `import type`), side-effect imports, dynamic import(), require()
const IMPORT = /(?:\bimport\s+(?:type\s+)?(?:[\w*{}\s,$]+\s+from\s+)?|\bexport\s+(?:type\s+)?[\w*{}\s,$]+\s+from\s+|\bimport\s*\(\s*|\brequire\s*\(\s*)(['"`])([^'"`]+)\1/g;

export function importsOf(file: string): string[] {
  const text = fs.readFileSync(file, 'utf8').replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
  return [...text.matchAll(IMPORT)].map((m) => m[2]!);
}

/** The src-main area a relative import lands in ('engine', 'mcp', …), or null for packages. */
function areaOf(fromFile: string, spec: string): string | null {
  if (!spec.startsWith('.')) return null;
  const target = path.resolve(path.dirname(fromFile), spec);
  const rel = path.relative(SRC, target);
  if (rel.startsWith('..')) return `outside src-main (${rel})`;
  return rel.split(path.sep)[0]!;
}

function violations(area: string, forbidden: { packages: RegExp; areas: string[] }): string[] {
  const out: string[] = [];
  for (const file of sourceFiles(path.join(SRC, area))) {
    for (const spec of importsOf(file)) {
      const where = areaOf(file, spec);
      const bad = where === null ? forbidden.packages.test(spec) : forbidden.areas.includes(where) || where.startsWith('outside');
      if (bad) out.push(`${path.relative(SRC, file)} imports ${spec}`);
    }
  }
  return out;
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
          "import '../host/side-effect.js';",
          "const lazy = await import('../app/window.js');",
          'const req = require("electron/main");',
          "// import { commented } from 'electron';",
          "import {\n  multi,\n  line,\n} from '../engine/ok.js';",
        ].join('\n'),
      );
      expect(importsOf(f)).toEqual([
        'electron',
        '@modelcontextprotocol/server',
        '../mcp/server.js',
        '../cli/main.js',
        '../host/side-effect.js',
        '../app/window.js',
        'electron/main',
        '../engine/ok.js',
      ]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('has engine sources to check', () => {
    expect(sourceFiles(path.join(SRC, 'engine')).length).toBeGreaterThan(20);
    expect(sourceFiles(path.join(SRC, 'engine')).some((f) => f.endsWith('engine.ts'))).toBe(true);
  });

  it('the engine imports nothing from electron, the MCP SDK, or the faces', () => {
    expect(
      violations('engine', { packages: /^(electron($|\/)|@modelcontextprotocol\/)/, areas: ['mcp', 'cli', 'host', 'app'] }),
    ).toEqual([]);
  });

  it('the MCP server does not import the CLI, and the CLI does not import MCP internals', () => {
    expect(violations('mcp', { packages: /^electron($|\/)/, areas: ['cli', 'app'] })).toEqual([]);
    expect(violations('cli', { packages: /^(electron($|\/)|@modelcontextprotocol\/)/, areas: ['mcp', 'app'] })).toEqual([]);
  });
});
