/**
 * Reading a command's arguments with Node's `util.parseArgs` in strict mode, one option table per
 * command, so every command refuses what it does not know the same way: an unknown option is named
 * (with the nearest known one when it is close), a value-taking option without a value says so, and
 * `--name=value` works as `--name value`. Checking what the values mean is each command's business.
 */
import { parseArgs } from 'node:util';

/** Bad usage: the command prints the message and its usage line and exits 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** One option of a command: whether it takes a value, its one-letter alias, whether it may repeat. */
export interface OptionSpec {
  type: 'string' | 'boolean';
  short?: string;
  multiple?: boolean;
}

export type OptionTable = Record<string, OptionSpec>;

/** What a command line says: option values by long name (strings, booleans, or lists when repeatable), and the positionals. */
export interface ParsedArguments {
  values: Record<string, string | boolean | string[] | undefined>;
  positionals: string[];
}

/** Every command answers `--help` and `-h`. */
const HELP_OPTION: OptionSpec = { type: 'boolean', short: 'h' };

/**
 * Parses `args` against `table` (plus `--help`/`-h`). `positionals` says whether the command takes
 * operands (diff and matrix take report files; run takes none). Throws {@link UsageError}.
 */
export function parseCommandLine(args: readonly string[], table: OptionTable, positionals = false): ParsedArguments {
  const options = { ...table, help: HELP_OPTION };
  const joined = withNegativeValues(args, options);
  try {
    const parsed = parseArgs({ args: joined, options, strict: true, allowPositionals: positionals });
    return { values: parsed.values as ParsedArguments['values'], positionals: parsed.positionals };
  } catch (error) {
    throw new UsageError(explain(joined, options, positionals, error as Error));
  }
}

/**
 * `--seed -1` as `--seed=-1`: a value-taking option followed by a negative number takes it as its value
 * (parseArgs would read `-1` as an option and say the value is missing), so the option's own check can
 * say what is wrong with the number.
 */
function withNegativeValues(args: readonly string[], table: OptionTable): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    const next = args[i + 1];
    const name = arg.startsWith('--') ? arg.slice(2) : undefined;
    if (name !== undefined && !name.includes('=') && table[name]?.type === 'string' && next !== undefined && /^-\d/.test(next)) {
      out.push(`${arg}=${next}`);
      i++;
    } else out.push(arg);
  }
  return out;
}

/**
 * Says in the kit's words what strict parsing refused. A second, lenient pass over the same arguments
 * names the culprit, so the message does not depend on the wording of Node's own errors.
 */
function explain(args: readonly string[], table: OptionTable, positionals: boolean, error: Error): string {
  const { tokens } = parseArgs({ args: [...args], options: table, strict: false, allowPositionals: true, tokens: true });
  const shortToLong = new Map(Object.entries(table).flatMap(([name, spec]) => (spec.short ? [[spec.short, name] as const] : [])));
  for (const token of tokens) {
    if (token.kind === 'positional') {
      if (!positionals) return `unexpected argument '${token.value}' (this command takes options only)`;
      continue;
    }
    if (token.kind !== 'option') continue;
    const name = token.rawName.startsWith('--') ? token.name : (shortToLong.get(token.name) ?? token.name);
    const spec = table[name];
    if (!spec) {
      const near = nearestOption(token.rawName, Object.keys(table));
      return `unknown option '${token.rawName}'${near ? ` (did you mean '--${near}'?)` : ''}`;
    }
    // A negative number after the option was given, and read as an option: say so, with the way to write it.
    if (spec.type === 'string' && token.inlineValue !== true && token.value !== undefined && /^-\d/.test(token.value)) return `${token.rawName} was given '${token.value}', a negative number, which it does not take`;
    if (spec.type === 'string' && (token.value === undefined || (token.inlineValue !== true && token.value.startsWith('-')))) return `${token.rawName} needs a value`;
    if (spec.type === 'boolean' && token.inlineValue === true) return `${token.rawName} takes no value`;
  }
  return error.message;
}

/** The known option closest in spelling to `raw`, when it is close enough to be the one meant. */
export function nearestOption(raw: string, names: readonly string[]): string | undefined {
  const typed = raw.replace(/^-+/, '').replace(/=.*$/, '');
  let best: { name: string; distance: number } | undefined;
  for (const name of names) {
    const distance = editDistance(typed, name);
    if (!best || distance < best.distance) best = { name, distance };
  }
  // A third of the name, at least 1 and at most 3 edits: close enough to be a slip of the keyboard.
  return best && best.distance <= Math.min(3, Math.max(1, Math.floor(best.name.length / 3))) ? best.name : undefined;
}

/** Edit distance with adjacent transpositions (`rnu` is one slip from `run`): insertions, deletions, substitutions, swaps. */
function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1);
    }
  }
  return d[a.length]![b.length]!;
}
