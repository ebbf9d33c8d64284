// Reads members of a ZIP container (DOCX, PPTX, XLSX, OpenDocument, EPUB) with fflate, within
// bounds: a member whose declared size is over the per-part limit, or members adding up to more
// than the per-file budget, are refused before anything is inflated. fflate inflates into a
// buffer of the declared size, so a member that lies about its size cannot grow past it.
import { unzipSync } from 'fflate';
import type { ParseLimits } from './types.js';

interface Entry {
  compressed: number;
  size: number;
}

const CFB_MAGIC = [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1];

export class ZipArchive {
  private readonly entries = new Map<string, Entry>();
  private inflated = 0;

  constructor(
    private readonly bytes: Uint8Array,
    private readonly limits: Pick<ParseLimits, 'maxPartBytes' | 'maxTotalBytes'>,
    private readonly what: string,
  ) {
    if (CFB_MAGIC.every((b, i) => bytes[i] === b)) {
      throw new Error(`this ${what} is password-protected (encrypted) or a legacy binary file, not a ZIP container; it cannot be read`);
    }
    try {
      unzipSync(bytes, {
        filter: (f) => {
          this.entries.set(f.name, { compressed: f.size, size: f.originalSize });
          return false;
        },
      });
    } catch (err) {
      throw new Error(`not a readable ${what} (its ZIP container is truncated or damaged: ${(err as Error).message})`);
    }
  }

  has(name: string): boolean {
    return this.entries.has(name);
  }

  names(): string[] {
    return [...this.entries.keys()];
  }

  /** The member's bytes; undefined when there is no such member. Throws when a bound is crossed. */
  read(name: string): Uint8Array | undefined {
    const entry = this.entries.get(name);
    if (!entry) return undefined;
    if (entry.size > this.limits.maxPartBytes) {
      throw new Error(`${name} would decompress to ${mb(entry.size)}, over the ${mb(this.limits.maxPartBytes)} limit for one part (a zip bomb?)`);
    }
    if (this.inflated + entry.size > this.limits.maxTotalBytes) {
      throw new Error(`the ${this.what}'s parts decompress to more than ${mb(this.limits.maxTotalBytes)} (a zip bomb?)`);
    }
    this.inflated += entry.size;
    let out: Uint8Array | undefined;
    try {
      out = unzipSync(this.bytes, { filter: (f) => f.name === name })[name];
    } catch (err) {
      throw new Error(`${name} in this ${this.what} is damaged (${(err as Error).message})`);
    }
    return out;
  }

  /** The member as UTF-8 text (a byte-order mark dropped). */
  text(name: string): string | undefined {
    const bytes = this.read(name);
    if (!bytes) return undefined;
    const start = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
    return new TextDecoder('utf-8').decode(bytes.subarray(start));
  }
}

/** Resolves a relationship target against the folder of the part that points to it. */
export function resolvePart(fromPart: string, target: string): string {
  if (target.startsWith('/')) return normalise(target.slice(1));
  const dir = fromPart.includes('/') ? fromPart.slice(0, fromPart.lastIndexOf('/') + 1) : '';
  return normalise(dir + target);
}

function normalise(path: string): string {
  const out: string[] = [];
  for (const seg of decodeURIComponentSafe(path.split('#')[0]!).split('/')) {
    if (seg === '..') out.pop();
    else if (seg && seg !== '.') out.push(seg);
  }
  return out.join('/');
}

function decodeURIComponentSafe(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

export function mb(n: number): string {
  return `${Math.round((n / 1024 / 1024) * 10) / 10} MB`;
}
