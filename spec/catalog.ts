/**
 * The rule catalog of draft 0.1.0 (`spec/rules.yaml`) as typed data: loaded with `yaml`, validated against
 * `schemas/rules-catalog.schema.json`, then checked for what a schema cannot say (unique ids, known
 * references, the canonical id list, levels consistent with clauses). Every problem names the file,
 * the line and column when known, and what is wrong. The catalogs of later drafts share the shape and
 * the reading code ({@link parseCatalogWith}); `spec/drafts.ts` loads them through the draft registry.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Feature } from '../schemas/adapter.ts';
import { readCheckedYaml } from './yaml-document.ts';

/** Obligation level; a MUST NOT counts as MUST. */
export type RuleLevel = 'MUST' | 'SHOULD' | 'MAY';

/** How the kit can observe a rule: through an adapter, only by inspecting an implementation, or not at all. */
export type Testability = 'behavioral' | 'structural' | 'not-observable';

/**
 * Features a draft's rules belong to that no adapter can declare yet (not in `FEATURES` of
 * `schemas/adapter.ts`). None today: `acp` (PROD-6, PROD-7) became an adapter feature once the kit
 * could drive an implementation as an ACP client (harness/adapters/acp/). A case cannot require one
 * until the adapter interface lists it.
 */
export const CATALOG_ONLY_FEATURES = [] as const;

/** `core` for rules every implementation must meet, otherwise the optional feature the rule belongs to. */
export type RuleFeature = 'core' | Feature | (typeof CATALOG_ONLY_FEATURES)[number];

/**
 * How a rule differs from its counterpart in an earlier draft: `same` (nothing), `renamed` (a new id or
 * renamed terms only), `reworded` (other words, same requirements), `amended` (a detail of what is asked
 * changed at the same level), `level-changed` (see {@link LevelChange}), `reversed` (what was required
 * or forbidden is now allowed, or the opposite), `new` (no counterpart in that draft).
 */
export type ChangeKind = 'same' | 'renamed' | 'reworded' | 'amended' | 'level-changed' | 'reversed' | 'new';

/** One obligation of a rule whose level moved between two drafts. */
export interface LevelChange {
  /** Which part, in our words ("the whole rule" when the rule has one level). */
  part: string;
  from: RuleLevel;
  to: RuleLevel;
}

/** A rule's counterpart in one earlier draft (none when `changes` is `['new']`). */
export interface LineageEntry {
  /** The earlier draft's version, e.g. `0.1.0`. */
  draft: string;
  /** The counterpart's id in that draft; absent for a rule new since then. */
  id?: string;
  changes: ChangeKind[];
  /** Present exactly when `changes` holds `level-changed`. */
  level_changes?: LevelChange[];
  note?: string;
}

/** A rule of an earlier draft with no counterpart in this catalog's draft. */
export interface RemovedRule {
  draft: string;
  id: string;
  note: string;
}

/** The rule ids of draft 0.1.0, in catalog order (family by family, numbers ascending). */
export const RULE_IDS = [
  'LOOP-1', 'LOOP-2', 'LOOP-3', 'LOOP-4', 'LOOP-5', 'LOOP-6',
  'CANTRIP-1', 'CANTRIP-2', 'CANTRIP-3',
  'INTENT-1', 'INTENT-2', 'INTENT-3',
  'ENTITY-1', 'ENTITY-2', 'ENTITY-3', 'ENTITY-4', 'ENTITY-5', 'ENTITY-6',
  'CRYSTAL-1', 'CRYSTAL-2', 'CRYSTAL-3', 'CRYSTAL-4', 'CRYSTAL-5', 'CRYSTAL-6',
  'CALL-1', 'CALL-2', 'CALL-3', 'CALL-4', 'CALL-5',
  'CIRCLE-1', 'CIRCLE-2', 'CIRCLE-3', 'CIRCLE-4', 'CIRCLE-5', 'CIRCLE-6',
  'CIRCLE-7', 'CIRCLE-8', 'CIRCLE-9', 'CIRCLE-10', 'CIRCLE-11',
  'WARD-1',
  'COMP-1', 'COMP-2', 'COMP-3', 'COMP-4', 'COMP-5', 'COMP-6', 'COMP-7', 'COMP-8', 'COMP-9',
  'LOOM-1', 'LOOM-2', 'LOOM-3', 'LOOM-4', 'LOOM-5', 'LOOM-6',
  'LOOM-7', 'LOOM-8', 'LOOM-9', 'LOOM-10', 'LOOM-11', 'LOOM-12',
  'PROD-1', 'PROD-2', 'PROD-3', 'PROD-4', 'PROD-5',
] as const;

