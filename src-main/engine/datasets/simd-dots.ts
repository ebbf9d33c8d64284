// The exact scan's inner products in WebAssembly SIMD (f32x4, two accumulators): a FAISS dataset's
// vectors are copied once into the kernel's own memory and every query multiplies against them
// there, four floats an instruction — 8,713 × 384 took ~3.4 ms a query as a JavaScript loop
// (vector-scan.ts innerProducts), which stays the fallback: for a dimension that is not a multiple
// of 8, a matrix too large for one WebAssembly memory, or a runtime without SIMD. The kernel
// checks itself against that loop when it is made and is not used if they disagree. The module is
// a few dozen instructions, assembled below from their opcodes (no toolchain, no binary blob).

/** Inner products of q with every row into out; `vectors` is the matrix as the kernel holds it (the dataset reads rows from it). */
export interface DotKernel {
  readonly vectors: Float32Array;
  innerProducts(q: Float32Array, out: Float32Array): void;
}

/** One WebAssembly memory holds at most 4 GiB; stay well under it. */
const MAX_BYTES = 2 ** 31;
const PAGE = 65_536;

/** The part of the WebAssembly global this needs (the node build's type libraries do not declare it). */
interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}
interface WasmApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object) => { exports: unknown };
}
const wasm = (globalThis as unknown as { WebAssembly?: WasmApi }).WebAssembly;

/** The kernel for this matrix, or null when the JavaScript loop must do (see the header). */
export function dotKernel(vectors: Float32Array, d: number, n: number): DotKernel | null {
  if (d % 8 !== 0 || d === 0 || n === 0) return null;
  const matrixBytes = n * d * 4;
  const total = matrixBytes + d * 4 + n * 4;
  if (total > MAX_BYTES) return null;
  if (!wasm) return null;
  let exports: { dots: (v: number, q: number, out: number, n: number, dBytes: number) => void; mem: WasmMemory };
  try {
    exports = new wasm.Instance(new wasm.Module(MODULE)).exports as typeof exports;
    exports.mem.grow(Math.ceil(total / PAGE));
  } catch {
    return null; // no SIMD in this runtime, or no memory to spare: the loop does it
  }
  const { dots, mem } = exports;
  const matrix = new Float32Array(mem.buffer, 0, n * d);
  matrix.set(vectors.subarray(0, n * d));
  const qAt = matrixBytes;
  const outAt = matrixBytes + d * 4;
  const query = new Float32Array(mem.buffer, qAt, d);
  const scores = new Float32Array(mem.buffer, outAt, n);
  const kernel: DotKernel = {
    vectors: matrix,
    innerProducts(q, out) {
      query.set(q);
      dots(0, qAt, outAt, n, d * 4);
      out.set(scores);
    },
  };
  return agrees(kernel, matrix, d, n) ? kernel : null;
}

/** The kernel's products equal the plain sums (to float32 rounding) on a few rows and a probe query. */
function agrees(kernel: DotKernel, matrix: Float32Array, d: number, n: number): boolean {
  const q = new Float32Array(d);
  for (let j = 0; j < d; j++) q[j] = Math.sin(j + 1); // every lane non-zero, both signs
  const out = new Float32Array(n);
  kernel.innerProducts(q, out);
  for (const r of [0, n >> 1, n - 1]) {
    let s = 0;
    let mag = 0;
    for (let j = 0; j < d; j++) {
      s += matrix[r * d + j]! * q[j]!;
      mag += Math.abs(matrix[r * d + j]! * q[j]!);
    }
    if (!(Math.abs(out[r]! - s) <= 1e-5 * mag + 1e-30)) return false;
  }
  return true;
}

// ---- the module -----------------------------------------------------------------------------
// (func (export "dots") (param $v i32) (param $q i32) (param $out i32) (param $n i32) (param $dBytes i32)
//   for r in 0..n: out[r] = Σ over 32-byte steps of v[row] · q, in two f32x4 accumulators), memory "mem".

