/**
 * Small helpers shared by the report outputs (JUnit XML, HTML, the job summary, diff and matrix):
 * reading a report.json back, showing values in one line, making text safe for XML and HTML, and the
 * effective status of a case or property.
 */
import { readFileSync } from 'node:fs';
import { validate, formatProblems } from '../../schemas/loader.ts';
import type { Report } from './report.ts';
import { limitNote } from '../drive/index.ts';
import type { CaseResult } from '../run/index.ts';
import { rootCauses, sightings, type RootCause } from './root-causes.ts';
import { buildProfile } from './profile.ts';
import { ambientChecks } from './ambient-checks.ts';

export type ReportCase = Report['cases'][number];
export type ReportProperty = NonNullable<Report['properties']>[number];
export type ReportRule = Report['rules'][number];
export type ExpectationFailure = ReportCase['failures'][number];

export const LEVELS = ['MUST', 'SHOULD', 'MAY'] as const;

/**
 * A case's status as a comparison sees it: its `status`, except that an expected failure that passed
 * is `stale` (it fails the run, so it is not a pass).
 */
export type EffectiveStatus = ReportCase['status'] | 'stale';

export function caseStatus(c: ReportCase): EffectiveStatus {
  return c.stale ? 'stale' : c.status;
}

/** `12345 ms (start-up 40 ms, cases 10000 ms, properties 2305 ms)`; without phases (an older report), the total alone. */
export function durationText(report: Report): string {
  const env = report.environment;
  const p = env.phases;
  const ms = (n: number): string => `${Math.round(n)} ms`;
  return p ? `${ms(env.duration_ms)} (start-up ${ms(p.startup_ms)}, cases ${ms(p.cases_ms)}, properties ${ms(p.properties_ms)})` : ms(env.duration_ms);
}

/** Statuses that fail a run (or the level they belong to). */
export const BROKEN: ReadonlySet<string> = new Set(['fail', 'errored', 'stale']);

/**
 * Reads and checks a report.json written by `cantrip-conformance run`. A report from before root causes
 * or the profile were added gets them computed from its cases, so older reports can still be compared.
 */
export function readReport(file: string): Report {
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new Error(`${file}: cannot read a report: ${(error as Error).message}`);
  }
  if (typeof value === 'object' && value !== null && !('root_causes' in value) && Array.isArray((value as { cases?: unknown }).cases)) {
    (value as Record<string, unknown>).root_causes = rootCauses((value as Report).cases);
  }
  // A report from before the profile was recorded gets it from its own cases, properties and rules.
  const old = value as Partial<Report> | null;
  if (typeof old === 'object' && old !== null && !('profile' in old) && Array.isArray(old.cases) && Array.isArray(old.rules) && Array.isArray(old.implementation?.features)) {
    (value as Record<string, unknown>).profile = buildProfile(old.implementation, old.cases, old.properties ?? [], old.rules);
  }
  // A report from before ambient checks were judged once gets them from its cases' invariants.
  if (typeof value === 'object' && value !== null && !('ambient_checks' in value) && Array.isArray((value as { cases?: unknown }).cases)) {
    (value as Record<string, unknown>).ambient_checks = ambientChecks((value as Report).cases, (value as Report).draft?.version);
  }
  const checked = validate('report', value);
  if (!checked.ok) throw new Error(`${file}: not a conformance report (schemas/report.schema.json):\n${formatProblems(checked.problems.slice(0, 10))}`);
  return value as Report;
}

/** A value on one line, as JSON, cut at `max` characters; `(nothing)` when the path found nothing. */
export function oneLine(value: unknown, max = 300): string {
  if (value === undefined) return '(nothing)';
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return clipText(text, max);
}

