/**
 * A faster SplitV for TensorFlow.js's WebAssembly backend, the one kernel of the sentence model
 * whose cost is not arithmetic. The backend's own SplitV (tfjs-backend-wasm 4.x, bundled in
 * @energetic-ai/core) slices each output with its JavaScript `slice`, which first copies the whole
 * input out of the wasm heap (`readSync`): the model splits two [batch, pieces, 1536]-sized
 * tensors in three, so every batch of 32 texts copied about 20 MB into fresh ArrayBuffers. That was
 * 8–10% of the model's CPU and most of its garbage collection. This one copies each output's rows
 * straight from the input's bytes in the heap, with no copy between: the same bytes, so the same
 * vectors (test/search.semantic.test.ts compares both kernels' vectors bit for bit).
 *
 * `AGENT_TOOLS_SEMANTIC_FAST_LANE=off` keeps the backend's own kernel (use-model.ts).
 */

/** The slice of @tensorflow/tfjs-core (re-exported by @energetic-ai/core) used here. */
export interface TfjsKernelApi {
  getKernel(kernelName: string, backendName: string): KernelConfig | undefined;
  registerKernel(config: KernelConfig): void;
  unregisterKernel(kernelName: string, backendName: string): void;
  util: { parseAxisParam(axis: number | number[], shape: number[]): number[] };
  backend_util: { prepareSplitSize(x: TensorInfo, numOrSizeSplits: number[] | number, axis: number): number[] };
}

interface TensorInfo {
  dataId: object;
  shape: number[];
  dtype: string;
}

/** The wasm backend's methods this kernel uses (BackendWasm in tfjs-backend-wasm). */
interface WasmBackend {
  makeOutput(shape: number[], dtype: string): TensorInfo;
  /** A view of a tensor's bytes in the wasm heap; taken after makeOutput, which may grow (and so detach) the heap. */
  typedArrayFromHeap(tensor: TensorInfo): Float32Array | Int32Array | Uint8Array;
}

interface KernelArgs {
  inputs: { x: TensorInfo };
  attrs: { numOrSizeSplits: number[] | number; axis: number | number[] };
  backend: WasmBackend;
}

interface KernelConfig {
  kernelName: string;
  backendName: string;
  kernelFunc: (args: KernelArgs) => TensorInfo | TensorInfo[];
  [other: string | symbol]: unknown;
}

const product = (dims: number[]) => dims.reduce((a, b) => a * b, 1);

/** The kernel: `original` still serves the dtypes whose bytes are not plain numbers in the heap. */
export function fastSplitV(tf: TfjsKernelApi, original: KernelConfig): KernelConfig {
  return {
    ...original,
    kernelFunc(args: KernelArgs) {
      const { inputs, attrs, backend } = args;
      const x = inputs.x;
      if (x.dtype !== "float32" && x.dtype !== "int32" && x.dtype !== "bool") return original.kernelFunc(args);
      const axis = tf.util.parseAxisParam(attrs.axis, x.shape)[0]!;
      const sizes = tf.backend_util.prepareSplitSize(x, attrs.numOrSizeSplits, axis);
      // x as [outer, along, inner]: each output takes `size` of the `along` rows of each outer block.
      const outer = product(x.shape.slice(0, axis));
      const inner = product(x.shape.slice(axis + 1));
      const along = x.shape[axis]!;
      let begin = 0;
      return sizes.map((size) => {
        const shape = [...x.shape];
        shape[axis] = size;
        const out = backend.makeOutput(shape, x.dtype);
        const from = backend.typedArrayFromHeap(x);
        const to = backend.typedArrayFromHeap(out);
        for (let o = 0; o < outer; o++) to.set(from.subarray((o * along + begin) * inner, (o * along + begin + size) * inner), o * size * inner);
        begin += size;
        return out;
      });
    },
  };
}

/** On the fast kernel: the backend's own, which it replaced. */
const ORIGINAL = Symbol.for("agent-tools.wasm-kernels.original");

/**
 * Put the fast kernel in place of the wasm backend's SplitV (the registry is global to the
 * thread), or with `fast` false put the backend's own back; a no-op when the backend has no such
 * kernel or the wanted one is in place already.
 */
export function useFastKernels(tf: TfjsKernelApi, fast: boolean): void {
  const current = tf.getKernel("SplitV", "wasm");
  if (!current) return;
  const original = (current[ORIGINAL] as KernelConfig | undefined) ?? current;
  if (fast === (current !== original)) return;
  tf.unregisterKernel("SplitV", "wasm");
  tf.registerKernel(fast ? { ...fastSplitV(tf, original), [ORIGINAL]: original } : original);
}
