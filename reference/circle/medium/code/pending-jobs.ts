import type { QuickJSAsyncContext, QuickJSAsyncRuntime, QuickJSAsyncWASMModule, QuickJSHandle } from 'quickjs-emscripten';

/** Runs the runtime's queued promise jobs; resolves to false when a job ended with an exception. */
export type JobRunner = () => Promise<boolean>;

/**
 * Why this module exists: quickjs-emscripten 0.32 only exposes a synchronous `executePendingJobs`.
 * A promise job that calls an asyncified gate (e.g. `await null; read(...)`) then suspends the wasm
 * stack under a synchronous caller and corrupts the module. The C export behind it can itself be
 * called asynchronously, so we wrap it with Emscripten's `cwrap(..., {async: true})`, exactly as the
 * library wraps `QTS_Eval` for `evalCodeAsync`. This reaches into non-public fields, pinned to 0.32
 * (package.json `^0.32.0`); {@link createJobRunner} checks each one and fails loudly if they move.
 * (CIRCLE-3: gates stay synchronous inside async functions too.)
 */
export function createJobRunner(
  module: QuickJSAsyncWASMModule,
  runtime: QuickJSAsyncRuntime,
  context: QuickJSAsyncContext,
): JobRunner {
  const em = (module as unknown as { module?: EmscriptenLike }).module;
  const rtPointer = (runtime as unknown as { rt?: { value: number } }).rt?.value;
  const ffi = (runtime as unknown as { ffi?: FfiLike }).ffi;
  const memoryOf = (context as unknown as { getMemory?: (rt: number) => MemoryLike }).getMemory;
  if (
    !em || typeof em.cwrap !== 'function' || typeof em._malloc !== 'function' || !(em.HEAPU8 instanceof Uint8Array) ||
    typeof rtPointer !== 'number' || !ffi || typeof ffi.QTS_FreeValuePointerRuntime !== 'function' ||
    typeof memoryOf !== 'function'
  ) {
    throw new Error('quickjs-emscripten internals changed: cannot run promise jobs asynchronously (expected 0.32)');
  }
  const execute = em.cwrap('QTS_ExecutePendingJob', 'number', ['number', 'number', 'number'], { async: true }) as (
    rt: number, max: number, ctxOut: number,
  ) => Promise<number> | number;

  return async () => {
    const ctxOut = em._malloc(4);
    try {
      const valuePointer = await execute(rtPointer, -1, ctxOut);
      // HEAPU8 may be replaced when memory grows, so read it after the call.
      const ctxPointer = new DataView(em.HEAPU8.buffer).getUint32(ctxOut, true);
      if (ctxPointer === 0) {
        ffi.QTS_FreeValuePointerRuntime(rtPointer, valuePointer);
        return true;
      }
      const handle = memoryOf.call(context, rtPointer).heapValueHandle(valuePointer);
      const ok = context.typeof(handle) === 'number';
      handle.dispose();
      return ok;
    } finally {
      em._free(ctxOut);
    }
  };
}

interface EmscriptenLike {
  cwrap: (name: string, ret: string, args: string[], opts: { async: boolean }) => unknown;
  _malloc: (bytes: number) => number;
  _free: (pointer: number) => void;
  HEAPU8: Uint8Array;
}
interface FfiLike {
  QTS_FreeValuePointerRuntime: (rt: number, value: number) => void;
}
interface MemoryLike {
  heapValueHandle: (pointer: number) => QuickJSHandle;
}
