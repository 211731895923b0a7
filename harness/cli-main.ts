/**
 * `cantrip-conformance run [--adapter reference|<module>|cmd:<command line>] [--filter <rule|id|feature>] [--out <dir>]
 * [--expected-failures <file>] [--cases <tests.yaml>] [--timeout <ms>] [--no-properties] [--property-runs <n>] [--seed <n>]`.
 * The generated properties (harness/properties) run after the cases unless `--no-properties`.
 * Exit 0: every applicable MUST case passed (or is an expected failure) and nothing is stale;
 * 1: otherwise; 2: bad usage, or a case file / adapter / list / report directory that does not check out
 * (all checked before the first case); 130 / 143: interrupted by SIGINT / SIGTERM (the unfinished cases
 * are errored in the partial report, which is written when --out is given). Every implementation process
 * (and its process group) is ended before main returns.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Adapter, CrystalTransport } from '../schemas/adapter.ts';
import { CRYSTAL_TRANSPORTS } from '../schemas/adapter.ts';
import { writeReportOutputs } from './report-outputs.ts';
import { DIFF_USAGE, MATRIX_USAGE, runDiff, runMatrix } from './cli-compare.ts';
import { selects } from './plan.ts';
import { DEFAULT_CASE_TIMEOUT_MS } from './run.ts';
import { stopAllImplementations } from './adapters/child-process.ts';
import { isCommandSpec } from './adapters/command-line.ts';
import { startCommandAdapter } from './adapters/jsonrpc-adapter.ts';
import { checkAdapterFactory, checkOutDir, EarlyCheckError } from './cli-checks.ts';
import { loadExpectedFailures } from './expected-failures.ts';
import { ALL_PROPERTY_IDS, DEFAULT_CODE_PROPERTY_RUNS, DEFAULT_PROPERTY_RUNS, randomSeed, runProperties } from './properties/run-properties.ts';
import { CaseFileError, loadCaseFile } from './load.ts';
import { assertReportValid, buildReport, exitCode } from './report.ts';
import { renderMarkdown, summaryLines } from './report-markdown.ts';
import { runSuite, type AdapterFactory } from './run.ts';

export const PACKAGE_ROOT = fileURLToPath(new URL('..', import.meta.url));
/** The kit's version, from its package.json. */
const PACKAGE_VERSION = (JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { version: string }).version;

export interface CliIo {
  out: (line: string) => void;
  err: (line: string) => void;
  /** Rewrites the progress line; absent when stderr is not a terminal. */
  progress?: (text: string) => void;
  cwd: string;
  /** Aborted (with the signal's name as reason) when the user interrupts the run. */
  interrupt?: AbortSignal;
}

/** Grace given to implementation processes at the end of a run, per step (stdin closed, SIGTERM, SIGKILL). */
const STOP_GRACE_MS = 600;
/** Exit codes for an interrupted run, as a shell reports a process ended by the signal. */
const INTERRUPTED_EXIT: Record<string, number> = { SIGINT: 130, SIGTERM: 143 };

const USAGE = `usage: cantrip-conformance run [--adapter reference|<module path>|'cmd:<command line>'] [--filter <rule|id|feature>]...
                                [--out <dir>] [--expected-failures <file>] [--cases <tests.yaml>] [--timeout <ms>]
                                [--no-properties] [--property-runs <n>] [--seed <n>]
                                [--crystal-transport callback|openai|openai-stream|anthropic|anthropic-stream]`;

interface Options {
  adapter: string;
  filter: string[];
  out?: string;
  expectedFailures?: string;
  cases: string;
  timeoutMs?: number;
  /** Run the generated properties after the cases (default true). */
  properties: boolean;
  /** Runs per property; absent: each family's own default. */
  propertyRuns?: number;
  seed?: number;
  /** How the scripted crystals reach the implementation (default callback). */
  crystalTransport?: CrystalTransport;
}

class UsageError extends Error {}

