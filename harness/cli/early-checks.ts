/**
 * What the command checks before the first case runs, so a mistake costs an exit 2 with a message that
 * says what to fix, not a stack trace or a whole run whose report cannot be written.
 */
import { checkOutputFolder, OutputFolderError } from '../report/index.ts';
import type { Adapter } from '../../schemas/adapter.ts';
import type { AdapterFactory } from '../run/index.ts';
import { stretchedForLoad } from '../values/index.ts';

/** A problem found before the run; the command prints the message and exits 2. */
export class EarlyCheckError extends Error {
  override readonly name = 'EarlyCheckError';
}

/** The methods every case calls; an object without them is not an adapter (schemas/adapter.ts). */
const CORE_METHODS = ['describe', 'construct', 'cast', 'dispose'] as const;
/** Bound on disposing the instance made to check the factory. */
const PROBE_DISPOSE_MS = 2_000;

/**
 * Calls a module's `createAdapter()` once and checks that what it gives is an adapter; disposes that
 * instance (each case makes its own). Throws {@link EarlyCheckError} when it throws, rejects, or returns
 * something else.
 */
export async function checkAdapterFactory(create: AdapterFactory, module: string): Promise<void> {
  let made: unknown;
  try {
    made = await create();
  } catch (error) {
    throw new EarlyCheckError(`${module}: createAdapter() threw ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`);
  }
  const missing = CORE_METHODS.filter((m) => typeof (made as Record<string, unknown> | null)?.[m] !== 'function');
  if (missing.length > 0) {
    throw new EarlyCheckError(`${module}: createAdapter() returned ${shape(made)}, not an adapter (no ${missing.map((m) => `${m}()`).join(', ')}; see schemas/adapter.ts)`);
  }
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise((resolve) => (timer = setTimeout(resolve, stretchedForLoad(PROBE_DISPOSE_MS))));
  await Promise.race([(made as Adapter).dispose().catch(() => undefined), limit]).finally(() => clearTimeout(timer));
}

/**
 * Checks, before the run starts, that the report folder can hold files (harness/report/write-files.ts):
 * a path that cannot (a file, /proc, a read-only place) is refused at once, and a folder the check had
 * to make is removed again, so a run that never starts leaves no empty folder.
 */
export function checkOutDir(dir: string): void {
  try {
    checkOutputFolder(dir);
  } catch (error) {
    throw new EarlyCheckError(error instanceof OutputFolderError ? error.message : `cannot write the report to ${dir}: ${(error as Error).message}`);
  }
}

/** A few words on what a value is, for a message. */
function shape(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return `an object with keys [${Object.keys(value).slice(0, 8).join(', ')}]`;
  return typeof value === 'undefined' ? 'undefined' : `a ${typeof value} (${String(value).slice(0, 40)})`;
}
