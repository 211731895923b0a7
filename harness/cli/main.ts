/**
 * `cantrip-conformance run [--adapter reference|<module>|cmd:<command line>] [--filter <rule|id|feature>] [--out <dir>]
 * [--expected-failures <file>] [--cases <tests.yaml>] [--timeout <ms>] [--jobs <n>] [--no-properties] [--property-runs <n>] [--seed <n>] [--quiet]`.
 * Progress goes to stderr: one rewritten line on a terminal, otherwise one line per case and property (docs/ci.md).
 * The generated properties (harness/properties) run after the cases unless `--no-properties`.
 * Exit 0: every applicable MUST case passed (or is an expected failure) and nothing is stale;
 * 1: a MUST case or property failed, or an expected failure is stale; 3: none failed, but a MUST case or
 * property errored (incomplete, report.ts `exitCode`); 2: bad usage, or a case file / adapter / list /
 * report directory that does not check out (all checked before the first case); 130 / 143: interrupted
 * by SIGINT / SIGTERM (what did not finish is errored in the partial report, whose verdict is incomplete). Reports go to --out, by default `cantrip-report/` in the working
 * directory; `--no-out` writes none. Every implementation process
 * (and its process group) is ended before main returns.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { isAbsolute, join, relative, resolve } from 'node:path';
import type { Adapter, CrystalTransport } from '../../schemas/adapter.ts';
import { CRYSTAL_TRANSPORTS } from '../../schemas/adapter.ts';
import { writeReportOutputs } from '../report/index.ts';
import { DIFF_USAGE, MATRIX_USAGE, runDiff, runMatrix } from './compare.ts';
import { CRYSTAL_SERVER_USAGE, runCrystalServer } from './crystal-server-command.ts';
import { selects } from '../plan/index.ts';
import { DEFAULT_CASE_TIMEOUT_MS } from '../run/index.ts';
import { stopAllImplementations } from '../adapters/index.ts';
import { isCommandSpec } from '../adapters/index.ts';
import { createAdapterExport, importAdapterModule } from '../adapters/index.ts';
import { startCommandAdapter } from '../adapters/index.ts';
import { checkAdapterFactory, checkOutDir, EarlyCheckError } from './early-checks.ts';
import { loadExpectedFailures } from '../case-file/index.ts';
import { ALL_PROPERTY_IDS, PROPERTY_FAMILIES_AT_ONCE, DEFAULT_CODE_PROPERTY_RUNS, DEFAULT_PROPERTY_RUNS, randomSeed, runProperties } from '../properties/index.ts';
import { CaseFileError, loadCaseFile } from '../case-file/index.ts';
import { assertReportValid, buildReport, exitCode } from '../report/index.ts';
import { caseSummaryLines, propertyLines, renderMarkdown, verdictLines } from '../report/index.ts';
import { runSuite, type AdapterFactory } from '../run/index.ts';

import type { CliIo } from './io.ts';
import { PACKAGE_ROOT } from '../case-file/index.ts';

export { PACKAGE_ROOT };
export type { CliIo };
/** The kit's version, from its package.json. */
const PACKAGE_VERSION = (JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { version: string }).version;

/** Grace given to implementation processes at the end of a run, per step (stdin closed, SIGTERM, SIGKILL). */
const STOP_GRACE_MS = 600;
/** Exit codes for an interrupted run, as a shell reports a process ended by the signal. */
const INTERRUPTED_EXIT: Record<string, number> = { SIGINT: 130, SIGTERM: 143 };
/**
 * Default `--jobs` for the in-process reference, whose instances share nothing. Other adapters get 1:
 * an implementer's adapter may not tolerate several instances at once (a fixed port or file).
 */
const REFERENCE_JOBS = 12;

/** Where reports go when `--out` is not given, relative to the working directory (a CI job's workspace). */
const DEFAULT_OUT = 'cantrip-report';

const USAGE = `usage: cantrip-conformance run [--adapter reference|<module path>|'cmd:<command line>'] [--filter <rule|id|feature>]...
                                [--out <dir> | --no-out] [--expected-failures <file>] [--cases <tests.yaml>] [--timeout <ms>] [--jobs <n>]
                                [--no-properties] [--property-runs <n>] [--seed <n>] [--quiet]
                                [--crystal-transport callback|openai|openai-stream|anthropic|anthropic-stream|gemini|gemini-stream]`;

interface Options {
  adapter: string;
  filter: string[];
  out?: string;
  expectedFailures?: string;
  cases: string;
  timeoutMs?: number;
  /** Most cases at once; absent: {@link REFERENCE_JOBS} for the reference, else 1. */
  jobs?: number;
  /** Run the generated properties after the cases (default true). */
  properties: boolean;
  /** Runs per property; absent: each family's own default. */
  propertyRuns?: number;
  seed?: number;
  /** How the scripted crystals reach the implementation (default callback). */
  crystalTransport?: CrystalTransport;
  /** No progress output (the summary is still printed). */
  quiet: boolean;
}