function parseArgs(argv: string[]): Options {
  const [command, ...rest] = argv;
  if (command !== 'run') throw new UsageError(command === undefined ? 'missing command' : `unknown command '${command}'`);
  const options: Options = { adapter: 'reference', filter: [], cases: join(PACKAGE_ROOT, 'tests.yaml'), properties: true };
  for (let i = 0; i < rest.length; i++) {
    const flag = rest[i]!;
    if (flag === '--no-properties') {
      options.properties = false;
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
    const mod = (await import('../reference/adapter/index.ts')) as { createReferenceAdapter: () => Adapter };
    return () => mod.createReferenceAdapter();
  }
  const file = isAbsolute(spec) ? spec : resolve(cwd, spec);
  const mod = (await import(pathToFileURL(file).href)) as { createAdapter?: unknown };
  if (typeof mod.createAdapter !== 'function') throw new UsageError(`${file} does not export createAdapter()`);
  await checkAdapterFactory(mod.createAdapter as AdapterFactory, file);
  return mod.createAdapter as AdapterFactory;
}

/** What `--help` prints: the commands, then `run`'s options with their defaults. */
const HELP = `cantrip-conformance: the Cantrip conformance suite (tests.yaml and generated properties) against an implementation.

commands:
  run      run the suite and write reports          (cantrip-conformance run --help)
  diff     compare two report.json files            (${DIFF_USAGE.replace('usage: ', '')})
  matrix   rule-by-implementation table of reports  (${MATRIX_USAGE.replace('usage: ', '')})

run options (defaults in brackets):
  --adapter <spec>           reference | a module exporting createAdapter() | 'cmd:<command line>' [reference]
  --filter <term>            a case id, rule id, rule family (LOOP) or feature; repeatable [every case]
  --out <dir>                where report.json, report.md, junit.xml, report.html, summary.md, badge.json go [none]
  --expected-failures <file> case ids expected to fail, one a line; stale entries fail the run [none]
  --cases <file>             the case file [the kit's tests.yaml]
  --timeout <ms>             per case [${DEFAULT_CASE_TIMEOUT_MS}]
  --no-properties            skip the generated properties [run them]
  --property-runs <n>        scenarios per property [${DEFAULT_PROPERTY_RUNS}; code scenarios ${DEFAULT_CODE_PROPERTY_RUNS}]
  --seed <n>                 the properties' seed [random, printed]
  --crystal-transport <t>    ${CRYSTAL_TRANSPORTS.join(' | ')} [callback]

exit codes: 0 every applicable MUST case passes, 1 otherwise, 2 bad usage or input, 130/143 interrupted.`;

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

async function mainRun(argv: string[], io: CliIo): Promise<number> {
  let options: Options;
  let factory: AdapterFactory;
  try {
    options = parseArgs(argv);
  } catch (error) {
    io.err(`${(error as Error).message}\n${USAGE}`);
    return 2;
  }
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
  try {
    suite = await runSuite(file, guarded, {
      filter: options.filter,
      ...(options.timeoutMs !== undefined && { timeoutMs: options.timeoutMs }),
      ...(expected && { expectedFailures: expected }),
      ...(io.interrupt && { signal: io.interrupt }),
      ...(options.crystalTransport && { crystalTransport: options.crystalTransport }),
      onCase: (result, done, total) => io.progress?.(`[${done}/${total}] ${result.status.padEnd(7)} ${result.id}`),
    });
  } catch (error) {
    // The one step before the first case that can fail here is the implementation's self-description.
    const interrupted = interruptedExit(io);
    io.err(interrupted !== undefined ? `interrupted (${String(io.interrupt?.reason)}) before the first case; nothing was written` : `cannot start: ${(error as Error).message}`);
    return interrupted ?? 2;
  }
  io.progress?.('');
  if (suite.stopped) io.out(`stopped early: ${suite.stopped}`);
  let properties;
  if (options.properties && suite.stopped) io.out('properties: not run (the run stopped early)');
  else if (options.properties) {
    const seed = options.seed ?? randomSeed();
    io.out(`properties: seed ${seed}, ${options.propertyRuns === undefined ? `${DEFAULT_PROPERTY_RUNS} runs each (code scenarios ${DEFAULT_CODE_PROPERTY_RUNS})` : `${options.propertyRuns} runs each`}`);
    properties = await runProperties(guarded, suite.description, {
      seed,
      ...(options.propertyRuns === undefined ? {} : { runs: options.propertyRuns }),
      filter: options.filter,
      ...(options.timeoutMs !== undefined && { caseTimeoutMs: options.timeoutMs }),
      onProperty: (result, done, total) => io.progress?.(`[property ${done}/${total}] ${result.status.padEnd(7)} ${result.id}`),
    });
    io.progress?.('');
  }
  const interrupted = io.interrupt?.aborted ? String(io.interrupt.reason) : undefined;
  const report = buildReport(suite, { filter: options.filter, ...(properties && { properties }), ...(interrupted && { interrupted }) });
  assertReportValid(report);
  for (const line of summaryLines(report)) io.out(line);
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
