// A minimal ZIP writer (stored central directory, deflated entries) for hostile Office files:
// a zip bomb is a few kilobytes that inflate to gigabytes. No library: the point is to write
// exactly the bytes a hostile file has, including ones a library would refuse to write.
import zlib from 'node:zlib';

export interface ZipEntry {
  name: string;
  /** That many zero bytes (at most a few hundred MB: deflated once, the run is shared by every entry of that size). */
  zeros?: number;
  text?: string;
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(buf: Buffer, crc = 0): number {
  let c = ~crc >>> 0;
  for (const b of buf) c = CRC_TABLE[(c ^ b) & 0xff]! ^ (c >>> 8);
  return ~c >>> 0;
}

const zeroRuns = new Map<number, { data: Buffer; crc: number }>();

/** Deflated zeros, made once per size (a bomb repeats one run in many entries). */
function zeroRun(size: number): { data: Buffer; crc: number } {
  let run = zeroRuns.get(size);
  if (!run) {
    const raw = Buffer.alloc(size);
    run = { data: zlib.deflateRawSync(raw, { level: 9 }), crc: crc32(raw) };
    zeroRuns.set(size, run);
  }
  return run;
}

function deflateEntry(e: ZipEntry): { data: Buffer; crc: number; size: number } {
  if (e.text !== undefined) {
    const raw = Buffer.from(e.text, 'utf8');
    return { data: zlib.deflateRawSync(raw), crc: crc32(raw), size: raw.length };
  }
  const size = e.zeros ?? 0;
  return { ...zeroRun(size), size };
}

/** A ZIP archive of these entries. Sizes are declared as given (a bomb declares its true, huge size). */
export function zipArchive(entries: ZipEntry[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const e of entries) {
    const name = Buffer.from(e.name, 'utf8');
    const { data, crc, size } = deflateEntry(e);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0, 6);
    local.writeUInt16LE(8, 8); // deflate
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(Math.min(size, 0xffffffff), 22);
    local.writeUInt16LE(name.length, 26);
    locals.push(local, name, data);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(8, 10);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(data.length, 20);
    central.writeUInt32LE(Math.min(size, 0xffffffff), 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    centrals.push(central, name);
    offset += 30 + name.length + data.length;
  }
  const cd = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(cd.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, cd, end]);
}