class UsageError extends Error {}

function parseArgs(argv: string[]): Options {
  const [command, ...rest] = argv;
  if (command !== 'run') throw new UsageError(command === undefined ? 'missing command' : `unknown command '${command}'`);
  const options: Options = { adapter: 'reference', filter: [], cases: join(PACKAGE_ROOT, 'tests.yaml'), properties: true, quiet: false, out: DEFAULT_OUT };
  for (let i = 0; i < rest.length; i++) {
    const flag = rest[i]!;
    if (flag === '--no-properties') {
      options.properties = false;
      continue;
    }
    if (flag === '--no-out') {
      options.out = undefined;
      continue;
    }
    if (flag === '--quiet' || flag === '-q') {
      options.quiet = true;
      continue;
    }
    const value = rest[i + 1];
    if (value === undefined || value.startsWith('--')) throw new UsageError(`${flag} needs a value`);
    i++;
    switch (flag) {
      case '--adapter': options.adapter = value; break;
      case '--filter': options.filter.push(...value.split(',').filter(Boolean)); break;
      case '--out': options.out = value; break;
      case '--expected-failures': options.expectedFailures = value; break;
      case '--cases': options.cases = value; break;
      case '--timeout': {
        const ms = Number(value);
        if (!Number.isInteger(ms) || ms <= 0) throw new UsageError(`--timeout needs a positive integer, got '${value}'`);
        options.timeoutMs = ms;
        break;
      }
      case '--jobs': {
        const n = Number(value);
        if (!Number.isInteger(n) || n < 1 || n > 64) throw new UsageError(`--jobs needs an integer from 1 to 64, got '${value}'`);
        options.jobs = n;
        break;
      }
      case '--crystal-transport': {
        if (!(CRYSTAL_TRANSPORTS as readonly string[]).includes(value)) throw new UsageError(`--crystal-transport is one of ${CRYSTAL_TRANSPORTS.join(', ')}, got '${value}'`);
        options.crystalTransport = value as CrystalTransport;
        break;
      }
      case '--property-runs':
      case '--seed': {
        const n = Number(value);
        const min = flag === '--seed' ? 0 : 1;
        if (!Number.isInteger(n) || n < min || n > 0x7fffffff) throw new UsageError(`${flag} needs an integer from ${min} to ${0x7fffffff}, got '${value}'`);
        if (flag === '--seed') options.seed = n;
        else options.propertyRuns = n;
        break;
      }
      default: throw new UsageError(`unknown option '${flag}'`);
    }
  }
  return options;
}

/** `reference`, a module exporting `createAdapter(): Adapter`, or `cmd:<command line>` (docs/adapter-protocol.md). */
export async function adapterFactory(spec: string, cwd: string): Promise<AdapterFactory> {
  if (isCommandSpec(spec)) return startCommandAdapter(spec, { cwd });
  if (spec === 'reference') {
    // The reference's adapter module is the one part of reference/ the harness may import.
    const mod = (await import('../../reference/adapter/index.ts')) as { createReferenceAdapter: () => Adapter };
    return () => mod.createReferenceAdapter();
  }
  const file = isAbsolute(spec) ? spec : resolve(cwd, spec);
  const create = createAdapterExport(await importAdapterModule(file));
  if (typeof create !== 'function') throw new UsageError(`${file} does not export createAdapter()`);
  await checkAdapterFactory(create as AdapterFactory, file);
  return create as AdapterFactory;
}

