// Entry of a sandbox worker thread. From the build (dist/, where scripts/build.mjs copies this file)
// the compiled worker.js is beside it and loads as plain JavaScript. From the sources, Node 20 cannot
// load TypeScript by itself and a worker does not inherit a loader registered through the API (as
// bin/cantrip-conformance.mjs does), so the worker registers tsx itself and then loads the TypeScript
// worker module. Works the same under vitest.
import { existsSync } from 'node:fs';

const built = new URL('./worker.js', import.meta.url);
if (existsSync(built)) {
  await import(built.href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('./worker.ts');
}
