/**
 * `cantrip-conformance run [--adapter reference|<module>|cmd:<command line>] [--filter <rule|id|feature>] [--out <dir>]
 * [--expected-failures <file>] [--cases <tests.yaml>] [--timeout <ms>] [--jobs <n>] [--no-properties] [--property-runs <n>] [--seed <n>] [--quiet]
 * [--spec <draft version>]`. The first lines name the draft judged (the newest the implementation declares unless `--spec` says).
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
import { readFileSync } from 'node:fs';
import { extname, isAbsolute, join, relative, resolve } from 'node:path';
import type { Adapter } from '../../schemas/adapter.ts';
import { CRYSTAL_TRANSPORTS } from '../../schemas/adapter.ts';
import { makeOutputFolder, writeOutputFile, writeReportOutputs } from '../report/index.ts';
import { DIFF_USAGE, MATRIX_USAGE, runDiff, runMatrix } from './compare.ts';
import { CRYSTAL_SERVER_USAGE, runCrystalServer } from './crystal-server-command.ts';
import { runSite, SITE_USAGE } from './site-command.ts';
import { assertSelectsSomething, DraftChoiceError, FilterError, filterVocabulary, resolveFilterTerms, selectCases, UNDECLARED_DRAFT } from '../plan/index.ts';
import { draftOf, draftVersions } from '../../spec/drafts.ts';
import { DEFAULT_CASE_TIMEOUT_MS } from '../run/index.ts';
import { stopAllImplementations } from '../adapters/index.ts';
import { isCommandSpec } from '../adapters/index.ts';
import { createAdapterExport, importAdapterModule } from '../adapters/index.ts';
import { startCommandAdapter } from '../adapters/index.ts';
import { checkAdapterFactory, checkOutDir, EarlyCheckError } from './early-checks.ts';
import { checkExpectedFailureIds, ExpectedFailuresError, loadExpectedFailures } from '../case-file/index.ts';
import { ALL_PROPERTIES, ALL_PROPERTY_IDS, DEFAULT_SEED, selectProperties, PROPERTY_FAMILIES_AT_ONCE, DEFAULT_CODE_PROPERTY_RUNS, DEFAULT_PROPERTY_RUNS, applyExpectedPropertyFailures, randomSeed, runProperties } from '../properties/index.ts';
import { nearestOption, UsageError } from './arguments.ts';

/** The commands, as `--help` lists them. */
const COMMANDS = ['run', 'diff', 'matrix', 'crystal-server', 'help'];
import { DEFAULT_OUT, parseRunOptions, type RunOptions } from './run-options.ts';
import { CaseFileError, loadCaseFile } from '../case-file/index.ts';
import { assertReportValid, buildReport, exitCode, NOTHING_JUDGED_EXIT, PROFILE_BELOW_EXIT, profileShortfall } from '../report/index.ts';
import { caseSummaryLines, propertyLines, renderMarkdown, verdictLines } from '../report/index.ts';
import { runSuite, type AdapterFactory } from '../run/index.ts';

import type { CliIo } from './io.ts';
import { scrubSecrets, stretchedForLoad } from '../values/index.ts';
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

const USAGE = `usage: cantrip-conformance run [--adapter reference|<module path>|'cmd:<command line>'] [--filter <rule|id|feature|property>]...
                                [--out <dir> | --no-out] [--expected-failures <file>] [--cases <tests.yaml>] [--timeout <ms>] [--jobs <n>]
                                [--no-properties] [--property-runs <n>] [--seed <n>|random] [--quiet]
                                [--crystal-transport callback|openai|openai-stream|anthropic|anthropic-stream|gemini|gemini-stream]
                                [--spec <draft version>] [--require core|partial|full]`;

/** What `--adapter <path>` may name without `cmd:`: a module Node or tsx imports. */
const JAVASCRIPT = ['.js', '.mjs', '.cjs'];
const MODULE_EXTENSIONS = [...JAVASCRIPT, '.ts', '.mts', '.cts'];
/** Interpreters of the scripts people most often hand to `--adapter` as a path. */
const INTERPRETERS: Record<string, string> = { '.py': 'python3', '.js': 'node', '.mjs': 'node', '.cjs': 'node', '.rb': 'ruby', '.php': 'php', '.pl': 'perl', '.sh': 'sh' };

