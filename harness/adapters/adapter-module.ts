/**
 * Loading the module named by `--adapter <file>` and finding its `createAdapter` export, whatever the
 * module's kind: TypeScript (`.ts`, `.mts`, `.cts`, `.tsx`) or JavaScript (`.js`, `.mjs`, `.cjs`), in
 * a project whose package.json says `"type": "module"` or not.
 */
import { extname } from 'node:path';
import { pathToFileURL } from 'node:url';
import { tsImport } from 'tsx/esm/api';

const TYPESCRIPT = new Set(['.ts', '.mts', '.cts', '.tsx']);

/**
 * Whether this module itself runs from TypeScript source (a checkout, under tsx or vitest): then the
 * runtime already loads TypeScript and a plain `import()` shares its module instances. From the build
 * Node has no TypeScript loader, so TypeScript adapters go through tsx's scoped `tsImport`, which also
 * handles a `.ts` file that its project makes CommonJS.
 */
const RUNS_FROM_SOURCE = import.meta.url.endsWith('.ts');

/** A module that threw (or did not compile) while loading: which file, the error's message and where it was thrown. */
export class AdapterModuleError extends Error {
  override readonly name = 'AdapterModuleError';
  constructor(
    readonly file: string,
    override readonly cause: unknown,
  ) {
    super(`the adapter module ${file} threw while loading: ${describeError(cause)}${stackLines(cause)}`);
  }
}

/** Stack frames shown for an error thrown at load: enough to find the line, not the loader's internals. */
const STACK_LINES = 4;

export async function importAdapterModule(file: string): Promise<unknown> {
  const url = pathToFileURL(file).href;
  try {
    if (TYPESCRIPT.has(extname(file).toLowerCase()) && !RUNS_FROM_SOURCE) return await tsImport(url, import.meta.url);
    return await import(url);
  } catch (error) {
    throw new AdapterModuleError(file, error);
  }
}

function describeError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const message = error.message.trim() || '(no message)';
  return error.name && error.name !== 'Error' ? `${error.name}: ${message}` : message;
}

/** The first frames of the error's stack that are not Node's or a loader's own, indented, one a line. */
function stackLines(error: unknown): string {
  const stack = error instanceof Error && typeof error.stack === 'string' ? error.stack : '';
  const frames = stack
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l.startsWith('at ') && !/\(node:|\bnode:internal|node_modules[\\/](tsx|esbuild)[\\/]/.test(l));
  // The frames from the import on are the kit's own, the same for every module.
  const own = frames.findIndex((f) => f.includes(importAdapterModule.name));
  return (own < 0 ? frames : frames.slice(0, own))
    .slice(0, STACK_LINES)
    .map((f) => `\n    ${f}`)
    .join('');
}


/**
 * The `createAdapter` function a loaded module exports, or undefined. A CommonJS module (or a `.ts`
 * file compiled as one) arrives as a namespace whose `default` is its `module.exports`; its named
 * exports are not always detected, so `default.createAdapter` counts too.
 */
export function createAdapterExport(mod: unknown): unknown {
  const direct = field(mod, 'createAdapter');
  if (typeof direct === 'function') return direct;
  const exported = field(mod, 'default') ?? field(mod, 'module.exports');
  return field(exported, 'createAdapter');
}

function field(value: unknown, key: string): unknown {
  return (typeof value === 'object' || typeof value === 'function') && value !== null ? (value as Record<string, unknown>)[key] : undefined;
}
