/**
 * Root causes: failures that share one cause are one problem. Every failing or errored case is broken
 * down into causes — one per failed expectation, per problem found while driving, or its error; a case
 * that could not run shows only that — each with the parts that vary from case to case (turn ids, array
 * indices, action and crystal names, numbers) taken out. Cases with the same cause key form one group;
 * the report lists the groups, most cases first (docs/reports.md, "Root causes"). Ambient invariants
 * are not a case's causes: they are judged once per run (harness/report/ambient-checks.ts).
 */
import { byRuleOrder } from '../../spec/drafts.ts';
import { normaliseText } from '../values/index.ts';
import { normalisePointer, parseCauseKey, problemsInText, rulesForProblem, schemaCause } from '../judge/index.ts';

/** What a case result must carry to be grouped (a `CaseResult` or a report.json case both do). */
export interface CaseFailures {
  id: string;
  status: string;
  rules: string[];
  /** The rules the case shows broken, when known: a driving problem is blamed on these. */
  failed_rules?: string[];
  reason?: string;
  failures: { path: string; matcher: string; expected: unknown; actual?: unknown; why?: string; rule?: string; consequence?: boolean }[];
  invariants: { id: string; rules: string[]; status: string; detail?: string; cause?: string }[];
  problems: string[];
}

export type RootCauseKind = 'invariant' | 'expectation' | 'problem' | 'errored';

/** One case's instance of a cause, for the reader to look at. */
export interface RootCauseExample {
  case: string;
  /** For an invariant, a driving problem or an error: the text, clipped. */
  detail?: string;
  /** For an expectation: what it checked and what it found. */
  path?: string;
  matcher?: string;
  expected?: unknown;
  actual?: unknown;
  why?: string;
}

/** One problem and the cases that show it. */
export interface RootCause {
  /** The cause key: what differed, with case-specific parts normalised away. */
  key: string;
  kind: RootCauseKind;
  /** The rules the problem is attributed to, in catalog order (may be empty when only a section applies). */
  rules: string[];
  /** The spec section that describes what failed, when the cause is a schema requirement. */
  section?: string;
  /** How many cases show it (the length of `cases`). */
  count: number;
  /** The ids of those cases, in run order. */
  cases: string[];
  /** The first case's instance. */
  example: RootCauseExample;
}

/** Case statuses whose causes are grouped: failures and errors, not expected failures. */
export const GROUPED_STATUSES: readonly string[] = ['fail', 'errored'];

/** The schema an ambient invariant validates against, to read its problems back from `detail`. */
const SCHEMA_OF_INVARIANT: Record<string, string> = { 'turn-schema': 'turn', 'request-schema': 'crystal-request' };

const MAX_DETAIL = 600;
const clipText = (text: string, max = MAX_DETAIL): string => (text.length > max ? `${text.slice(0, max)}…` : text);

const jsonType = (v: unknown): string => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);
/** A value that reads as one of a few named states (`terminated`, `true`, `null`), not as data. */
const stateLike = (v: unknown): boolean => v === null || typeof v === 'boolean' || (typeof v === 'string' && /^[a-z][a-z_]{0,31}$/.test(v));
const shown = (v: unknown): string => (stateLike(v) ? JSON.stringify(v) : jsonType(v));

/**
 * The shape of a failed expectation's difference: for `equals` between named states, the two states
 * (`"terminated" → "truncated"`); otherwise the matcher's own explanation with numbers taken out.
 */
export function expectationShape(f: CaseFailures['failures'][number]): string {
  const wanted = typeof f.expected === 'object' && f.expected !== null ? (f.expected as Record<string, unknown>)[f.matcher] : f.expected;
  if (f.actual !== undefined && f.matcher === 'equals' && (stateLike(wanted) || stateLike(f.actual))) return `${shown(wanted)} → ${shown(f.actual)}`;
  return normaliseText((f.why ?? (f.actual === undefined ? 'nothing at this path' : 'values differ')).split('\n')[0]!);
}

interface Sighting {
  key: string;
  kind: RootCauseKind;
  rules: string[];
  section?: string;
  example: RootCauseExample;
}

/** The cause lines of a failed invariant: its own `cause`, else what its `detail` says, normalised. */
export function invariantCauses(inv: CaseFailures['invariants'][number]): string[] {
  if (inv.cause?.trim()) return inv.cause.split('\n').map((l) => l.trim()).filter(Boolean);
  const detail = inv.detail ?? '';
  const problems = problemsInText(detail);
  if (problems.length > 0) {
    const schema = SCHEMA_OF_INVARIANT[inv.id];
    if (schema) return schemaCause(schema, problems).split('\n');
    return [...new Set(problems.map((p) => `${normalisePointer(p.pointer)} [${p.keyword}]`))].sort();
  }
  const first = detail.split('\n').find((l) => l.trim() !== '') ?? '(no detail)';
  return [normaliseText(first, { label: true })];
}

