/**
 * The options of `cantrip-conformance run`: their table for {@link parseCommandLine}, and the checks of
 * what their values mean. Every option keeps the default it had when the parser was hand-written.
 */
import { join } from 'node:path';
import type { CrystalTransport } from '../../schemas/adapter.ts';
import { CRYSTAL_TRANSPORTS } from '../../schemas/adapter.ts';
import { DEFAULT_SEED } from '../properties/index.ts';
import { draftVersions } from '../../spec/drafts.ts';
import { parseCommandLine, UsageError, type OptionTable } from './arguments.ts';
import { splitFilterTerms } from '../plan/index.ts';
import { PROFILE_ORDER, type ProfileName } from '../report/index.ts';

/** Where reports go when `--out` is not given, relative to the working directory (a CI job's workspace). */
export const DEFAULT_OUT = 'cantrip-report';


/** The largest seed fast-check takes (32-bit). */
const MAX_SEED = 0x7fffffff;

export const RUN_OPTIONS = {
  adapter: { type: 'string' },
  filter: { type: 'string', multiple: true },
  out: { type: 'string' },
  'no-out': { type: 'boolean' },
  'expected-failures': { type: 'string' },
  cases: { type: 'string' },
  timeout: { type: 'string' },
  jobs: { type: 'string' },
  'no-properties': { type: 'boolean' },
  'property-runs': { type: 'string' },
  seed: { type: 'string' },
  'crystal-transport': { type: 'string' },
  spec: { type: 'string' },
  require: { type: 'string' },
  quiet: { type: 'boolean', short: 'q' },
} as const satisfies OptionTable;

export interface RunOptions {
  adapter: string;
  /** Filter terms as typed, commas split (resolved against the case file later: filter-terms.ts). */
  filter: string[];
  out?: string;
  expectedFailures?: string;
  cases: string;
  timeoutMs?: number;
  /** Most cases at once; absent: the command's default for the adapter. */
  jobs?: number;
  /** Run the generated properties after the cases (default true). */
  properties: boolean;
  /** Runs per property; absent: each family's own default. */
  propertyRuns?: number;
  /** The properties' seed, or 'random' for a fresh one (printed). */
  seed: number | 'random';
  /** How the scripted crystals reach the implementation (default callback). */
  crystalTransport?: CrystalTransport;
  /**
   * The draft of the spec to judge (a version spec/drafts.yaml registers); absent: the newest the
   * implementation declares. Whether the implementation declares it is checked once it has described itself.
   */
  spec?: string;
  /** The narrowest profile the run must have: a narrower one exits 4 (report.ts PROFILE_BELOW_EXIT); absent: any. */
  require?: ProfileName;
  /** No progress output (the summary is still printed). */
  quiet: boolean;
  /** `--help` was given: print the help and do nothing else. */
  help: boolean;
}

/** `run`'s arguments (after the word `run`) as options; throws {@link UsageError}. */
export function parseRunOptions(args: readonly string[], kitRoot: string): RunOptions {
  const { values } = parseCommandLine(args, RUN_OPTIONS);
  const text = (name: keyof typeof RUN_OPTIONS): string | undefined => values[name] as string | undefined;
  if (values['out'] !== undefined && values['no-out'] === true) throw new UsageError('--out and --no-out contradict each other');
  const options: RunOptions = {
    adapter: text('adapter') ?? 'reference',
    filter: splitFilterTerms((values['filter'] as string[] | undefined) ?? []),
    cases: text('cases') ?? join(kitRoot, 'tests.yaml'),
    properties: values['no-properties'] !== true,
    quiet: values['quiet'] === true,
    help: values['help'] === true,
    seed: DEFAULT_SEED,
  };
  if (values['no-out'] !== true) options.out = text('out') ?? DEFAULT_OUT;
  const expectedFailures = text('expected-failures');
  if (expectedFailures !== undefined) options.expectedFailures = expectedFailures;
  const timeout = text('timeout');
  if (timeout !== undefined) options.timeoutMs = integer('--timeout', timeout, 1, Number.MAX_SAFE_INTEGER);
  const jobs = text('jobs');
  if (jobs !== undefined) options.jobs = integer('--jobs', jobs, 1, 64);
  const runs = text('property-runs');
  if (runs !== undefined) options.propertyRuns = integer('--property-runs', runs, 1, MAX_SEED);
  const seed = text('seed');
  if (seed !== undefined) options.seed = seed === 'random' ? 'random' : integer('--seed', seed, 0, MAX_SEED, ' or random');
  const transport = text('crystal-transport');
  if (transport !== undefined) {
    if (!(CRYSTAL_TRANSPORTS as readonly string[]).includes(transport)) throw new UsageError(`--crystal-transport is one of ${CRYSTAL_TRANSPORTS.join(', ')}, got '${transport}'`);
    options.crystalTransport = transport as CrystalTransport;
  }
  const spec = text('spec');
  if (spec !== undefined) {
    const known = draftVersions();
    if (!known.includes(spec)) throw new UsageError(`--spec is one of the drafts the kit knows, ${known.join(', ')}; got '${spec}'`);
    options.spec = spec;
  }
  const require = text('require');
  if (require !== undefined) {
    if (!(PROFILE_ORDER as readonly string[]).includes(require)) throw new UsageError(`--require is one of the profiles ${PROFILE_ORDER.join(', ')} (narrowest first), got '${require}'`);
    options.require = require as ProfileName;
  }
  return options;
}

function integer(flag: string, value: string, min: number, max: number, alternative = ''): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isInteger(n) || n < min || n > max) throw new UsageError(`${flag} needs an integer from ${min} to ${max}${alternative}, got '${value}'`);
  return n;
}