/** `--adapter` as a command line for a program at `spec`: `'cmd:python3 my_adapter.py'`. */
function commandHint(spec: string, extension: string): string {
  const interpreter = INTERPRETERS[extension];
  return `'cmd:${interpreter === undefined ? '' : `${interpreter} `}${spec}'`;
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
  const extension = extname(file).toLowerCase();
  // A Python script (or any program) given as a path would only fail to import: say how to run it instead.
  if (!MODULE_EXTENSIONS.includes(extension)) {
    throw new EarlyCheckError(`--adapter ${spec}: ${extension === '' ? 'a file without an extension' : `a ${extension} file`} is not a JavaScript or TypeScript module exporting createAdapter(); a program that speaks the adapter protocol over stdio is given with cmd:, as --adapter ${commandHint(spec, extension)} (docs/adapter-protocol.md)`);
  }
  const create = createAdapterExport(await importAdapterModule(file));
  if (typeof create !== 'function') {
    const asProgram = JAVASCRIPT.includes(extension) ? `; if it is a program that speaks the adapter protocol over stdio, give it as --adapter ${commandHint(spec, extension)}` : '';
    throw new EarlyCheckError(`${file} does not export createAdapter()${asProgram}`);
  }
  await checkAdapterFactory(create as AdapterFactory, file);
  return create as AdapterFactory;
}

/** What `--help` prints: the commands, then `run`'s options with their defaults. */
const HELP = `cantrip-conformance: the Cantrip conformance suite (tests.yaml and generated properties) against an implementation.

commands:
  run      run the suite and write reports          (cantrip-conformance run --help)
  diff     compare two report.json files            (${DIFF_USAGE.replace('usage: ', '')})
  matrix   rule-by-implementation table of reports  (${MATRIX_USAGE.replace('usage: ', '')})
  site     static results site of many reports      (${SITE_USAGE.replace('usage: ', '')})
  crystal-server  serve one case's crystals over HTTP to debug a provider by hand
           (${CRYSTAL_SERVER_USAGE.replace('usage: ', '')})

run options (defaults in brackets):
  --adapter <spec>           reference | a module exporting createAdapter() | 'cmd:<command line>' [reference]
  --filter <term>[,<term>]   a case id, rule id, rule family (LOOP), feature or property id, any case;
                             repeatable; another draft's rule id selects its counterpart in the draft
                             judged (CRYSTAL-5 is LLM-5 at 0.3.1); a term that names none of these, or
                             a filter that selects nothing in the draft judged, is an error [every case]
  --out <dir>                where report.json, report.md, junit.xml, report.html, summary.md, badge.json go [${DEFAULT_OUT}]
  --no-out                   write no report, only the summary on stdout
  --expected-failures <file> case and property ids expected to fail, one a line; stale entries fail the run [none]
  --cases <file>             the case file [the kit's tests.yaml]
  --timeout <ms>             per case [${DEFAULT_CASE_TIMEOUT_MS}]
  --jobs <n>                 most cases at once; only cases that script a wait run alongside others,
                             each on its own adapter instance; above 1 two property families also
                             overlap; 1: one after another [${REFERENCE_JOBS} for reference, else 1]
  --no-properties            skip the generated properties [run them]
  --property-runs <n>        scenarios per property [${DEFAULT_PROPERTY_RUNS}; code scenarios ${DEFAULT_CODE_PROPERTY_RUNS}]
  --seed <n>|random          the properties' seed; random explores new scenarios (printed) [${DEFAULT_SEED}]
  --crystal-transport <t>    ${CRYSTAL_TRANSPORTS.join(' | ')} [callback]
  --spec <version>           the draft of the spec to judge against, one the implementation declares in
                             describe().drafts: ${draftVersions().join(' | ')}; cases outside it do not run
                             [the newest it declares; ${UNDECLARED_DRAFT} when it declares none]
  --require <profile>        core | partial | full: a run whose profile is narrower (core < partial < full)
                             exits 4 with the reason, even when every case passes; the profile is core
                             when the implementation declares no feature, partial when a case or property
                             was skipped for a feature, ward or sandbox language it does not declare, and
                             full otherwise (docs/reports.md, "Profile") [any profile]
  --quiet, -q                no progress (a rewritten line on a terminal, one line per case and property otherwise) [progress on]

Options take their value as --name value or --name=value.

exit codes: 0 every applicable MUST case and property passes; 1 a MUST case or property fails (or an
  expected failure is stale); 3 incomplete: none fails, but a MUST case or property errored (an adapter
  that threw, a time limit); 2 bad usage or input, or a filter that selected nothing in the draft judged;
  4 none fails, but the profile is narrower than --require asks; 130/143 interrupted (SIGINT/SIGTERM).`;

