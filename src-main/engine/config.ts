// The environment, which the edges (the CLI, `trove serve`, the desktop host) pass in once, into one
// validated object: the options the engine is opened with and the host's own. Nothing below the
// faces reads the environment itself; a bad value is a usage error (INVALID_INPUT) naming the variable, the
// same message from every command.
import { invalidInput } from './errors.js';
import type { EngineOptions } from './engine.js';
import { defaultProfileDir } from './profile.js';
import { validatePostgresUrl } from './store/postgres/url.js';

export type Env = Readonly<Record<string, string | undefined>>;

/** What the host (not the engine) takes from the environment. */
export interface HostEnvironment {
  /** TROVE_PORT: the preferred port (0: any free one). */
  port?: number;
  /** TROVE_TOKEN: the full-access bearer token instead of $TROVE_HOME/host-token. */
  token?: string;
  /** TROVE_MODELS_MIRROR: base URL serving <model id>/<file> for model downloads. */
  modelsMirror?: string;
  /** TROVE_MCP_TOKEN: the token `trove mcp` sends (a scoped client). */
  mcpToken?: string;
  /** TROVE_IDLE_EXIT_MINUTES: how long a host `trove mcp` started waits without clients or work before it stops. */
  idleExitMinutes?: number;
  /** TROVE_MCP_FAST_CALLS: 0 answers every MCP call through the SDK's per-request server (the fast tools/call path off, for A/B). */
  mcpFastCalls?: boolean;
}

export interface TroveEnvironment {
  engine: EngineOptions;
  host: HostEnvironment;
  /** TROVE_DEBUG: stack traces of unexpected errors on stderr. */
  debug: boolean;
  /** TROVE_DATABASE_URL: the index in PostgreSQL instead of the profile's SQLite file (what runs there: docs/scale-out.md). */
  database?: string;
}

/** Every variable Trove reads, with what it means (the README and `--help` list the same). */
export const ENVIRONMENT_VARIABLES = {
  TROVE_HOME: 'profile folder (index, settings, tokens, downloaded models)',
  TROVE_MAX_FILE_BYTES: 'largest file indexed, in bytes (default 10 MB, else the saved setting); documents (PDF, Office, …) may be ten times it',
  TROVE_MODELS_DIR: 'a folder holding one sub-folder per model id, looked in first',
  TROVE_RERANK_MODEL: "the cross-encoder for rerank mode ('none': no reranking)",
  TROVE_FUSION: 'how hybrid search fuses its legs: rrf (default) or weighted',
  TROVE_READER_THREADS: "SQLite reader threads of a host (default one per core, at most 4; 0: every read on the engine's thread)",
  TROVE_NATIVE_RANK: '0 turns off the native BM25 extension (same results, slower)',
  TROVE_NATIVE_DIR: 'where the native ranking extension is (packaged apps)',
  TROVE_ONNX_SIGNED_WEIGHTS: '0 turns off the exact int8 weight rewrite (slower embedding)',
  TROVE_WATCH_POLLING: '1 polls folders instead of native file events (network drives)',
  TROVE_WATCH_POLL_MS: 'polling interval in milliseconds (default 1000, at least 50)',
  TROVE_RECONCILE_MINUTES: 'minutes between full reconcile scans while watching (default 15)',
  TROVE_PORT: 'preferred port of `trove serve` and the desktop host',
  TROVE_TOKEN: "the host's full-access token",
  TROVE_MODELS_MIRROR: 'base URL to download models from instead of their own sources',
  TROVE_MCP_TOKEN: 'the token `trove mcp` sends',
  TROVE_IDLE_EXIT_MINUTES: 'minutes a host started by `trove mcp` waits without clients or indexing work before it stops (default 5)',
  TROVE_MCP_FAST_CALLS: "0 turns off the MCP server's fast path for stateless tool calls (the same answers through the SDK's per-request server; for A/B)",
  TROVE_DEBUG: '1 prints stack traces of unexpected errors',
  TROVE_DATABASE_URL: 'the index in PostgreSQL (postgresql://user@host/db) for the commands that run there, `trove serve` and the desktop host (docs/scale-out.md)',
} as const;

