// A real model mirror for download tests: a node:http server on 127.0.0.1 serving a temp folder
// laid out as <model id>/<file> (what TROVE_MODELS_MIRROR and `--mirror` expect). Files are copied
// from the test models at run time; no weights are ever committed. `slow` sends in small pieces
// with pauses, like a real network, so a UI can be seen showing progress.
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';

export interface ModelMirror {
  url: string;
  dir: string;
  /** Copies these files of a model from `from` (a folder holding <id>/<file>) into the mirror. */
  fill(from: string, id: string, files: string[]): void;
  /** Flips a few bytes of a served file, keeping its size. */
  corrupt(id: string, file: string): void;
  close(): Promise<void>;
}

export async function startModelMirror(dir: string, opts: { slow?: boolean } = {}): Promise<ModelMirror> {
  fs.mkdirSync(dir, { recursive: true });
  const server = http.createServer((req, res) => {
    const file = path.join(dir, decodeURIComponent(new URL(req.url ?? '/', 'http://mirror').pathname));
    if (!file.startsWith(dir + path.sep) || !fs.existsSync(file) || !fs.statSync(file).isFile()) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-length': fs.statSync(file).size });
    if (!opts.slow) {
      fs.createReadStream(file).pipe(res);
      return;
    }
    const stream = fs.createReadStream(file, { highWaterMark: 256 * 1024 });
    stream.on('data', (chunk) => {
      res.write(chunk);
      stream.pause();
      setTimeout(() => stream.resume(), 150);
    });
    stream.on('end', () => res.end());
    res.on('close', () => stream.destroy());
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    dir,
    fill(from, id, files) {
      for (const f of files) {
        const target = path.join(dir, id, f);
        fs.mkdirSync(path.dirname(target), { recursive: true });
        fs.copyFileSync(path.join(from, id, f), target);
        fs.chmodSync(target, 0o644); // the shared copies are read-only
      }
    },
    corrupt(id, file) {
      const target = path.join(dir, id, file);
      const bytes = fs.readFileSync(target);
      for (let i = 1000; i < 1010; i++) bytes[i] = bytes[i]! ^ 0xff;
      fs.writeFileSync(target, bytes);
    },
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/** test-tiny-embedder as the tests build it (1.6 MB of weights), with the files the manifest lists. */
export const TINY_MODEL = { id: 'test-tiny-embedder', files: ['onnx/model.onnx', 'tokenizer.json'], weights: 'onnx/model.onnx', weightsBytes: 1568691 };
