/**
 * Finding `createAdapter` in a loaded `--adapter` module, whatever shape its module kind gives the
 * namespace (the packed kit's own test, harness/cli/package.test.ts, loads real .ts and .cts files).
 */
import { describe, expect, it } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createAdapterExport, importAdapterModule } from './adapter-module.ts';

const create = (): void => undefined;

describe('createAdapterExport', () => {
  it('takes a named export, or the one on a CommonJS module.exports (default)', () => {
    expect(createAdapterExport({ createAdapter: create })).toBe(create);
    expect(createAdapterExport({ default: { createAdapter: create } })).toBe(create);
    expect(createAdapterExport({ 'module.exports': { createAdapter: create } })).toBe(create);
  });

  it('finds nothing in a module without one', () => {
    expect(createAdapterExport({ createAdapter: 1 })).toBeUndefined();
    expect(createAdapterExport({ something: create })).toBeUndefined();
    expect(createAdapterExport({ default: create })).toBeUndefined();
    expect(createAdapterExport(undefined)).toBeUndefined();
  });
});

describe('importAdapterModule', () => {
  it('loads CommonJS and ES module JavaScript files', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cantrip-adapter-module-'));
    writeFileSync(join(dir, 'a.cjs'), 'module.exports = { createAdapter() { return "cjs"; } };\n');
    writeFileSync(join(dir, 'b.mjs'), 'export function createAdapter() { return "mjs"; }\n');
    for (const [file, made] of [['a.cjs', 'cjs'], ['b.mjs', 'mjs']] as const) {
      const found = createAdapterExport(await importAdapterModule(join(dir, file)));
      expect(typeof found === 'function' && (found as () => string)()).toBe(made);
    }
  });
});
