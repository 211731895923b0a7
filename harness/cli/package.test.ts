/**
 * The kit as its users get it: packed with `npm pack` (which builds dist/ through `prepare`),
 * installed from the tarball into a fresh project without `"type": "module"` (so CommonJS), then the
 * CLI run with TypeScript adapters of both module kinds and the library API used from `.mjs` and `.cjs`
 * scripts, all from the installed package's JavaScript (no tsx registered by the kit, no sources).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { validate } from '../../schemas/loader.ts';
import { PACKAGE_ROOT } from '../case-file/package-root.ts';
import { hangBound } from '../testing/hang-bound.ts';

// Packing runs the build (tsc over the library, ~10 s idle) and the install resolves the runtime
// dependencies from npm's cache; on a loaded 2-core machine the two have taken several times that.
// The bound only keeps a stuck npm from hanging the suite; no verdict depends on it.
const SETUP_MS = hangBound(600_000);
// One CLI run or script: Node start-up, loading the built kit, a handful of cases (tsx compiles a
// TypeScript adapter first).
const STEP_MS = hangBound(180_000);
/** A few cases, among them code circles (the sandbox worker must load from dist/ too). */
const FILTER = 'LOOP-3';
/** The Python starting point docs/adapter-protocol.md names. */
const SKELETON = 'fixtures/adapters/python/cantrip_adapter_skeleton.py';
const python = spawnSync('python3', ['--version']).status === 0;

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** The environment without what `npm test` sets for its own scripts (npm_config_*, npm_package_*...). */
function cleanEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.toLowerCase().startsWith('npm_')));
}

function run(command: string, args: string[], cwd: string, timeout = STEP_MS): Promise<Run> {
  return new Promise((resolve) => {
    execFile(command, args, { cwd, env: cleanEnv(), timeout, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === 'number' ? error.code : -1;
      resolve({ code, stdout, stderr });
    });
  });
}

let work: string;
let project: string;
let packed: string[];
/** The package.json inside the tarball, as installed. */
let packedManifest: { scripts?: Record<string, string>; files?: string[]; peerDependencies?: Record<string, string>; peerDependenciesMeta?: Record<string, { optional?: boolean }> };
/** The checkout's package.json before packing: `prepack` trims it for the tarball and `postpack` puts it back. */
const manifestBeforePack = readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8');

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'cantrip-package-'));
  const pack = await run('npm', ['pack', '--json', '--pack-destination', work], PACKAGE_ROOT, SETUP_MS);
  expect(pack.code, pack.stderr).toBe(0);
  // npm prints the lifecycle scripts' output (the build) before the JSON.
  const [info] = JSON.parse(pack.stdout.slice(pack.stdout.search(/^\[/m))) as { filename: string; files: { path: string }[] }[];
  packed = info!.files.map((f) => f.path);

  project = join(work, 'project');
  mkdirSync(project);
  writeFileSync(join(project, 'package.json'), `${JSON.stringify({ name: 'an-implementation', version: '1.0.0', private: true }, null, 2)}\n`);
  const install = await run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', join(work, info!.filename)], project, SETUP_MS);
  expect(install.code, install.stderr).toBe(0);
  packedManifest = JSON.parse(readFileSync(join(project, 'node_modules', 'cantrip-conformance', 'package.json'), 'utf8')) as typeof packedManifest;

  writeFileSync(
    join(project, 'my-adapter.ts'),
    [
      "import type { Adapter } from 'cantrip-conformance/adapter';",
      "import { createReferenceAdapter } from 'cantrip-conformance/reference';",
      '',
      'export function createAdapter(): Adapter {',
      '  return createReferenceAdapter();',
      '}',
      '',
    ].join('\n'),
  );
  writeFileSync(join(project, 'my-adapter.cts'), "import { createReferenceAdapter } from 'cantrip-conformance/reference';\n\nexport const createAdapter = createReferenceAdapter;\n");
  writeFileSync(join(project, 'not-an-adapter.cts'), 'export const something = 1;\n');
}, SETUP_MS * 2);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

/** `npx cantrip-conformance run` in the project, as the README says. */
function cli(args: string[]): Promise<Run> {
  return run('npx', ['--no', 'cantrip-conformance', ...args], project);
}

