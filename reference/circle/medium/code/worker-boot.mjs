// Entry of a sandbox worker thread. Node 20 cannot load TypeScript by itself and a worker does not
// inherit a loader registered through the API (as bin/cantrip-conformance.mjs does), so the worker
// registers tsx itself and then loads the TypeScript worker module. Works the same under vitest.
import { register } from 'tsx/esm/api';

register();
await import('./worker.ts');
