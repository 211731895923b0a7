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

export async function importAdapterModule(file: string): Promise<unknown> {
  const url = pathToFileURL(file).href;
  if (TYPESCRIPT.has(extname(file).toLowerCase()) && !RUNS_FROM_SOURCE) return tsImport(url, import.meta.url);
  return import(url);
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
