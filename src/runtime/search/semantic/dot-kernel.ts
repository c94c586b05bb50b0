/**
 * Dot products of one query vector with many catalog rows, the inner loop of semantic ranking
 * (10,000 tools × 512 dimensions a query). Plain JavaScript does it one float at a time in
 * doubles; this small WebAssembly function does it four floats at a time (128-bit SIMD, in Node
 * since v16), several times faster. The module is assembled here from its opcodes (one function,
 * about 120 bytes) rather than shipped as a binary: nothing to build, nothing to fetch. Where
 * WebAssembly SIMD is not available, the same contract is met in JavaScript.
 *
 * The rows live in the kernel's own memory (`load`), contiguous, so a query reads them in one
 * streaming pass.
 */

export interface DotKernel {
  /** "simd" (WebAssembly) or "js". */
  readonly kind: "simd" | "js";
  /** Replace the rows: `rows` × `dims` floats, row after row. */
  load(rows: Float32Array, dims: number): void;
  /** `out[i] = query · row(from + i)` for `count` rows. */
  dots(query: Float32Array, from: number, count: number, out: Float32Array): void;
}

/** Unsigned LEB128, the binary format's integer encoding. */
function leb(value: number): number[] {
  const bytes: number[] = [];
  do {
    let byte = value & 0x7f;
    value >>>= 7;
    if (value !== 0) byte |= 0x80;
    bytes.push(byte);
  } while (value !== 0);
  return bytes;
}

/** A section: its id, then its byte length, then its bytes. */
const section = (id: number, bytes: number[]) => [id, ...leb(bytes.length), ...bytes];
const name = (text: string) => [...leb(text.length), ...[...text].map((c) => c.charCodeAt(0))];

// Opcodes used below (WebAssembly core and SIMD proposals).
const I32 = 0x7f;
const V128 = 0x7b;
const get = (local: number) => [0x20, local];
const set = (local: number) => [0x21, local];
const tee = (local: number) => [0x22, local];
const i32Const = (value: number) => [0x41, ...leb(value)]; // small non-negative values only (signed LEB equals unsigned below 64)
const I32_ADD = 0x6a;
const I32_SHL = 0x74;
const I32_LT_U = 0x49;
const I32_GE_U = 0x4f;
const F32_ADD = 0x92;
const f32Store = [0x38, 0x02, 0x00]; // align 4, offset 0
const v128Load = (offset: number) => [0xfd, 0x00, 0x02, ...leb(offset)]; // align 4 (rows are float-aligned)
const V128_ZERO = [0xfd, 0x0c, ...new Array<number>(16).fill(0)];
const F32X4_ADD = [0xfd, 0xe4, 0x01];
const F32X4_MUL = [0xfd, 0xe6, 0x01];
const lane = (n: number) => [0xfd, 0x1f, n];
const BLOCK = [0x02, 0x40];
const LOOP = [0x03, 0x40];
const brIf = (depth: number) => [0x0d, depth];
const END = 0x0b;

/**
 * `dots(rows, query, count, dimsBytes, out)`: all pointers are byte offsets in the imported
 * memory; `dimsBytes` is a multiple of 32 (eight floats a step, in two accumulators so the adds
 * do not wait on each other).
 */
function dotsModule(): Uint8Array {
  const [ROWS, QUERY, COUNT, DIMS, OUT, END_OUT, K, ACC0, ACC1] = [0, 1, 2, 3, 4, 5, 6, 7, 8];
  const body = [
    // locals: two i32 (end of out, k), two v128 accumulators
    0x02, 0x02, I32, 0x02, V128,
    ...get(OUT), ...get(COUNT), ...i32Const(2), I32_SHL, I32_ADD, ...set(END_OUT),
    ...BLOCK,
    ...get(OUT), ...get(END_OUT), I32_GE_U, ...brIf(0),
    ...LOOP, // one row
    ...V128_ZERO, ...set(ACC0), ...V128_ZERO, ...set(ACC1), ...i32Const(0), ...set(K),
    ...LOOP, // eight floats
    ...get(ACC0), ...get(ROWS), ...v128Load(0), ...get(QUERY), ...get(K), I32_ADD, ...v128Load(0), ...F32X4_MUL, ...F32X4_ADD, ...set(ACC0),
    ...get(ACC1), ...get(ROWS), ...v128Load(16), ...get(QUERY), ...get(K), I32_ADD, ...v128Load(16), ...F32X4_MUL, ...F32X4_ADD, ...set(ACC1),
    ...get(ROWS), ...i32Const(32), I32_ADD, ...set(ROWS),
    ...get(K), ...i32Const(32), I32_ADD, ...tee(K), ...get(DIMS), I32_LT_U, ...brIf(0),
    END,
    ...get(ACC0), ...get(ACC1), ...F32X4_ADD, ...set(ACC0),
    ...get(OUT),
    ...get(ACC0), ...lane(0), ...get(ACC0), ...lane(1), F32_ADD, ...get(ACC0), ...lane(2), F32_ADD, ...get(ACC0), ...lane(3), F32_ADD,
    ...f32Store,
    ...get(OUT), ...i32Const(4), I32_ADD, ...tee(OUT), ...get(END_OUT), I32_LT_U, ...brIf(0),
    END,
    END,
    END,
  ];
  return new Uint8Array([
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
    ...section(1, [0x01, 0x60, 0x05, I32, I32, I32, I32, I32, 0x00]),
    ...section(2, [0x01, ...name("env"), ...name("memory"), 0x02, 0x00, 0x01]),
    ...section(3, [0x01, 0x00]),
    ...section(7, [0x01, ...name("dots"), 0x00, 0x00]),
    ...section(10, [0x01, ...leb(body.length), ...body]),
  ]);
}

