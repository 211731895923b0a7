#!/usr/bin/env node
// `npm run build` (also `prepare` and `prepack`: `npm install`, `npm ci`, `npm pack`): compiles the
// library with tsconfig.build.json into dist/ and copies beside the output the files the code reads
// at run time through `new URL('./...', import.meta.url)`, so dist/ mirrors the source layout and
// those paths resolve from either. Package-level files (package.json, tests.yaml) are found from the
// package root instead (harness/case-file/package-root.ts).
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');
// Built in a fresh folder and swapped in at the end, so a concurrent reader (or a failed build)
// never sees a half-written dist/ with stale files from an earlier layout.
const staging = join(root, `dist.building-${process.pid}`);

/** Run-time files, relative to the package root: JSON Schemas, the draft registry and rule catalogs, the sandbox worker's boot file. */
const ASSETS = [
  ...listed('schemas', (f) => f.endsWith('.schema.json')),
  ...listed('schemas/protocol', (f) => f.endsWith('.schema.json')),
  'spec/drafts.yaml',
  ...listed('spec', (f) => /^rules.*\.yaml$/.test(f)),
  'reference/circle/medium/code/worker-boot.mjs',
];

function listed(dir, keep) {
  return readdirSync(join(root, dir)).filter(keep).map((file) => `${dir}/${file}`);
}

// `npm pack` and `npm publish` run prepack and then prepare; prepack has just built (other package
// managers run only one of the two, so both are declared).
const { npm_lifecycle_event: event, npm_command: command } = process.env;
if (event === 'prepare' && (command === 'pack' || command === 'publish')) process.exit(0);

const started = performance.now();
rmSync(staging, { recursive: true, force: true });
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const result = spawnSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json'), '--outDir', staging], { stdio: 'inherit' });
if (result.status !== 0) {
  rmSync(staging, { recursive: true, force: true });
  console.error(`build: tsc failed (exit ${result.status ?? result.signal})`);
  process.exit(1);
}
for (const asset of ASSETS) {
  mkdirSync(dirname(join(staging, asset)), { recursive: true });
  cpSync(join(root, asset), join(staging, asset));
}
rmSync(dist, { recursive: true, force: true });
renameSync(staging, dist);
console.error(`build: ${relative(process.cwd(), dist) || '.'} in ${Math.round(performance.now() - started)} ms`);