export async function main(argv: string[], io: CliIo): Promise<number> {
  const [command, ...rest] = argv;
  if (command === '--version' || command === '-V') {
    io.out(PACKAGE_VERSION);
    return 0;
  }
  if (command === '--help' || command === '-h' || command === 'help') {
    io.out(HELP);
    return 0;
  }
  if (command === 'diff') return runDiff(rest, io);
  if (command === 'matrix') return runMatrix(rest, io);
  if (command === 'site') return runSite(rest, io);
  if (command === 'crystal-server') return runCrystalServer(rest, io, PACKAGE_ROOT);
  // Ending the implementations' processes makes whatever waits on them give up at once.
  const onInterrupt = (): void => void stopAllImplementations(stretchedForLoad(STOP_GRACE_MS));
  io.interrupt?.addEventListener('abort', onInterrupt, { once: true });
  try {
    return await mainRun(argv, io);
  } finally {
    io.interrupt?.removeEventListener('abort', onInterrupt);
    await stopAllImplementations(stretchedForLoad(STOP_GRACE_MS));
  }
}

/**
 * `io` whose every line leaves without a secret (harness/values/secrets.ts): what the console shows
 * of a run comes from the implementation as much as the report does.
 */
function scrubbedIo(io: CliIo): CliIo {
  const clean = (write: (line: string) => void) => (line: string) => write(scrubSecrets(line));
  return { ...io, out: clean(io.out), err: clean(io.err), ...(io.progress && { progress: clean(io.progress) }), ...(io.progressLine && { progressLine: clean(io.progressLine) }) };
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
  let options: RunOptions;
  let factory: AdapterFactory;
  try {
    const [command, ...rest] = argv;
    if (command !== 'run') {
      const near = command === undefined ? undefined : nearestOption(command, COMMANDS);
      throw new UsageError(command === undefined ? 'missing command' : `unknown command '${command}'${near ? ` (did you mean '${near}'?)` : ''}; the commands are ${COMMANDS.join(', ')}`);
    }
    options = parseRunOptions(rest, PACKAGE_ROOT);
  } catch (error) {
    io.err(`${(error as Error).message}\n${USAGE}`);
    return 2;
  }
  if (options.help) {
    io.out(HELP);
    return 0;
  }
  if (options.quiet) io = { ...io, progress: undefined, progressLine: undefined };
  io = scrubbedIo(io);
  let file;
  let expected: ReadonlySet<string> | undefined;
  try {
    const path = resolve(io.cwd, options.cases);
    // Reports name the case file relative to where the command ran, so they read the same on any machine.
    // Short paths for files under the working directory; absolute ones elsewhere, so they stay findable.
    const shown = relative(io.cwd, path);
    file = loadCaseFile(path, shown && !shown.startsWith('..') && !isAbsolute(shown) ? shown : path);
    options.filter = resolveFilterTerms(options.filter, filterVocabulary(file.cases));
    if (options.expectedFailures) {
      const list = loadExpectedFailures(resolve(io.cwd, options.expectedFailures));
      checkExpectedFailureIds(list, file.cases.map((c) => c.id), ALL_PROPERTY_IDS);
      expected = list.ids;
    }
    // A filter that selects nothing would give a green run that checked nothing (a typo in CI, say).
    // Without --spec the judged draft is known once the implementation has described itself: what the filter selects in any draft counts.
    assertSelectsSomething(options.filter, { cases: selectCases(file.cases, options.filter, options.spec).length, properties: options.properties ? selectProperties(ALL_PROPERTIES, options.filter, options.spec).length : 0 }, file.file);
    if (options.out) checkOutDir(resolve(io.cwd, options.out));
    factory = await adapterFactory(options.adapter, io.cwd);
  } catch (error) {
    const interrupted = interruptedExit(io);
    if (interrupted !== undefined) {
      io.err(`interrupted (${String(io.interrupt?.reason)}) before the first case; nothing was written`);
      return interrupted;
    }
    io.err(
      error instanceof CaseFileError
        ? `the case file does not load:\n${error.message}`
        : error instanceof EarlyCheckError || error instanceof ExpectedFailuresError
          ? error.message
          : error instanceof UsageError || error instanceof FilterError
            ? `${error.message}\n${USAGE}`
            : `cannot start: ${(error as Error).message}`,
    );
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
      ...(options.spec !== undefined && { draft: options.spec }),
      onPlanned: ({ draft, description, cases, outside }) => {
        const { commit, label } = draftOf(draft);
        const why = options.spec !== undefined ? 'as --spec asks' : description.drafts === undefined ? `${description.name} declares no drafts` : `the newest ${description.name} declares`;
        io.out(`spec draft ${draft} (${label} @ ${commit}) judged: ${why}${description.drafts === undefined ? '' : ` (it declares ${description.drafts.join(', ')})`}`);
        // A declared draft the kit does not know is left out of the choice: say so rather than drop it unseen.
        const unknown = (description.drafts ?? []).filter((d) => !draftVersions().includes(d));
        if (unknown.length > 0) io.err(`note: ${description.name} declares draft${unknown.length === 1 ? '' : 's'} ${unknown.join(', ')}, which this kit does not know (it knows ${draftVersions().join(', ')}); not judged`);
        io.out(`${cases} case${cases === 1 ? '' : 's'} in this draft${outside > 0 ? `; ${outside} outside it, not run` : ''}`);
      },
      onCase: (result, done, total) => showProgress(io, 'case', result.stale ? 'stale' : result.status, result.id, done, total, result.duration_ms),
    });
  } catch (error) {
    // The one step before the first case that can fail here is the implementation's self-description.
    const interrupted = interruptedExit(io);
    // --spec names a draft the implementation does not declare (describe().drafts): a usage error.
    // A filter term naming a rule the judged draft removes is refused once the draft is known.
    const why = error instanceof DraftChoiceError || error instanceof FilterError ? `${error.message}\n${USAGE}` : `cannot start: ${(error as Error).message}`;
    io.err(interrupted !== undefined ? `interrupted (${String(io.interrupt?.reason)}) before the first case; nothing was written` : why);
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
    const seed = options.seed === 'random' ? randomSeed() : options.seed;
    io.out(`properties: seed ${seed}${options.seed === 'random' ? ' (random; --seed ' + seed + ' repeats it)' : seed === DEFAULT_SEED ? ' (the default; --seed random explores others)' : ''}, ${options.propertyRuns === undefined ? `${DEFAULT_PROPERTY_RUNS} runs each (code scenarios ${DEFAULT_CODE_PROPERTY_RUNS})` : `${options.propertyRuns} runs each`}`);
    const results = await runProperties(guarded, suite.description, {
      seed,
      draft: suite.draft,
      ...(options.propertyRuns === undefined ? {} : { runs: options.propertyRuns }),
      filter: options.filter,
      ...(options.timeoutMs !== undefined && { caseTimeoutMs: options.timeoutMs }),
      onProperty: (result, done, total) => showProgress(io, 'property', result.status, result.id, done, total, result.duration_ms),
      // Where cases may overlap, two property families may too (one waits on a sandbox or the disk while the other computes).
      concurrency: jobs > 1 ? PROPERTY_FAMILIES_AT_ONCE : 1,
      ...(io.interrupt && { signal: io.interrupt }),
    });
    properties = applyExpectedPropertyFailures(results, expected);
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
    makeOutputFolder(dir);
    writeOutputFile(dir, 'report.json', `${JSON.stringify(report, null, 2)}\n`);
    writeOutputFile(dir, 'report.md', renderMarkdown(report));
    // JUnit XML, a self-contained HTML report, a job summary and a badge, next to report.json.
    const more = writeReportOutputs(dir, report).map((file) => relative(dir, file) || file);
    io.out(`wrote ${join(dir, 'report.json')}, report.md and ${more.join(', ')}${interrupted ? ' (partial: the run was interrupted)' : ''}`);
  }
  const code = exitCode(report, { ...(options.require && { require: options.require }) });
  if (code === NOTHING_JUDGED_EXIT) io.err(`--filter ${options.filter.join(',')} selected no case and no property in draft ${suite.draft} (the cases it names there do not apply to it); nothing was judged`);
  if (code === PROFILE_BELOW_EXIT) io.err(`--require ${options.require}: ${profileShortfall(report, options.require)}`);
  return interruptedExit(io) ?? code;
}