const PAGE = 65536;

/** The slice of the WebAssembly global used here (the project's TypeScript libs do not declare it). */
interface WasmApi {
  validate(bytes: Uint8Array): boolean;
  Memory: new (descriptor: { initial: number }) => { readonly buffer: ArrayBuffer; grow(pages: number): number };
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: Record<string, unknown> };
}

function simdKernel(): DotKernel | undefined {
  const bytes = dotsModule();
  const wasm = (globalThis as { WebAssembly?: WasmApi }).WebAssembly;
  if (!wasm?.validate(bytes)) return undefined;
  const memory = new wasm.Memory({ initial: 1 });
  const instance = new wasm.Instance(new wasm.Module(bytes), { env: { memory } });
  const dots = instance.exports.dots as (rows: number, query: number, count: number, dimsBytes: number, out: number) => void;
  // Layout: the query at 0, the output after it, the rows after that (all float offsets).
  let dims = 0;
  let rowCount = 0;
  let capacityRows = 0;
  const rowsAt = () => (dims + capacityRows) * 4;
  function ensure(bytes: number): void {
    if (bytes > memory.buffer.byteLength) memory.grow(Math.ceil((bytes - memory.buffer.byteLength) / PAGE));
  }
  return {
    kind: "simd",
    load(rows, d) {
      dims = d;
      rowCount = rows.length / d;
      capacityRows = rowCount;
      ensure(rowsAt() + rows.byteLength);
      new Float32Array(memory.buffer, rowsAt(), rows.length).set(rows);
    },
    dots(query, from, count, out) {
      if (count === 0) return;
      if (from < 0 || from + count > rowCount || query.length !== dims) throw new RangeError(`dots: rows ${from}..${from + count} of ${rowCount}, query of ${query.length} for ${dims} dimensions`);
      new Float32Array(memory.buffer, 0, dims).set(query);
      dots(rowsAt() + from * dims * 4, 0, count, dims * 4, dims * 4);
      out.set(new Float32Array(memory.buffer, dims * 4, count));
    },
  };
}

/** a·b over n values starting at the given offsets, four lanes at a time: the kernel's JavaScript form, also used by ranking for its few pairs. */
export function dotAt(a: Float32Array, at: number, b: Float32Array, bt: number, n: number): number {
  let s0 = 0;
  let s1 = 0;
  let s2 = 0;
  let s3 = 0;
  let i = 0;
  for (; i + 3 < n; i += 4) {
    s0 += a[at + i]! * b[bt + i]!;
    s1 += a[at + i + 1]! * b[bt + i + 1]!;
    s2 += a[at + i + 2]! * b[bt + i + 2]!;
    s3 += a[at + i + 3]! * b[bt + i + 3]!;
  }
  for (; i < n; i++) s0 += a[at + i]! * b[bt + i]!;
  return s0 + s1 + s2 + s3;
}

function jsKernel(): DotKernel {
  let matrix = new Float32Array(0);
  let dims = 0;
  return {
    kind: "js",
    load(rows, d) {
      matrix = rows.slice();
      dims = d;
    },
    dots(query, from, count, out) {
      for (let r = 0; r < count; r++) out[r] = dotAt(matrix, (from + r) * dims, query, 0, dims);
    },
  };
}

/** The fastest kernel this process can run for vectors of `dims` dimensions. */
export function createDotKernel(dims: number, prefer: "simd" | "js" = "simd"): DotKernel {
  return (prefer === "simd" && dims % 8 === 0 ? simdKernel() : undefined) ?? jsKernel();
}