/** Reads and checks every TROVE_* variable; throws INVALID_INPUT naming the first bad one. */
export function readEnvironment(env: Env, platform: NodeJS.Platform = process.platform): TroveEnvironment {
  const v = new EnvReader(env);
  const live = {
    ...optional('usePolling', v.boolean('TROVE_WATCH_POLLING')),
    ...optional('pollIntervalMs', v.integer('TROVE_WATCH_POLL_MS', 50, 3_600_000)),
    ...optional('reconcileIntervalMs', minutesToMs(v.number('TROVE_RECONCILE_MINUTES', 0.01, 7 * 24 * 60))),
  };
  const rerank = v.string('TROVE_RERANK_MODEL');
  const engine: EngineOptions = {
    profileDir: defaultProfileDir(env, platform),
    ...optional('maxFileBytes', v.integer('TROVE_MAX_FILE_BYTES', 1, Number.MAX_SAFE_INTEGER)),
    ...optional('readerThreads', v.integer('TROVE_READER_THREADS', 0, 64)),
    nativeRank: { enabled: v.boolean('TROVE_NATIVE_RANK') ?? true, ...optional('dir', v.string('TROVE_NATIVE_DIR')) },
    search: { ...optional('fusion', v.choice('TROVE_FUSION', ['rrf', 'weighted'] as const)) },
    indexing: { live },
    embeddings: {
      ...optional('modelsDir', v.string('TROVE_MODELS_DIR')),
      ...(rerank !== undefined ? { rerankModel: rerank.toLowerCase() === 'none' ? null : rerank } : {}),
      ...optional('signedWeights', v.boolean('TROVE_ONNX_SIGNED_WEIGHTS')),
    },
  };
  const host: HostEnvironment = {
    ...optional('port', v.integer('TROVE_PORT', 0, 65535)),
    ...optional('token', v.secret('TROVE_TOKEN', 16)),
    ...optional('modelsMirror', v.url('TROVE_MODELS_MIRROR')),
    ...optional('mcpToken', v.string('TROVE_MCP_TOKEN')),
    ...optional('idleExitMinutes', v.number('TROVE_IDLE_EXIT_MINUTES', 0.01, 7 * 24 * 60)),
    ...optional('mcpFastCalls', v.boolean('TROVE_MCP_FAST_CALLS')),
  };
  return { engine, host, debug: v.boolean('TROVE_DEBUG') ?? false, ...optional('database', v.postgresUrl('TROVE_DATABASE_URL')) };
}

function optional<K extends string, T>(key: K, value: T | undefined): { [P in K]?: T } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: T };
}

function minutesToMs(minutes: number | undefined): number | undefined {
  return minutes === undefined ? undefined : Math.round(minutes * 60_000);
}

/** Each reader treats an unset or empty variable as "not given". */
class EnvReader {
  constructor(private readonly env: Env) {}

  private raw(name: string): string | undefined {
    const value = this.env[name]?.trim();
    return value ? value : undefined;
  }

  string(name: string): string | undefined {
    return this.raw(name);
  }

  postgresUrl(name: string): string | undefined {
    const raw = this.raw(name);
    if (raw === undefined) return undefined;
    try {
      return validatePostgresUrl(raw, name);
    } catch (err) {
      throw invalidInput((err as Error).message);
    }
  }

  secret(name: string, minLength: number): string | undefined {
    const raw = this.raw(name);
    if (raw !== undefined && raw.length < minLength) throw invalidInput(`${name} must be at least ${minLength} characters long`);
    return raw;
  }

  number(name: string, min: number, max: number): number | undefined {
    const raw = this.raw(name);
    if (raw === undefined) return undefined;
    const n = Number(raw);
    if (!Number.isFinite(n) || n < min || n > max) throw invalidInput(`${name} must be a number from ${min} to ${max} (got "${raw}")`);
    return n;
  }

  integer(name: string, min: number, max: number): number | undefined {
    const raw = this.raw(name);
    if (raw === undefined) return undefined;
    const n = Number(raw);
    if (!Number.isSafeInteger(n) || n < min || n > max) {
      const what = min === 1 && max === Number.MAX_SAFE_INTEGER ? 'a positive whole number' : `a whole number from ${min} to ${max}`;
      throw invalidInput(`${name} must be ${what} (got "${raw}")`);
    }
    return n;
  }

  boolean(name: string): boolean | undefined {
    const raw = this.raw(name);
    if (raw === undefined) return undefined;
    const lower = raw.toLowerCase();
    if (['1', 'true', 'yes', 'on'].includes(lower)) return true;
    if (['0', 'false', 'no', 'off'].includes(lower)) return false;
    throw invalidInput(`${name} must be 1 or 0 (got "${raw}")`);
  }

  choice<T extends string>(name: string, choices: readonly T[]): T | undefined {
    const raw = this.raw(name);
    if (raw === undefined) return undefined;
    const found = choices.find((c) => c === raw.toLowerCase());
    if (!found) throw invalidInput(`${name} must be one of ${choices.join(', ')} (got "${raw}")`);
    return found;
  }

  url(name: string): string | undefined {
    const raw = this.raw(name);
    if (raw === undefined) return undefined;
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      throw invalidInput(`${name} must be an http(s) URL (got "${raw}")`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw invalidInput(`${name} must be an http(s) URL (got "${raw}")`);
    return raw;
  }
}