describe('the packed kit', () => {
  // Here rather than in a file of its own: typedoc compiles the whole API (about 25 s idle), which this
  // file's build already pays for in kind. typedoc.json treats a warning as an error, so `npm run docs` fails too.
  it('builds the API documentation with no typedoc warning (every type the API refers to is exported, no link dangles)', async () => {
    // Without typedoc's own pass over the compiler's diagnostics (about half its work): a type error is
    // `npm test`'s typecheck step's finding (the same tsconfig.json), and what this test is for, the
    // warnings about the API's exports and links, typedoc reports either way.
    const docs = await run('npx', ['typedoc', '--emit', 'none', '--skipErrorChecking'], PACKAGE_ROOT, SETUP_MS);
    expect(`${docs.stdout}${docs.stderr}`).not.toMatch(/\[warning\]/);
    expect(docs.code, docs.stdout + docs.stderr).toBe(0);
  }, SETUP_MS);

  it('ships the build, the schemas, the rules and the cases, and no sources, tests, benches or CI scripts', () => {
    expect(packed).toEqual(expect.arrayContaining(['bin/cantrip-conformance.mjs', 'dist/harness/cli/cli.js', 'dist/harness/index.d.ts', 'dist/reference/index.js', 'schemas/report.schema.json', 'dist/spec/rules.yaml', 'tests.yaml', 'README.md']));
    // Of fixtures/, only what docs/adapter-protocol.md offers an implementer (below).
    const unwanted = packed.filter(
      (path) =>
        (path.endsWith('.ts') && !path.endsWith('.d.ts')) ||
        /^(bench|\.ci|harness|reference|scripts)\//.test(path) ||
        (path.startsWith('fixtures/') && path !== SKELETON && !/^fixtures\/schemas\/protocol\/[^/]+\/(valid|invalid)-[^/]+\.json$/.test(path)),
    );
    expect(unwanted).toEqual([]);
  });

  it('ships what docs/adapter-protocol.md gives an implementer in another language: the Python skeleton, the worked protocol examples, the stdio server; and the licence and changelog', () => {
    expect(packed).toEqual(expect.arrayContaining([SKELETON, 'dist/reference/adapter/stdio-server.js', 'dist/reference/adapter/stdio-server.d.ts', 'LICENSE', 'CHANGELOG.md']));
    // A valid worked example for every protocol schema (the envelope and each method), and every example shipped.
    const methods = readdirSync(join(PACKAGE_ROOT, 'schemas', 'protocol'))
      .filter((file) => file.endsWith('.schema.json'))
      .map((file) => file.slice(0, -'.schema.json'.length));
    const withoutExample = methods.filter((method) => !packed.some((path) => path.startsWith(`fixtures/schemas/protocol/${method}/valid-`)));
    expect(withoutExample).toEqual([]);
    const shippedExamples = packed.filter((path) => path.startsWith('fixtures/schemas/protocol/'));
    const sourceExamples = methods.flatMap((method) => readdirSync(join(PACKAGE_ROOT, 'fixtures', 'schemas', 'protocol', method)).filter((file) => /^(valid|invalid)-.*\.json$/.test(file)).map((file) => `fixtures/schemas/protocol/${method}/${file}`));
    expect(shippedExamples.sort()).toEqual(sourceExamples.sort());
    // What the listing shows, for the record.
    console.log(packed.filter((path) => path === SKELETON || path.includes('stdio-server') || path === 'LICENSE' || path === 'CHANGELOG.md' || path.startsWith('fixtures/schemas/protocol/cast/')).sort().join('\n'));
  });

  it('has no script in the packed package.json (they name files that are not shipped), and the checkout keeps its own', () => {
    expect(packedManifest.scripts).toBeUndefined();
    expect(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')).toBe(manifestBeforePack);
    expect(existsSync(join(PACKAGE_ROOT, '.package.json.during-pack'))).toBe(false);
    expect(JSON.parse(manifestBeforePack).scripts.prepare).toBeDefined();
  });

  it('declares @types/node, which the declarations use, as an optional peer dependency', () => {
    expect(packedManifest.peerDependencies?.['@types/node']).toBeDefined();
    expect(packedManifest.peerDependenciesMeta?.['@types/node']).toEqual({ optional: true });
  });

  it('runs a TypeScript adapter (.ts) in a CommonJS project and writes a report that validates', async () => {
    const out = join(project, 'reports-ts');
    const result = await cli(['run', '--adapter', './my-adapter.ts', '--no-properties', '--filter', FILTER, '--out', out]);
    expect(result.code, result.stderr + result.stdout).toBe(0);
    const report = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')) as { summary: { total: number; pass: number } };
    expect(validate('report', report)).toEqual({ ok: true });
    expect(report.summary.total).toBeGreaterThan(0);
    expect(report.summary.pass).toBe(report.summary.total);
  }, STEP_MS);

  it('runs the shipped stdio server as a cmd: adapter, by the path docs/adapter-protocol.md gives', async () => {
    const result = await cli(['run', '--adapter', 'cmd:node node_modules/cantrip-conformance/dist/reference/adapter/stdio-server.js', '--no-properties', '--filter', FILTER, '--no-out']);
    expect(result.code, result.stderr + result.stdout).toBe(0);
  }, STEP_MS);

  it.runIf(python)('runs the shipped Python skeleton as a cmd: adapter', async () => {
    const result = await cli(['run', '--adapter', `cmd:python3 node_modules/cantrip-conformance/${SKELETON}`, '--no-properties', '--filter', 'LOOP-3', '--no-out']);
    expect(result.code, result.stderr + result.stdout).toBe(0);
  }, STEP_MS);

  it('runs a .cts adapter, and exits 2 for a module that exports no createAdapter', async () => {
    const result = await cli(['run', '--adapter', './my-adapter.cts', '--no-properties', '--filter', FILTER]);
    expect(result.code, result.stderr + result.stdout).toBe(0);
    const bad = await cli(['run', '--adapter', './not-an-adapter.cts', '--no-properties', '--filter', FILTER]);
    expect(bad.code, bad.stderr + bad.stdout).toBe(2);
  }, STEP_MS * 2);

  it('serves the library API to import (.mjs) and to require (.cjs): load the cases, run a suite, build a report', async () => {
    const body = (load: string): string =>
      [
        load,
        "const file = loadCaseFile(casesPath, 'tests.yaml');",
        `const suite = await runSuite(file, () => createReferenceAdapter(), { filter: ['${FILTER}'] });`,
        `const report = buildReport(suite, { filter: ['${FILTER}'] });`,
        'console.log(JSON.stringify({ total: report.summary.total, pass: report.summary.pass, exit: exitCode(report) }));',
      ].join('\n');
    writeFileSync(
      join(project, 'api.mjs'),
      body(
        [
          "import { fileURLToPath } from 'node:url';",
          "import { buildReport, exitCode, loadCaseFile, runSuite } from 'cantrip-conformance';",
          "import { createReferenceAdapter } from 'cantrip-conformance/reference';",
          "const casesPath = fileURLToPath(import.meta.resolve('cantrip-conformance/tests.yaml'));",
        ].join('\n'),
      ),
    );
    // require() of the kit's ES modules needs Node >= 20.19 (require(esm)); the main wraps the awaits.
    writeFileSync(
      join(project, 'api.cjs'),
      [
        "const { buildReport, exitCode, loadCaseFile, runSuite } = require('cantrip-conformance');",
        "const { createReferenceAdapter } = require('cantrip-conformance/reference');",
        "const casesPath = require.resolve('cantrip-conformance/tests.yaml');",
        'async function main() {',
        body(''),
        '}',
        'main();',
      ].join('\n'),
    );
    for (const script of ['api.mjs', 'api.cjs']) {
      const result = await run(process.execPath, [script], project);
      expect(result.code, `${script}: ${result.stderr}`).toBe(0);
      const summary = JSON.parse(result.stdout.trim().split('\n').at(-1)!) as { total: number; pass: number; exit: number };
      expect(summary.total, script).toBeGreaterThan(0);
      expect(summary, script).toEqual({ total: summary.total, pass: summary.total, exit: 0 });
    }
  }, STEP_MS * 2);

  it("type-checks a consumer's adapter against the shipped declarations (no kit sources are compiled)", async () => {
    writeFileSync(
      join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          module: 'nodenext',
          moduleResolution: 'nodenext',
          target: 'es2022',
          strict: true,
          noEmit: true,
          skipLibCheck: false,
          // The declarations name Node's types; a consumer has @types/node, this project borrows the kit's.
          typeRoots: [join(PACKAGE_ROOT, 'node_modules', '@types')],
          types: ['node'],
          listFiles: true,
        },
        files: ['my-adapter.ts'],
      }),
    );
    const tsc = await run(process.execPath, [join(PACKAGE_ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json'], project);
    expect(tsc.code, tsc.stdout).toBe(0);
    const kitFiles = tsc.stdout.split('\n').filter((line) => line.includes('/node_modules/cantrip-conformance/'));
    expect(kitFiles.length).toBeGreaterThan(0);
    expect(kitFiles.filter((file) => !file.endsWith('.d.ts'))).toEqual([]);
  }, STEP_MS);

  it('needs @types/node, as the README says: without it the shipped declarations themselves do not type-check', async () => {
    writeFileSync(
      join(project, 'tsconfig.no-node.json'),
      JSON.stringify({
        compilerOptions: { module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', strict: true, noEmit: true, skipLibCheck: false, typeRoots: [], types: [] },
        files: ['my-adapter.ts'],
      }),
    );
    const tsc = await run(process.execPath, [join(PACKAGE_ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.no-node.json'], project);
    expect(tsc.code).not.toBe(0);
    // The errors are in installed declarations (the kit's, and those of its dependencies, which need Node's
    // types too), never in the consumer's own file, and the kit's own are among them.
    const errorFiles = [...new Set(tsc.stdout.split('\n').filter((line) => /\): error TS\d+/.test(line)).map((line) => line.slice(0, line.indexOf('(')).replaceAll('\\', '/')))];
    expect(errorFiles.filter((file) => !(file.startsWith('node_modules/') && file.endsWith('.d.ts')))).toEqual([]);
    expect(errorFiles.filter((file) => file.startsWith('node_modules/cantrip-conformance/dist/')).length, tsc.stdout).toBeGreaterThan(0);
  }, STEP_MS);
});
