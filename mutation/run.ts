/**
 * Mutation testing of the reference under the conformance suite (issue 30, docs/mutation.md):
 *
 *     npm run mutation -- <folder or file of reference/> [more ...] [--concurrency N] [--property-runs N] [--static]
 *
 * mutates the rule-bearing code under the folders (every .ts file but tests and index.ts re-exports) and files,
 * tests each mutant with the conformance cases and properties only (mutation/vitest.config.ts), and
 * writes the HTML and JSON reports and the incremental file to reports/mutation/<folder>/ (git-ignored;
 * several targets: their names joined with '+'),
 * so a rerun after a change tests only the mutants the change touched.
 */
import { existsSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { Stryker } from '@stryker-mutator/core';

const USAGE = 'usage: npm run mutation -- <folder or file of reference/, e.g. loom or reference/circle/medium> [more ...] [--concurrency N] [--property-runs N] [--static]';
const ROOT = resolve(import.meta.dirname, '..');
// Stryker reads its paths from the working directory.
process.chdir(ROOT);
const REFERENCE = join(ROOT, 'reference');

function fail(message: string): never {
  console.error(`mutation: ${message}\n${USAGE}`);
  process.exit(2);
}

function wholeNumber(option: string, text: string | undefined, fallback: number, least: number): number {
  if (text === undefined) return fallback;
  const value = Number(text);
  if (!Number.isInteger(value) || value < least) fail(`--${option} must be a whole number >= ${least}, got '${text}'`);
  return value;
}

const { values, positionals } = (() => {
  try {
    return parseArgs({
      allowPositionals: true,
      options: {
        concurrency: { type: 'string' },
        'property-runs': { type: 'string' },
        static: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
    });
  } catch (error) {
    fail((error as Error).message);
  }
})();
if (values.help) {
  console.log(USAGE);
  process.exit(0);
}
if (positionals.length === 0) fail('give at least one folder or file of reference/');

/** `loom`, `reference/loom` and an absolute path all name the same folder; its globs, or the file. */
function globsOf(given: string): { inRepo: string; mutate: string[] } {
  const trimmed = given.replace(/\/+$/, '');
  const target = [resolve(ROOT, trimmed), join(REFERENCE, trimmed)].find((path) => existsSync(path) && !relative(REFERENCE, path).startsWith('..'));
  if (target === undefined) fail(`'${given}' is no folder or file inside reference/`);
  const inRepo = relative(ROOT, target).split('\\').join('/');
  if (statSync(target).isDirectory()) return { inRepo, mutate: [`${inRepo}/**/*.ts`, `!${inRepo}/**/*.test.ts`, `!${inRepo}/**/index.ts`] };
  if (!inRepo.endsWith('.ts') || inRepo.endsWith('.test.ts')) fail(`'${given}' is not a source file of reference/`);
  return { inRepo, mutate: [inRepo] };
}
const targets = positionals.map(globsOf);
// Positive globs first: Stryker applies a `!` glob to what the globs before it matched.
const mutate = [...targets.flatMap((t) => t.mutate.filter((g) => !g.startsWith('!'))), ...targets.flatMap((t) => t.mutate.filter((g) => g.startsWith('!')))];
const inRepo = targets.map((t) => t.inRepo).join(' ');

const concurrency = wholeNumber('concurrency', values.concurrency, 1, 1);
const propertyRuns = wholeNumber('property-runs', values['property-runs'], 10, 0);
// Read by mutation/conformance-entry.ts in every test process Stryker starts.
process.env.MUTATION_PROPERTY_RUNS = String(propertyRuns);

const out = join('reports', 'mutation', targets.map((t) => t.inRepo.replace(/^reference\/?/, '').split('/').join('-') || 'reference').join('+'));
const started = Date.now();
const results = await new Stryker({
  configFile: join('mutation', 'stryker.config.json'),
  mutate,
  concurrency,
  ignoreStatic: !values.static,
  incrementalFile: join(out, 'incremental.json'),
  htmlReporter: { fileName: join(out, 'mutation.html') },
  jsonReporter: { fileName: join(out, 'mutation.json') },
}).runMutationTest();

const count = (status: string): number => results.filter((mutant) => mutant.status === status).length;
const minutes = ((Date.now() - started) / 60_000).toFixed(1);
console.log(
  `mutation ${inRepo}: ${results.length} mutants, killed ${count('Killed')}, survived ${count('Survived')}, timed out ${count('Timeout')}, ` +
    `no coverage ${count('NoCoverage')}, ignored ${count('Ignored')}, errors ${count('RuntimeError') + count('CompileError')}; ${minutes} min; report ${join(out, 'mutation.html')}`,
);
