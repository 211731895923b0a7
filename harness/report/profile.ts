/**
 * The profile a run judged: what the implementation declares, what was skipped because of it, and
 * which rules nothing exercised. A verdict is only as wide as its profile: "MUST pass" for an
 * implementation that declares no feature says nothing about the hundred cases that never ran, so
 * every output shows the profile beside the verdict (docs/reports.md, "Profile").
 */
import type { Description } from '../../schemas/adapter.ts';
import type { Level } from '../case-file/index.ts';

/**
 * Why something was skipped, read from the reason the planner or the property runner gave:
 * `undeclared` (a feature, an optional ward or a sandbox language the implementation does not declare),
 * `transport` (the case is about another crystal transport than the run's), `refused` (the
 * implementation refused to construct the setup of a case not about construction: the case could not
 * run, with the implementation's reason), `other` (a step the implementation cannot express, a property
 * no generated scenario applied to).
 */
export type SkipKind = 'undeclared' | 'transport' | 'refused' | 'other';

export interface LevelSkips {
  /** Cases of the level skipped. */
  cases: number;
  /** Properties of the level skipped. */
  properties: number;
  /** The same skips (cases and properties) by kind. */
  undeclared: number;
  transport: number;
  /** Cases whose setup the implementation refused to construct (each with its reason in the case). */
  refused: number;
  other: number;
}

/**
 * `core`: the implementation declares no feature at all, so only what needs none was judged (whether or
 * not the filter reached anything that needs one); `partial`: it declares some features, and something
 * was skipped for a feature, ward or sandbox language it does not declare; `full`: it declares features
 * and nothing was skipped for one it does not declare.
 */
export type ProfileName = 'full' | 'partial' | 'core';

/** The profiles from narrowest to widest: `--require` asks for one of them or a wider one. */
export const PROFILE_ORDER: readonly ProfileName[] = ['core', 'partial', 'full'];

/** Whether a run's profile `actual` is at least `required` (core < partial < full). */
export function profileMeets(actual: ProfileName, required: ProfileName): boolean {
  return PROFILE_ORDER.indexOf(actual) >= PROFILE_ORDER.indexOf(required);
}

export interface Profile {
  name: ProfileName;
  /** The features the implementation declares (describe().features). */
  features: string[];
  /** The optional wards it declares (describe().wards). */
  wards: string[];
  /** Its sandbox language, when it has a code sandbox. */
  sandbox_language?: string;
  /** What the skipped cases and properties needed and the implementation does not declare: feature and ward names, `sandbox <language>`. */
  undeclared: string[];
  skipped: Record<Level, LevelSkips>;
  /** Rules in the catalog. */
  rules_total: number;
  /** Rules that no case or property exercised in this run (rolled-up status `skipped` or `untested`). */
  rules_not_exercised: string[];
}

interface Skippable {
  level: Level;
  status: string;
  reason?: string;
}