/** One of {@link RULE_IDS}. */
export type RuleId = (typeof RULE_IDS)[number];

/** One part of a rule that mixes levels (e.g. PROD-2: a MUST part and a SHOULD part). */
export interface RuleClause {
  level: RuleLevel;
  summary: string;
  /** Set when this part is observed differently from the rule as a whole. */
  testability?: Testability;
  testability_note?: string;
}

/** One numbered rule of the spec, as the catalog describes it. `Id` is the draft's id type (0.1.0 by default). */
export interface Rule<Id extends string = RuleId> {
  id: Id;
  chapter: number;
  /** Section number and heading, e.g. `1.3 Termination and truncation`. */
  section: string;
  title: string;
  /** The strongest level in the rule. */
  level: RuleLevel;
  /** Why the level was chosen when the spec states the rule without a keyword. */
  level_note?: string;
  clauses?: RuleClause[];
  summary: string;
  testability: Testability;
  /** Always present for `structural` and `not-observable` rules. */
  testability_note?: string;
  feature: RuleFeature;
  depends_on?: Id[];
  /** Later drafts only: the counterpart in each earlier draft. */
  lineage?: LineageEntry[];
}

/** The whole catalog file. */
export interface Catalog<Id extends string = RuleId> {
  /** The version as the draft's text states it, e.g. `0.1.0-draft`, `0.3.1`. */
  spec_version: string;
  /** Upstream commit of the draft's text. */
  spec_commit?: string;
  format_version: number;
  rules: Rule<Id>[];
  /** Later drafts only: rules of earlier drafts with no counterpart here. */
  removed?: RemovedRule[];
}

/** A malformed catalog: `problems` holds one line per finding, each starting with `file:line:col`. */
export class CatalogError extends Error {
  constructor(
    readonly file: string,
    readonly problems: string[],
  ) {
    super(`${file}: the rule catalog is malformed:\n${problems.map((p) => `  ${p}`).join('\n')}`);
    this.name = 'CatalogError';
  }
}

/** Where the packaged catalog lives. */
export const CATALOG_FILE = fileURLToPath(new URL('./rules.yaml', import.meta.url));

const LEVEL_RANK: Record<RuleLevel, number> = { MUST: 3, SHOULD: 2, MAY: 1 };
const ID_SET: ReadonlySet<string> = new Set(RULE_IDS);

/** True when `value` is one of the draft's rule ids. */
export function isRuleId(value: unknown): value is RuleId {
  return typeof value === 'string' && ID_SET.has(value);
}

/**
 * Parses and checks the 0.1.0 catalog text. `file` only labels error messages. Throws {@link CatalogError}
 * listing every problem found, each with its position in the file.
 */
export function parseCatalog(text: string, file = '<catalog>'): Catalog {
  return parseCatalogWith<RuleId>(text, file, semanticProblems);
}

/** A problem a semantic check found: where in the document (a path of keys and indexes) and what. */
export type Finding = { path: (string | number)[]; message: string };

/**
 * Parses catalog text of any draft: YAML, then the rules-catalog schema, then `check` for what the
 * schema cannot say. Throws {@link CatalogError} listing every problem with `file:line:col`.
 */
export function parseCatalogWith<Id extends string>(
  text: string,
  file: string,
  check: (catalog: Catalog<Id>) => Finding[],
): Catalog<Id> {
  const { value, problems, where } = readCheckedYaml(text, file, 'rules-catalog');
  if (problems.length > 0) throw new CatalogError(file, problems);
  const catalog = value as Catalog<Id>;
  const findings = check(catalog).map(({ path, message }) => `${where(path)}: ${message}`);
  if (findings.length > 0) throw new CatalogError(file, findings);
  return catalog;
}

