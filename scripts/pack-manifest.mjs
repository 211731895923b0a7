#!/usr/bin/env node
// `node scripts/pack-manifest.mjs trim|restore`, run by `prepack` and `postpack` (`npm pack`, `npm publish`).
//
// The scripts in package.json are for working on the kit (build, test, benches) and name files that are
// not shipped: scripts/, tsconfig.json, bench/, the sources. A packed package.json that keeps them would
// point a package manager or a reader at missing files (a tool that runs `prepare` on install would fail).
// So while the tarball is made, package.json has no `scripts`: `trim` keeps the file as it was beside it
// and writes the manifest without them; `restore` puts the kept file back, byte for byte.
//
// Robustness: every write is a rename, so a concurrent reader sees one whole manifest or the other (and
// both have the same name, version and exports). If a pack was interrupted between the two steps, the kept
// copy is still there: the next `trim` starts from it, and `node scripts/pack-manifest.mjs restore` puts
// it back.
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const manifest = join(root, 'package.json');
/** The working manifest while a pack runs (in .gitignore, and not in `files`, so never shipped). */
const kept = join(root, '.package.json.during-pack');

function writeAtomically(path, text) {
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, text);
  renameSync(temporary, path);
}

const step = process.argv[2];
if (step === 'trim') {
  // An earlier pack that never reached `restore` left the working manifest here: it is the true one.
  const text = existsSync(kept) ? readFileSync(kept, 'utf8') : readFileSync(manifest, 'utf8');
  if (!existsSync(kept)) writeAtomically(kept, text);
  const { scripts, ...packed } = JSON.parse(text);
  writeAtomically(manifest, `${JSON.stringify(packed, null, 2)}\n`);
  console.error(`pack-manifest: package.json without its ${Object.keys(scripts ?? {}).length} development scripts while packing`);
} else if (step === 'restore') {
  if (existsSync(kept)) renameSync(kept, manifest);
} else {
  console.error(`pack-manifest: expected 'trim' or 'restore' as the argument, got ${step === undefined ? 'nothing' : `'${step}'`}`);
  process.exit(2);
}