/** The kind of a skip, and what it needed, from the reason text the kit itself wrote (harness/plan/plan.ts, harness/properties/run-properties.ts). */
export function skipKind(reason: string | undefined): { kind: SkipKind; needs: string[] } {
  const text = reason ?? '';
  const listed = /^(?:feature|ward) not declared: ([^(]*)/.exec(text);
  if (listed) return { kind: 'undeclared', needs: listed[1]!.split(',').map((s) => s.trim()).filter(Boolean) };
  if (text.startsWith('sandbox language:')) {
    const languages = /^sandbox language: the (?:case|properties) scripts? (.+?), the implementation/.exec(text);
    return { kind: 'undeclared', needs: (languages?.[1]?.split(', ') ?? ['code']).map((l) => `sandbox ${l}`) };
  }
  if (/^crystal transport not declared|^the case is about the .* transport/.test(text)) return { kind: 'transport', needs: [] };
  // harness/drive/refused-setup.ts: a construction refused in a case that does not judge the refusal.
  if (text.startsWith('not run: the implementation refused to construct')) return { kind: 'refused', needs: [] };
  return { kind: 'other', needs: [] };
}

const LEVELS: readonly Level[] = ['MUST', 'SHOULD', 'MAY'];

export function buildProfile(description: Description, cases: readonly Skippable[], properties: readonly Skippable[], rules: readonly { id: string; status: string }[]): Profile {
  const skipped = Object.fromEntries(LEVELS.map((l) => [l, { cases: 0, properties: 0, undeclared: 0, transport: 0, refused: 0, other: 0 }])) as Record<Level, LevelSkips>;
  const undeclared = new Set<string>();
  const count = (item: Skippable, what: 'cases' | 'properties'): void => {
    if (item.status !== 'skipped') return;
    const { kind, needs } = skipKind(item.reason);
    skipped[item.level][what]++;
    skipped[item.level][kind]++;
    needs.forEach((n) => undeclared.add(n));
  };
  cases.forEach((c) => count(c, 'cases'));
  properties.forEach((p) => count(p, 'properties'));
  const features = [...description.features];
  const anyUndeclared = LEVELS.some((l) => skipped[l].undeclared > 0);
  return {
    // No feature declared is core even when nothing was skipped (a filter that reached only core cases): never "full (no feature declared)".
    name: features.length === 0 ? 'core' : anyUndeclared ? 'partial' : 'full',
    features,
    wards: [...(description.wards ?? [])],
    ...(description.sandbox?.language !== undefined && { sandbox_language: description.sandbox.language }),
    undeclared: [...undeclared].sort(),
    skipped,
    rules_total: rules.length,
    rules_not_exercised: rules.filter((r) => r.status === 'skipped' || r.status === 'untested').map((r) => r.id),
  };
}

/** Everything skipped at a level (cases and properties). */
export const skippedAt = (s: LevelSkips): number => s.cases + s.properties;

/**
 * `100 skipped: 98 for undeclared features, 2 about another transport`; empty when nothing was
 * skipped. Used by the console, report.md, summary.md and report.html alike.
 */
export function skipNote(s: LevelSkips): string {
  const total = skippedAt(s);
  if (total === 0) return '';
  const parts = [
    s.undeclared > 0 ? `${s.undeclared} for undeclared features` : '',
    s.transport > 0 ? `${s.transport} about another crystal transport` : '',
    s.refused > 0 ? `${s.refused} whose setup the implementation refused (its reason is in each case)` : '',
    s.other > 0 ? `${s.other} for other reasons` : '',
  ].filter(Boolean);
  const counted = [s.cases > 0 ? `${s.cases} ${s.cases === 1 ? 'case' : 'cases'}` : '', s.properties > 0 ? `${s.properties} ${s.properties === 1 ? 'property' : 'properties'}` : ''].filter(Boolean).join(' and ');
  return `${counted} skipped: ${parts.join(', ')}`;
}

/** Why things were skipped at a level, without the count: `98 for undeclared features, …`; empty when nothing was. */
export function skipReasons(s: LevelSkips): string {
  return skipNote(s).replace(/^[^:]*: /, '');
}

/** How the profile is named to a person: `core (no feature declared)`, `partial (4 features declared; missing: fork, …)`, `full (15 features declared)`. */
export function profileText(p: Profile, maxMissing = 6): string {
  const declared = p.features.length === 0 ? 'no feature declared' : `${p.features.length} ${p.features.length === 1 ? 'feature' : 'features'} declared`;
  if (p.name === 'full') return `full (${declared})`;
  const missing = p.undeclared.length > maxMissing ? `${p.undeclared.slice(0, maxMissing).join(', ')} and ${p.undeclared.length - maxMissing} more` : p.undeclared.join(', ');
  return `${p.name} (${declared}; not declared: ${missing})`;
}

/**
 * `21 of 67 rules not exercised`; with `list`, the ids follow when there are at most that many; with
 * `draft` (its name, `Cantrip 0.3.1 (0c876ea)`), whose rules they are: `21 of 79 rules of Cantrip 0.3.1
 * (0c876ea) not exercised`.
 */
export function notExercisedText(p: Profile, list = 0, draft?: string): string {
  const n = p.rules_not_exercised.length;
  const ids = n > 0 && n <= list ? ` (${p.rules_not_exercised.join(', ')})` : '';
  return `${n} of ${p.rules_total} rules${draft !== undefined ? ` of ${draft}` : ''} not exercised${ids}`;
}