export function clipText(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

/**
 * A reason in one line with every line of it kept, for the one-line formats (the console, report.md's
 * failure lines, summary.md, junit's message): `does not match schema: /call/system_prompt: is
 * required; /role: must be one of "a", "b"`. After `maxParts` lines past the first, how many more.
 */
/**
 * A case's note: its reason (why it was skipped or errored), then each of the kit's bounds it reached and
 * was still judged past ("truncated after N; judged on what was kept"); a bound that stopped the judging
 * is in the reason already. '' when there is neither.
 */
export function caseNote(c: Pick<CaseResult, 'reason' | 'limits_reached'>): string {
  const kept = (c.limits_reached ?? []).filter((l) => l.judged).map(limitNote);
  return [c.reason ?? '', ...kept].filter(Boolean).join('; ');
}

export function reasonLine(text: string | undefined, maxParts = 4): string {
  const lines = (text ?? '').split('\n').map((l) => l.trim()).filter(Boolean);
  const [head, ...rest] = lines;
  if (head === undefined) return '';
  if (rest.length === 0) return head;
  const more = rest.length > maxParts ? `; and ${rest.length - maxParts} more` : '';
  return `${head}${head.endsWith(':') ? ' ' : '; '}${rest.slice(0, maxParts).join('; ')}${more}`;
}

/** The first non-empty line of a text. */
export function firstLine(text: string | undefined): string {
  return (text ?? '').split('\n').find((l) => l.trim() !== '')?.trim() ?? '';
}

/**
 * What an expectation asked for, readably: `{equals: "x"}` with matcher `equals` reads `equals "x"`;
 * anything else is shown as JSON.
 */
export function expectedText(f: Pick<ExpectationFailure, 'matcher' | 'expected'>, max = 300): string {
  const e = f.expected;
  if (typeof e === 'object' && e !== null && !Array.isArray(e)) {
    const keys = Object.keys(e);
    if (keys.length === 1 && keys[0] === f.matcher) return `${f.matcher} ${oneLine((e as Record<string, unknown>)[f.matcher], max)}`;
  }
  return oneLine(e, max);
}

/**
 * What a failed expectation found. For a length check on a list: the count and, where the expected count
 * is a number, the items beyond it or how many are missing, each item in a few of its fields rather than
 * the whole list as JSON.
 */
export function actualText(f: Pick<ExpectationFailure, 'matcher' | 'actual'> & { expected?: unknown }, max = 300): string {
  if (f.matcher === 'length' && Array.isArray(f.actual)) return lengthDifference(f.actual, matcherValue(f), max);
  return oneLine(f.actual, max);
}

/** The value given to the matcher: `2` of `{length: 2}`. */
function matcherValue(f: { matcher: string; expected?: unknown }): unknown {
  const e = f.expected;
  return typeof e === 'object' && e !== null && !Array.isArray(e) && Object.hasOwn(e, f.matcher) ? (e as Record<string, unknown>)[f.matcher] : e;
}

/** Items shown by name beyond an expected length; the rest are counted. */
const SHOWN_EXTRA = 2;

/** `length 3, expected 2; extra: item 3 (role "crystal", utterance "…")`, or `length 1, expected 2; 1 missing`. */
export function lengthDifference(items: readonly unknown[], expected: unknown, max = 300): string {
  const head = `length ${items.length}`;
  if (typeof expected !== 'number') return `${head}, expected ${oneLine(expected, 60)}`;
  if (items.length < expected) return `${head}, expected ${expected}; ${expected - items.length} missing`;
  const extra = items.slice(expected);
  const shown = extra.slice(0, SHOWN_EXTRA).map((item, i) => `item ${expected + i + 1} (${itemSummary(item)})`);
  const more = extra.length > SHOWN_EXTRA ? ` and ${extra.length - SHOWN_EXTRA} more` : '';
  return clipText(`${head}, expected ${expected}; extra: ${shown.join(', ')}${more}`, max);
}

/** Fields that tell one record from another at a glance, in the order shown. */
const TELLING_FIELDS = ['role', 'gate', 'name', 'id', 'status', 'utterance', 'content', 'observation', 'message'];

/** An item in a few words: its telling fields (strings clipped), or its JSON, clipped. */
function itemSummary(item: unknown): string {
  if (typeof item !== 'object' || item === null || Array.isArray(item)) return oneLine(item, 60);
  const record = item as Record<string, unknown>;
  // A crystal request: how many messages, and who spoke last.
  if (Array.isArray(record.messages)) {
    const last = record.messages[record.messages.length - 1] as { role?: unknown } | undefined;
    return `${record.messages.length} messages${typeof last?.role === 'string' ? `, the last from ${last.role}` : ''}`;
  }
  const fields = TELLING_FIELDS.filter((k) => record[k] !== undefined && record[k] !== null).slice(0, 3);
  if (fields.length === 0) return oneLine(item, 60);
  return fields.map((k) => `${k} ${oneLine(typeof record[k] === 'string' ? clipText(record[k] as string, 40) : record[k], 60)}`).join(', ');
}

/**
 * Where two values first differ, as a path below the one compared (`.result.items[2]`) with the two
 * values there; undefined when they do not differ. Objects and arrays are walked in order, so a long
 * value is shown at its difference rather than cut off before it.
 */
export function firstDifference(expected: unknown, actual: unknown, at = ''): { at: string; expected: unknown; actual: unknown } | undefined {
  if (Object.is(expected, actual)) return undefined;
  const bothArrays = Array.isArray(expected) && Array.isArray(actual);
  const bothObjects = !Array.isArray(expected) && !Array.isArray(actual) && typeof expected === 'object' && typeof actual === 'object' && expected !== null && actual !== null;
  if (bothArrays) {
    const [e, a] = [expected as unknown[], actual as unknown[]];
    for (let i = 0; i < Math.max(e.length, a.length); i++) {
      const found = firstDifference(e[i], a[i], `${at}[${i}]`);
      if (found) return found;
    }
    return undefined;
  }
  if (bothObjects) {
    const [e, a] = [expected as Record<string, unknown>, actual as Record<string, unknown>];
    for (const key of [...new Set([...Object.keys(e), ...Object.keys(a)])]) {
      const found = firstDifference(e[key], a[key], /^[A-Za-z_][\w-]*$/.test(key) ? `${at}.${key}` : `${at}[${JSON.stringify(key)}]`);
      if (found) return found;
    }
    return undefined;
  }
  return JSON.stringify(expected) === JSON.stringify(actual) ? undefined : { at, expected, actual };
}

/**
 * One line per failed expectation: `path: expected <matcher value>, got <actual> (why)`; `got nothing`
 * when the path found nothing. An `equals` between two objects or arrays names where they first differ
 * and the two values there, so a clipped line never stops before the difference.
 */
export function expectationLine(f: ExpectationFailure, max = 200): string {
  const why = reasonLine(f.why);
  // "got nothing (nothing at this path)" says the same thing twice.
  const shownWhy = why && !(f.actual === undefined && why.startsWith('nothing')) && f.matcher !== 'length' ? ` (${why})` : '';
  const wanted = matcherValue(f);
  const nested = f.matcher === 'equals' && typeof wanted === 'object' && wanted !== null && typeof f.actual === 'object' && f.actual !== null ? firstDifference(wanted, f.actual) : undefined;
  if (nested) return `${f.path}${nested.at}: expected ${oneLine(nested.expected, max)}, got ${nested.actual === undefined ? 'nothing' : oneLine(nested.actual, max)}`;
  if (f.matcher === 'length' && Array.isArray(f.actual)) return `${f.path}: ${actualText(f, max)}`;
  return `${f.path}: expected ${expectedText(f, max)}, got ${f.actual === undefined ? 'nothing' : actualText(f, max)}${shownWhy}`;
}

/**
 * A root cause for people: its first case's own text (the error, the invariant's or problem's first line,
 * the expectation's difference), never the normalised key the causes are grouped by, whose placeholders
 * (`#`, `…`) stand for what varies between cases and mean nothing to a reader.
 */
export function causeText(cause: RootCause): string {
  // With a reason, the values are clipped shorter so the reason (a schema problem, say) fits a headline.
  const e = cause.example;
  switch (cause.kind) {
    case 'expectation':
      return e.path !== undefined && e.matcher !== undefined ? `expectation ${expectationLine({ path: e.path, matcher: e.matcher, expected: e.expected, ok: false, ...(e.actual !== undefined && { actual: e.actual }), ...(e.why !== undefined && { why: e.why }) } as ExpectationFailure, e.why !== undefined ? 40 : 120)}` : firstLine(e.detail);
    case 'invariant':
      // The key starts `invariant <id>:`; the example's detail is that invariant's own words.
      return `${cause.key.slice(0, cause.key.indexOf(':') + 1)} ${firstLine(e.detail)}`;
    case 'errored':
      return `errored: ${firstLine(e.detail)}`;
    default:
      return firstLine(e.detail);
  }
}

/** The cause keys of a case (harness/report/root-causes.ts), the same keys `root_causes` groups by. */
export function causeKeys(c: ReportCase): string[] {
  return sightings(c).map((s) => s.key);
}

/**
 * A case's own words for each of its cause keys: what a grouped headline says, with this case's values
 * where the key has placeholders (`…`, `#`) for what varies between cases. For the outputs that list one
 * case's causes (junit's failure body, `diff`).
 */
export function caseCauseTexts(c: ReportCase): Record<string, string> {
  return Object.fromEntries(sightings(c).map((s) => [s.key, causeText({ ...s, count: 1, cases: [c.id] })]));
}

/** A property's own words for each of its cause keys, as {@link caseCauseTexts}. */
export function propertyCauseTexts(p: ReportProperty): Record<string, string> {
  return Object.fromEntries(propertySightings(p).map((s) => [s.key, causeText({ ...s, count: 1, cases: [p.id] })]));
}

/** The cause keys of a property: its counterexample read as if it were a case. */
export function propertyCauseKeys(p: ReportProperty): string[] {
  return propertySightings(p).map((s) => s.key);
}

function propertySightings(p: ReportProperty): ReturnType<typeof sightings> {
  const ce = p.counterexample;
  return sightings({
    id: p.id,
    status: p.status,
    rules: p.rules,
    ...((p.reason ?? ce?.reason) !== undefined && { reason: p.reason ?? ce?.reason }),
    failures: ce?.failures ?? [],
    invariants: ce?.invariants ?? [],
    problems: [],
  }, true);
}

/**
 * Characters that XML 1.0 does not allow at all (not even as `&#n;`) and that HTML treats as parse
 * errors: C0 controls except tab, line feed and carriage return, DEL and the C1 controls, the
 * non-characters U+FFFE and U+FFFF, and UTF-16 surrogates that are not part of a pair.
 */
const UNSAFE = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** Replaces each unsafe character by a visible `\uXXXX`, so nothing is lost and the output stays valid. */
export function visibleControls(text: string): string {
  return text.replace(UNSAFE, (ch) => `\\u${ch.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`);
}

/** Text content of an XML element. */
export function xmlText(text: string): string {
  return visibleControls(text).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** An XML attribute value (for double quotes); line breaks and tabs are kept as character references. */
export function xmlAttr(text: string): string {
  return xmlText(text).replace(/"/g, '&quot;').replace(/\n/g, '&#10;').replace(/\r/g, '&#13;').replace(/\t/g, '&#9;');
}

/** Text or a double- or single-quoted attribute value in HTML. */
export function html(text: string | number): string {
  return visibleControls(String(text)).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

/**
 * An HTML id (and fragment) for a thing of some kind: `case-<id>`, `rule-<id>`. Characters outside
 * `[A-Za-z0-9_-]` are spelled as `.XX` hex codes, so distinct names give distinct ids and a fragment
 * needs no escaping.
 */
export function anchor(kind: string, name: string): string {
  return `${kind}-${Array.from(name, (ch) => (/[A-Za-z0-9_-]/.test(ch) ? ch : `.${ch.codePointAt(0)!.toString(16)}`)).join('')}`;
}

/** Markdown inline code that survives backticks in the text. */
export function mdCode(text: string): string {
  const clean = visibleControls(text).replace(/\r?\n/g, ' ');
  const longest = Math.max(0, ...(clean.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(longest + 1);
  return longest === 0 && clean !== '' ? `${fence}${clean}${fence}` : `${fence} ${clean} ${fence}`;
}

/** Plain Markdown text: characters that would start markup or raw HTML are escaped, and it stays on one line. */
export function mdText(text: string): string {
  return visibleControls(text)
    .replace(/\r?\n/g, ' ')
    .replace(/[\\`*_[\]{}<>|#!~]/g, (ch) => `\\${ch}`)
    .replace(/&/g, '&amp;');
}

/** `1 case`, `2 cases`. */
export const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;

/**
 * The signal that interrupted the run, when report.json says the run was cut short (the optional
 * `interrupted` field); read loosely so reports from before the field existed work too.
 */
export function interruptedBy(report: Report): string | undefined {
  const value = (report as { interrupted?: unknown }).interrupted;
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** Implementation name and version, as the report states them. */
export function implementationName(report: Report): string {
  return `${report.implementation.name} ${report.implementation.version}`;
}