/** Reads and checks a catalog file; without an argument, the packaged `spec/rules.yaml` (cached). */
export function loadCatalog(file?: string): Catalog {
  if (file === undefined) {
    cached ??= parseCatalog(readFileSync(CATALOG_FILE, 'utf8'), CATALOG_FILE);
    return cached;
  }
  return parseCatalog(readFileSync(file, 'utf8'), file);
}
let cached: Catalog | undefined;

/** The rule with this id from `catalog` (the packaged one by default). Throws on an unknown id. */
export function ruleById(id: string, catalog: Catalog = loadCatalog()): Rule {
  const rule = catalog.rules.find((r) => r.id === id);
  if (!rule) throw new Error(`unknown rule id '${id}': the catalog (spec ${catalog.spec_version}) has no such rule`);
  return rule;
}

/** The spec chapter that states rule `id` (1 = the loop ... 7 = production). Throws on an unknown id. */
export function chapterOf(id: string, catalog: Catalog = loadCatalog()): number {
  return ruleById(id, catalog).chapter;
}

/** The strongest of some levels (MUST > SHOULD > MAY). */
export function strongestLevel(levels: readonly RuleLevel[]): RuleLevel | undefined {
  let best: RuleLevel | undefined;
  for (const level of levels) if (!best || LEVEL_RANK[level] > LEVEL_RANK[best]) best = level;
  return best;
}

/** Checks the schema-valid 0.1.0 catalog for what JSON Schema cannot express. */
function semanticProblems(catalog: Catalog): Finding[] {
  const found: Finding[] = [];
  if (catalog.spec_version !== '0.1.0-draft') {
    found.push({ path: ['spec_version'], message: `spec_version is ${catalog.spec_version}, but this is the catalog of 0.1.0-draft` });
  }
  const seen = ruleShapeProblems(catalog, ID_SET, '0.1.0-draft', found);
  const ids = catalog.rules.map((r) => r.id);
  const missing = RULE_IDS.filter((id) => !seen.has(id));
  if (missing.length > 0) found.push({ path: ['rules'], message: `missing rules: ${missing.join(', ')}` });
  else if (ids.length === RULE_IDS.length && ids.some((id, k) => id !== RULE_IDS[k])) {
    const k = ids.findIndex((id, n) => id !== RULE_IDS[n]);
    found.push({ path: ['rules', k, 'id'], message: `rules out of catalog order: expected ${RULE_IDS[k]} at rules[${k}], found ${ids[k]}` });
  }
  return found;
}

/**
 * Checks every draft's catalog shares: unique ids from `known`, section within chapter, level equal
 * to the strongest clause, depends_on naming other known rules. Appends to `found`; returns id -> index.
 */
export function ruleShapeProblems(
  catalog: Catalog<string>,
  known: ReadonlySet<string>,
  draft: string,
  found: Finding[],
): Map<string, number> {
  const seen = new Map<string, number>();
  catalog.rules.forEach((rule, i) => {
    const at = (...rest: (string | number)[]) => ['rules', i, ...rest];
    const first = seen.get(rule.id);
    if (first !== undefined) found.push({ path: at('id'), message: `duplicate id ${rule.id} (first at rules[${first}])` });
    else seen.set(rule.id, i);
    if (!known.has(rule.id)) found.push({ path: at('id'), message: `${rule.id} is not a rule of draft ${draft}` });
    if (rule.section.split(/[. ]/)[0] !== String(rule.chapter)) {
      found.push({ path: at('section'), message: `section '${rule.section}' is not in chapter ${rule.chapter}` });
    }
    if (rule.clauses) {
      const strongest = strongestLevel(rule.clauses.map((c) => c.level));
      if (strongest !== rule.level) {
        found.push({ path: at('level'), message: `${rule.id}: level ${rule.level} but its strongest clause is ${strongest}` });
      }
    }
    rule.depends_on?.forEach((dep, j) => {
      if (dep === rule.id) found.push({ path: at('depends_on', j), message: `${rule.id} depends on itself` });
      else if (!known.has(dep)) found.push({ path: at('depends_on', j), message: `${rule.id} depends on unknown rule ${dep}` });
    });
  });
  return seen;
}

/** `/rules/3/id` -> ['rules', 3, 'id']. */
