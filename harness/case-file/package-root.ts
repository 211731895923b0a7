/**
 * The kit's root folder, where package.json and tests.yaml are. The harness runs from its sources
 * (harness/) in a checkout and from the build (dist/harness/) once installed, so the root is found
 * by walking up to the nearest package.json rather than by a fixed relative path.
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export function packageRootFrom(start: string): string {
  for (let dir = start; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) throw new Error(`no package.json in ${start} or any folder above it`);
  }
}

export const PACKAGE_ROOT = packageRootFrom(dirname(fileURLToPath(import.meta.url)));