/** What `--help` prints: the commands, then `run`'s options with their defaults. */
const HELP = `cantrip-conformance: the Cantrip conformance suite (tests.yaml and generated properties) against an implementation.

commands:
  run      run the suite and write reports          (cantrip-conformance run --help)
  diff     compare two report.json files            (${DIFF_USAGE.replace('usage: ', '')})
  matrix   rule-by-implementation table of reports  (${MATRIX_USAGE.replace('usage: ', '')})
  crystal-server  serve one case's crystals over HTTP to debug a provider by hand
           (${CRYSTAL_SERVER_USAGE.replace('usage: ', '')})

run options (defaults in brackets):
  --adapter <spec>           reference | a module exporting createAdapter() | 'cmd:<command line>' [reference]
  --filter <term>            a case id, rule id, rule family (LOOP) or feature; repeatable [every case]
  --out <dir>                where report.json, report.md, junit.xml, report.html, summary.md, badge.json go [${DEFAULT_OUT}]
  --no-out                   write no report, only the summary on stdout
  --expected-failures <file> case ids expected to fail, one a line; stale entries fail the run [none]
  --cases <file>             the case file [the kit's tests.yaml]
  --timeout <ms>             per case [${DEFAULT_CASE_TIMEOUT_MS}]
  --jobs <n>                 most cases at once; only cases that script a wait run alongside others,
                             each on its own adapter instance; above 1 two property families also
                             overlap; 1: one after another [${REFERENCE_JOBS} for reference, else 1]
  --no-properties            skip the generated properties [run them]
  --property-runs <n>        scenarios per property [${DEFAULT_PROPERTY_RUNS}; code scenarios ${DEFAULT_CODE_PROPERTY_RUNS}]
  --seed <n>                 the properties' seed [random, printed]
  --crystal-transport <t>    ${CRYSTAL_TRANSPORTS.join(' | ')} [callback]
  --quiet, -q                no progress (a rewritten line on a terminal, one line per case and property otherwise) [progress on]

exit codes: 0 every applicable MUST case and property passes; 1 a MUST case or property fails (or an
  expected failure is stale); 3 incomplete: none fails, but a MUST case or property errored (an adapter
  that threw, a time limit); 2 bad usage or input; 130/143 interrupted (SIGINT/SIGTERM).`;

export async function main(argv: string[], io: CliIo): Promise<number> {
  const [command, ...rest] = argv;
  if (command === '--version' || command === '-V') {
    io.out(PACKAGE_VERSION);
    return 0;
  }
  if (command === '--help' || command === '-h' || command === 'help' || (command === 'run' && (rest.includes('--help') || rest.includes('-h')))) {
    io.out(HELP);
    return 0;
  }
  if (command === 'diff') return runDiff(rest, io);
  if (command === 'matrix') return runMatrix(rest, io);
  if (command === 'crystal-server') return runCrystalServer(rest, io, PACKAGE_ROOT);
  // Ending the implementations' processes makes whatever waits on them give up at once.
  const onInterrupt = (): void => void stopAllImplementations(STOP_GRACE_MS);
  io.interrupt?.addEventListener('abort', onInterrupt, { once: true });
  try {
    return await mainRun(argv, io);
  } finally {
    io.interrupt?.removeEventListener('abort', onInterrupt);
    await stopAllImplementations(STOP_GRACE_MS);
  }
}

/** The exit code of an interrupted run, or undefined when the run was not interrupted. */
function interruptedExit(io: CliIo): number | undefined {
  return io.interrupt?.aborted ? (INTERRUPTED_EXIT[String(io.interrupt.reason)] ?? 130) : undefined;
}

/** Progress for one finished case or property: the rewritten terminal line, or else one log line (format in docs/ci.md). */
function showProgress(io: CliIo, kind: 'case' | 'property', status: string, id: string, done: number, total: number, ms: number): void {
  if (io.progress) io.progress(`[${kind === 'case' ? '' : 'property '}${done}/${total}] ${status.padEnd(7)} ${id}`);
  else io.progressLine?.(`${kind} ${done}/${total} ${status} ${id} ${Math.round(ms)}ms`);
}

