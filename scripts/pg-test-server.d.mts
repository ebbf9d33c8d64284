// Types of scripts/pg-test-server.mjs for the TypeScript tests and benches that import it.
export const WHEEL: string;
export const TEMPLATE_DB: string;
export const HOW_TO_GET_POSTGRES: string;
export interface TestServer {
  /** TCP, loopback */
  url: string;
  /** the same server over its unix socket: postgresql://trove@/trove?host=…&port=… */
  socketUrl: string;
  dataDir: string;
  port: number;
  socketDir: string;
  install: string;
}
export function cacheDir(env?: NodeJS.ProcessEnv): string;
export function findInstall(env?: NodeJS.ProcessEnv): string | null;
export function ensureInstalled(env?: NodeJS.ProcessEnv): string;
export function startServer(opts?: { dataDir?: string; port?: number; env?: NodeJS.ProcessEnv }): Promise<TestServer>;
export function stopServer(dataDir: string, opts?: { remove?: boolean }): void;