const I32 = 0x7f;
const V128 = 0x7b;
const op = {
  block: [0x02, 0x40],
  loop: [0x03, 0x40],
  end: [0x0b],
  br: (depth: number) => [0x0c, depth],
  brIf: (depth: number) => [0x0d, depth],
  get: (i: number) => [0x20, i],
  set: (i: number) => [0x21, i],
  i32Const: (v: number) => [0x41, v], // v < 64: one signed LEB byte
  i32Add: [0x6a],
  i32Shl: [0x74],
  i32GeU: [0x4f],
  f32Add: [0x92],
  f32Store: [0x38, 0x02, 0x00],
  v128Load: (offset: number) => [0xfd, 0x00, 0x02, offset],
  v128Zero: [0xfd, 0x0c, ...new Array<number>(16).fill(0)],
  f32x4Add: [0xfd, 0xe4, 0x01],
  f32x4Mul: [0xfd, 0xe6, 0x01],
  lane: (i: number) => [0xfd, 0x1f, i],
};
// params 0 v, 1 q, 2 out, 3 n, 4 dBytes; locals 5 r, 6 j, 7 row (byte address), 8 acc, 9 acc2
const [V, Q, OUT, N, DB, R, J, ROW, A, B] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9];
const product = (acc: number, offset: number) => [
  ...op.get(acc),
  ...op.get(ROW), ...op.get(J), ...op.i32Add, ...op.v128Load(offset),
  ...op.get(Q), ...op.get(J), ...op.i32Add, ...op.v128Load(offset),
  ...op.f32x4Mul, ...op.f32x4Add, ...op.set(acc),
];
const body = [
  ...op.get(V), ...op.set(ROW),
  ...op.block, ...op.loop, // rows
  ...op.get(R), ...op.get(N), ...op.i32GeU, ...op.brIf(1),
  ...op.v128Zero, ...op.set(A), ...op.v128Zero, ...op.set(B), ...op.i32Const(0), ...op.set(J),
  ...op.block, ...op.loop, // 32 bytes (8 floats) a step
  ...op.get(J), ...op.get(DB), ...op.i32GeU, ...op.brIf(1),
  ...product(A, 0), ...product(B, 16),
  ...op.get(J), ...op.i32Const(32), ...op.i32Add, ...op.set(J),
  ...op.br(0), ...op.end, ...op.end,
  ...op.get(A), ...op.get(B), ...op.f32x4Add, ...op.set(A),
  ...op.get(OUT), ...op.get(R), ...op.i32Const(2), ...op.i32Shl, ...op.i32Add, // &out[r]
  ...op.get(A), ...op.lane(0), ...op.get(A), ...op.lane(1), ...op.f32Add, ...op.get(A), ...op.lane(2), ...op.f32Add, ...op.get(A), ...op.lane(3), ...op.f32Add,
  ...op.f32Store,
  ...op.get(ROW), ...op.get(DB), ...op.i32Add, ...op.set(ROW),
  ...op.get(R), ...op.i32Const(1), ...op.i32Add, ...op.set(R),
  ...op.br(0), ...op.end, ...op.end,
  ...op.end, // function
];
const code = [0x02, 0x03, I32, 0x02, V128, ...body]; // locals: 3 × i32, 2 × v128

const section = (id: number, bytes: number[]) => [id, ...leb(bytes.length), ...bytes];
const name = (s: string) => [s.length, ...[...s].map((c) => c.charCodeAt(0))];
const MODULE = new Uint8Array([
  0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
  ...section(1, [0x01, 0x60, 0x05, I32, I32, I32, I32, I32, 0x00]), // type: (5 × i32) → ()
  ...section(3, [0x01, 0x00]), // one function of that type
  ...section(5, [0x01, 0x00, 0x00]), // one memory, 0 pages to start (grown to fit)
  ...section(7, [0x02, ...name('dots'), 0x00, 0x00, ...name('mem'), 0x02, 0x00]),
  ...section(10, [0x01, ...leb(code.length), ...code]),
]);

function leb(n: number): number[] {
  const out: number[] = [];
  do {
    let b = n & 0x7f;
    n >>>= 7;
    if (n) b |= 0x80;
    out.push(b);
  } while (n);
  return out;
}