async function mainRun(argv: string[], io: CliIo): Promise<number> {
  // The report's duration covers the whole command: start-up (loading and checking), cases, properties.
  const started = performance.now();
  const startedAt = new Date().toISOString();
  let options: Options;
  let factory: AdapterFactory;
  try {
    options = parseArgs(argv);
  } catch (error) {
    io.err(`${(error as Error).message}\n${USAGE}`);
    return 2;
  }
  if (options.quiet) io = { ...io, progress: undefined, progressLine: undefined };
  let file;
  let expected: Set<string> | undefined;
  try {
    const path = resolve(io.cwd, options.cases);
    // Reports name the case file relative to where the command ran, so they read the same on any machine.
    // Short paths for files under the working directory; absolute ones elsewhere, so they stay findable.
    const shown = relative(io.cwd, path);
    file = loadCaseFile(path, shown && !shown.startsWith('..') && !isAbsolute(shown) ? shown : path);
    if (options.expectedFailures) {
      expected = loadExpectedFailures(resolve(io.cwd, options.expectedFailures));
      const known = new Set(file.cases.map((c) => c.id));
      const unknown = [...expected].filter((id) => !known.has(id));
      if (unknown.length > 0) throw new UsageError(`${options.expectedFailures}: unknown case ids: ${unknown.join(', ')}`);
    }
    // A filter that selects nothing would give a green run that checked nothing (a typo in CI, say).
    const namesProperty = options.properties && options.filter.some((term) => ALL_PROPERTY_IDS.includes(term));
    if (options.filter.length > 0 && !namesProperty && !file.cases.some((c) => selects(c, options.filter))) {
      throw new UsageError(`--filter ${options.filter.join(',')} selects no case of ${file.file} and no property`);
    }
    if (options.out) checkOutDir(resolve(io.cwd, options.out));
    factory = await adapterFactory(options.adapter, io.cwd);
  } catch (error) {
    const interrupted = interruptedExit(io);
    if (interrupted !== undefined) {
      io.err(`interrupted (${String(io.interrupt?.reason)}) before the first case; nothing was written`);
      return interrupted;
    }
    io.err(error instanceof CaseFileError ? `the case file does not load:\n${error.message}` : error instanceof EarlyCheckError ? error.message : `cannot start: ${(error as Error).message}`);
    return 2;
  }
  // After an interruption no new adapter is made: what is still to run fails at once.
  const guarded: AdapterFactory = () => (io.interrupt?.aborted ? Promise.reject(new Error(`interrupted (${String(io.interrupt.reason)})`)) : factory());
  let suite;
  const jobs = options.jobs ?? (options.adapter === 'reference' ? REFERENCE_JOBS : 1);
  const casesStarted = performance.now();
  try {
    suite = await runSuite(file, guarded, {
      filter: options.filter,
      ...(options.timeoutMs !== undefined && { timeoutMs: options.timeoutMs }),
      jobs,
      ...(expected && { expectedFailures: expected }),
      ...(io.interrupt && { signal: io.interrupt }),
      ...(options.crystalTransport && { crystalTransport: options.crystalTransport }),
      onCase: (result, done, total) => showProgress(io, 'case', result.stale ? 'stale' : result.status, result.id, done, total, result.duration_ms),
    });
  } catch (error) {
    // The one step before the first case that can fail here is the implementation's self-description.
    const interrupted = interruptedExit(io);
    io.err(interrupted !== undefined ? `interrupted (${String(io.interrupt?.reason)}) before the first case; nothing was written` : `cannot start: ${(error as Error).message}`);
    return interrupted ?? 2;
  }
  const casesMs = performance.now() - casesStarted;
  io.progress?.('');
  if (suite.stopped) io.out(`stopped early: ${suite.stopped}`);
  // The summary follows the run: the cases' part now; the verdict, which counts the properties too, last.
  for (const line of caseSummaryLines(buildReport(suite, { filter: options.filter }))) io.out(line);
  let properties;
  const propertiesStarted = performance.now();
  if (options.properties && suite.stopped) io.out('properties: not run (the run stopped early)');
  else if (options.properties) {
    const seed = options.seed ?? randomSeed();
    io.out(`properties: seed ${seed}, ${options.propertyRuns === undefined ? `${DEFAULT_PROPERTY_RUNS} runs each (code scenarios ${DEFAULT_CODE_PROPERTY_RUNS})` : `${options.propertyRuns} runs each`}`);
    properties = await runProperties(guarded, suite.description, {
      seed,
      ...(options.propertyRuns === undefined ? {} : { runs: options.propertyRuns }),
      filter: options.filter,
      ...(options.timeoutMs !== undefined && { caseTimeoutMs: options.timeoutMs }),
      onProperty: (result, done, total) => showProgress(io, 'property', result.status, result.id, done, total, result.duration_ms),
      // Where cases may overlap, two property families may too (one waits on a sandbox or the disk while the other computes).
      concurrency: jobs > 1 ? PROPERTY_FAMILIES_AT_ONCE : 1,
      ...(io.interrupt && { signal: io.interrupt }),
    });
    io.progress?.('');
  }
  const interrupted = io.interrupt?.aborted ? String(io.interrupt.reason) : undefined;
  const ended = performance.now();
  const timing = {
    started_at: startedAt,
    duration_ms: ended - started,
    phases: { startup_ms: casesStarted - started, cases_ms: casesMs, properties_ms: properties ? ended - propertiesStarted : 0 },
  };
  const report = buildReport(suite, { filter: options.filter, ...(properties && { properties }), ...(interrupted && { interrupted }), timing });
  assertReportValid(report);
  for (const line of [...propertyLines(report), ...verdictLines(report)]) io.out(line);
  if (options.out) {
    const dir = resolve(io.cwd, options.out);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'report.json'), `${JSON.stringify(report, null, 2)}\n`);
    writeFileSync(join(dir, 'report.md'), renderMarkdown(report));
    // JUnit XML, a self-contained HTML report, a job summary and a badge, next to report.json.
    const more = writeReportOutputs(dir, report).map((file) => relative(dir, file) || file);
    io.out(`wrote ${join(dir, 'report.json')}, report.md and ${more.join(', ')}${interrupted ? ' (partial: the run was interrupted)' : ''}`);
  }
  return interruptedExit(io) ?? exitCode(report);
}