/**
 * For a schema cause line, the detail's header and the one problem line behind it. When the detail
 * does not show that problem (it quotes only the first failing record), the cause line itself: the
 * example must be of this cause, never the text of another problem of the same check.
 */
export function exampleDetail(detail: string | undefined, line: string): string {
  const text = detail ?? '';
  const parsed = parseCauseKey(line);
  if (!parsed) return clipText(text);
  const lines = text.split('\n');
  const match = lines.find((l) => {
    const [p] = problemsInText(l);
    return p !== undefined && normalisePointer(p.pointer) === parsed.pointer && p.keyword === parsed.keyword;
  });
  return clipText(match ? `${lines[0]!.trim()} ${match.trim()}` : line);
}

/**
 * The run record's roots whose next segment is a name the case chose (an action's `as`, a crystal, a gate,
 * a thread or snapshot label), and the loom helpers whose argument is one.
 */
const NAMED_ROOT = /^(outcomes|errors|failures|entities|forks|mutations|threads|snapshots|exports|logs|cantrips|requests|replies|after_outcome|concurrency|wire_waits|gates|acp_sessions|acp_prompts)\.[^.[\s]+/;
const NAMED_HELPER = /\.(cast|entity|spawned|appended)\([^()]*\)/g;

/**
 * The loom's root, the turn that records the call (identity), read through any of its addresses: by its
 * role, as a turn with no parent, or as the first turn of a thread. One defect of that record (a field it
 * lacks) is then one cause, however each case reaches the record (issue 31: one defect, one rule).
 */
const LOOM_ROOT_READ = /^(?:loom\.turns\[(?:role=(?:call|identity)|parent_id=null)\](?:\[0\])?|threads\.[^.[\s]+\[0\])(?=$|[.[])/;

/**
 * A path with what one case names differently from another taken out: the action, crystal or gate name
 * after a root, a loom helper's argument, and each index (`outcomes.first.usage` and `outcomes.r1.usage`,
 * `loom.cast(a)[1]` and `loom.cast(b)[0]`, read the same part of a run). Filters (`[role=user]`) and
 * `[*]` say which part, and stay.
 */
export function normaliseExpectationPath(path: string): string {
  return path
    .trim()
    .replace(LOOM_ROOT_READ, 'loom.root')
    .replace(NAMED_ROOT, (m) => `${m.slice(0, m.indexOf('.'))}.…`)
    .replace(NAMED_HELPER, (_m, helper: string) => `.${helper}(…)`)
    .replace(/\[-?\d+\]/g, '[#]');
}

/**
 * What a case's expectation failure groups under: the part of the run it read (its path normalised), the
 * matcher, and the difference. The value asked for is the case's own data (a usage its script served, an
 * intent it gave): only a named state (`terminated`, `true`, `null`) is kept, and otherwise its type, so
 * one wrong usage record across ten cases with ten different scripted numbers is one cause, not ten.
 */
function expectationKey(failure: CaseFailures['failures'][number]): string {
  const f = elementwise(failure);
  const shape = expectationShape(f);
  const wanted = typeof f.expected === 'object' && f.expected !== null ? (f.expected as Record<string, unknown>)[f.matcher] : f.expected;
  const value = stateLike(wanted) ? JSON.stringify(wanted) : `<${jsonType(wanted)}>`;
  // Named states already show both sides in the difference.
  const asked = shape.includes('→') ? '' : ` ${value}`;
  return `expectation ${normaliseExpectationPath(f.path)} ${f.matcher}${asked}: ${shape}`;
}

/**
 * An `every` failure read as its element's: `loom.turns[role=call] every { holds: x }` failing at one
 * element is the same cause as `loom.turns[role=call][0] holds x` failing.
 */
function elementwise(f: CaseFailures['failures'][number]): CaseFailures['failures'][number] {
  if (f.matcher !== 'every' || typeof f.expected !== 'object' || f.expected === null) return f;
  const inner = (f.expected as Record<string, unknown>)['every'];
  if (typeof inner !== 'object' || inner === null || Array.isArray(inner) || Object.keys(inner).length !== 1) return f;
  const [matcher] = Object.keys(inner);
  const why = f.why?.replace(/^element \[\d+\]: /, '');
  return { path: `${f.path}[0]`, matcher: matcher!, expected: inner, ...(why !== undefined && { why }) };
}

/**
 * Every cause one case shows, each once. A case that could not run (errored) or whose run left its
 * script (a driving problem: a construction refused, a turn reference that found nothing, the crystal
 * asked past its script) shows that cause: its expectations then read a run that is not the case's,
 * and their failures ("nothing at this path" and the like) are symptoms.
 * Ambient invariants are judged once per run (harness/report/ambient-checks.ts), not as a case's
 * causes; `withInvariants` counts them, for a property, which judges its own invariants.
 */
export function sightings(c: CaseFailures, withInvariants = false): Sighting[] {
  const out: Sighting[] = [];
  if (c.status === 'errored') {
    const reason = c.reason ?? '(no reason given)';
    out.push({ key: `errored: ${normaliseText(reason.split('\n')[0]!)}`, kind: 'errored', rules: c.rules, example: { case: c.id, detail: clipText(reason) } });
  }
  // A driving problem means the run left its script (its actions stopped, or the crystal was asked
  // past its script): the expectations that read what it departed are symptoms. A failure marked
  // `consequence: false` read nothing the departure touched and is a cause of its own; an unmarked one
  // under a problem comes from a report written before failures were marked, and stays a symptom.
  const symptom = (f: CaseFailures['failures'][number]): boolean => c.status === 'errored' || f.consequence === true || (c.problems.length > 0 && f.consequence === undefined);
  for (const f of c.failures.filter((x) => !symptom(x))) {
    out.push({
      key: expectationKey(f),
      kind: 'expectation',
      rules: f.rule !== undefined ? [f.rule] : c.rules,
      example: { case: c.id, path: f.path, matcher: f.matcher, expected: f.expected, ...(f.actual !== undefined && { actual: f.actual }), ...(f.why !== undefined && { why: f.why }) },
    });
  }
  for (const inv of withInvariants ? c.invariants.filter((i) => i.status === 'fail') : []) {
    for (const line of invariantCauses(inv)) {
      const parsed = parseCauseKey(line);
      const attributed = parsed ? rulesForProblem(parsed.schema, parsed) : undefined;
      out.push({
        key: `invariant ${inv.id}: ${line}`,
        kind: 'invariant',
        // A schema cause names its own rules; any other cause carries the invariant's.
        rules: attributed && (attributed.rules.length > 0 || attributed.section) ? attributed.rules : inv.rules,
        ...(attributed?.section && { section: attributed.section }),
        example: { case: c.id, detail: exampleDetail(inv.detail, line) },
      });
    }
  }
  // A driving problem is blamed on the case's failed rules, less those only its still-judged failures show broken.
  const judgedOnly = new Set(c.failures.filter((f) => f.consequence === false).flatMap((f) => (f.rule === undefined ? [] : [f.rule])));
  const faultRules = (c.failed_rules ?? []).filter((r) => !judgedOnly.has(r));
  const problemRules = faultRules.length > 0 ? faultRules : c.failed_rules && c.failed_rules.length > 0 ? c.failed_rules : c.rules;
  for (const p of c.problems) out.push({ key: `problem: ${normaliseText(p.split('\n')[0]!)}`, kind: 'problem', rules: problemRules, example: { case: c.id, detail: clipText(p) } });
  const seen = new Set<string>();
  return out.filter((s) => !seen.has(s.key) && seen.add(s.key));
}

/**
 * Groups the causes of every failing or errored case; most cases first, then by key. Each group's
 * example is one of its own cases' instances (the first). `draft` is the draft whose rule ids the cases
 * carry (a report's judged draft): each group's rules are listed in that draft's catalog order.
 */
export function rootCauses(cases: readonly CaseFailures[], draft = '0.1.0'): RootCause[] {
  const byCatalog = byRuleOrder(draft);
  const groups = new Map<string, RootCause & { ruleSet: Set<string> }>();
  for (const c of cases) {
    if (!GROUPED_STATUSES.includes(c.status)) continue;
    for (const s of sightings(c)) {
      let g = groups.get(s.key);
      if (!g) {
        g = { key: s.key, kind: s.kind, rules: [], ...(s.section && { section: s.section }), count: 0, cases: [], example: s.example, ruleSet: new Set() };
        groups.set(s.key, g);
      }
      g.cases.push(c.id);
      g.count++;
      for (const r of s.rules) g.ruleSet.add(r);
    }
  }
  return [...groups.values()]
    .map(({ ruleSet, ...g }) => ({ ...g, rules: [...ruleSet].sort(byCatalog) }))
    .sort((a, b) => b.count - a.count || a.key.localeCompare(b.key));
}

/** How many cases show at least one of the causes. */
export function casesWithCauses(causes: readonly RootCause[]): number {
  return new Set(causes.flatMap((c) => c.cases)).size;
}
