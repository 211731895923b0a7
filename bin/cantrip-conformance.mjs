#!/usr/bin/env node
// In a checkout (the TypeScript sources are here) the CLI runs from them through tsx's loader, so
// what runs is always what was just edited; an installed package has only the build (dist/, made by
// `npm run build`) and runs it as plain JavaScript.
import { existsSync } from 'node:fs';

const source = new URL('../harness/cli/cli.ts', import.meta.url);
if (existsSync(source)) {
  const { register } = await import('tsx/esm/api');
  register();
  await import(source.href);
} else {
  await import(new URL('../dist/harness/cli/cli.js', import.meta.url).href);
}
