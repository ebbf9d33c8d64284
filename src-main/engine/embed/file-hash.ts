// sha256 of model files, streamed (a 118 MB file must not block the event loop) and cached per
// path, size and mtime: the index records the digest of the weights that made its vectors.
import crypto from 'node:crypto';
import fs from 'node:fs';

const cache = new Map<string, string>();

export async function sha256File(file: string): Promise<string> {
  const st = await fs.promises.stat(file);
  const key = `${file}\0${st.size}\0${st.mtimeMs}`;
  const hit = cache.get(key);
  if (hit) return hit;
  const hash = crypto.createHash('sha256');
  for await (const chunk of fs.createReadStream(file, { highWaterMark: 1 << 20 })) hash.update(chunk as Buffer);
  const digest = hash.digest('hex');
  cache.set(key, digest);
  return digest;
}
