// Many rows into one table by COPY … FROM STDIN (pg-copy-streams) instead of INSERT … unnest(arrays):
// an index batch writes ~40 keyword postings a chunk (~45,000 rows a batch of 64 files), and for
// rows that many pg's array literals (built and escaped per element in JavaScript, parsed again by
// the server) cost about as much as the insert itself. COPY's text format is one line a row, tab
// between the columns, written once. A few rows (a memory entry's) keep the one-round-trip INSERT:
// COPY takes two.
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import type { Queryable } from './connection.js';
import { writeDigits } from './term-table.js';

/** Below this many rows the INSERT … unnest statement is as fast and answers in one round trip. */
export const COPY_FROM_ROWS = 512;
/**
 * Keyword rows go by binary COPY from this many (their tsvectors are then not parsed by the
 * server, which costs an INSERT more than COPY's second round trip once a batch has a few
 * dozen chunks; a memory entry's one row keeps the INSERT).
 */
export const BINARY_COPY_FROM_ROWS = 32;

/** A column's value in COPY's text format: backslash, newline, carriage return and tab escaped. */
export function copyText(v: string): string {
  return /[\\\n\r\t]/.test(v) ? v.replace(/[\\\n\r\t]/g, (c) => ESCAPES[c]!) : v;
}
const ESCAPES: Record<string, string> = { '\\': '\\\\', '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/**
 * Rows in COPY's text format (one line a row, columns by tab: copyText for text, String for
 * numbers) or its binary format (header, tuples, trailer: `format` 'binary'), given as parts of
 * ~1 MB each (strings, or their UTF-8 bytes), into `table (columns)`, on the caller's connection
 * (its transaction) or, given the pool, on one of its own.
 */
export async function copyRows(on: Queryable, table: string, columns: readonly string[], text: Iterable<string | Buffer>, format: 'text' | 'binary' = 'text'): Promise<void> {
  const own = 'release' in on ? null : await on.connect();
  const client: pg.PoolClient = own ?? (on as pg.PoolClient);
  try {
    await pipeline(Readable.from(text), client.query(copyFrom(`COPY ${table} (${columns.join(', ')}) FROM STDIN${format === 'binary' ? ' (FORMAT binary)' : ''}`)));
  } catch (err) {
    own?.release(err as Error); // a connection whose COPY failed half-way is not reused
    throw err;
  }
  own?.release();
}

/** The size of one part of a COPY's text: big enough for few writes, small enough not to hold the batch's rows twice. */
export const COPY_PART_CHARS = 1 << 20;

/** A buffer filled byte by byte: numbers as ASCII digits, text as UTF-8 (a COPY part made without a string per value). */
export class CopyBuffer {
  readonly buf: Buffer;
  pos = 0;

  constructor(size: number) {
    this.buf = Buffer.allocUnsafe(size);
  }

  byte(c: number): void {
    this.buf[this.pos++] = c;
  }

  bytes(b: Uint8Array): void {
    if (b.length < 64) for (let i = 0; i < b.length; i++) this.buf[this.pos++] = b[i]!;
    else {
      this.buf.set(b, this.pos);
      this.pos += b.length;
    }
  }

  text(s: string): void {
    this.pos += this.buf.write(s, this.pos, 'utf8');
  }

  /** A non-negative integer's digits (anything else as JavaScript prints it, which COPY reads alike). */
  number(v: number): void {
    if (!(v >= 0 && v <= 0x7fffffff && (v | 0) === v)) {
      this.text(String(v));
      return;
    }
    this.pos = writeDigits(this.buf, this.pos, v);
  }

  take(): Buffer {
    return this.buf.subarray(0, this.pos);
  }
}
