/**
 * The registry of spec drafts (`spec/drafts.yaml`) and what hangs off it: each draft's rule catalog and
 * the map of rule ids between drafts. A draft is named by version and upstream commit and pinned by the
 * sha256 of its text; the texts themselves are not part of the project. Each later catalog says, rule
 * by rule, which rule of every earlier draft it continues (`lineage`) and lists the earlier rules it
 * drops (`removed`), so `mapRuleId('CRYSTAL-4', '0.1.0', '0.3.1')` is `LLM-4`. Adding a draft is a
 * catalog and a registry entry (spec/README.md); nothing here names a particular draft.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readCheckedYaml } from './yaml-document.ts';
import {
  CatalogError,
  parseCatalogWith,
  ruleShapeProblems,
  strongestLevel,
  type Catalog,
  type ChangeKind,
  type Finding,
  type LevelChange,
  type Rule,
  type RuleLevel,
} from './catalog.ts';

/** A draft's words for the concepts whose names moved between drafts, keyed by the 0.3.1 name. */
export interface DraftTerms {
  /** The model: `crystal` at 0.1.0, `LLM` later. */
  llm: string;
  /** System prompt plus hyperparameters: `call` at 0.1.0, `identity` later. */
  identity: string;
  /** Making a persistent entity: `invoke` at 0.1.0, `summon` later. */
  summon: string;
  /** Giving a persistent entity another intent. */
  send: string;
  /** The setting under which only done ends the loop. */
  require_done_tool: string;
  /** A circle whose medium is code. */
  code_medium: string;
}

/** One registered draft. */
export interface Draft {
  /** `major.minor.patch`, e.g. `0.3.1`; how the kit names the draft. */
  version: string;
  /** The version as the text states it (`0.1.0-draft`); the catalog's `spec_version`. */
  label: string;
  /** Abbreviated upstream commit of the text. */
  commit: string;
  /** Date of that commit, `YYYY-MM-DD`. */
  date: string;
  /** sha256 of the text, lower-case hex. */
  sha256: string;
  /** Where a copy of the text is kept, relative to the shared folder beside the repository. */
  text: string;
  /** The catalog's file name, relative to the registry's folder (spec/). */
  catalog: string;
  /** How many numbered rules the text states. */
  rule_count: number;
  terms: DraftTerms;
  /** The words its loom may write in a turn's `role`, per kind of turn ({@link TurnRoleWords}). */
  turn_roles: TurnRoleWords;
}

/**
 * The words a loom judged at a draft may write in a turn's `role` (§6.1), keyed by the kit's working
 * word for each kind of turn: `crystal` (the entity acted and the circle observed; `turn` from 0.2.0),
 * `call` (the root context; `identity` from 0.2.0), `fold` (a fold record, named by 0.1.0 only).
 */
export interface TurnRoleWords {
  crystal: string[];
  call: string[];
  fold: string[];
}

/** The kit's working word for a kind of turn: the key of {@link TurnRoleWords}. */
export type TurnKind = keyof TurnRoleWords;

/** The registry file. */
export interface DraftRegistry {
  format_version: number;
  /** Oldest first. */
  drafts: Draft[];
}

/** A draft's catalog: the shared catalog shape with that draft's rule ids (plain strings). */
export type DraftCatalog = Catalog<string>;

/** A rule of some draft's catalog. */
export type DraftRule = Rule<string>;

/**
 * What became of a rule from one draft in another. `changes` always compares the later draft's rule
 * with the earlier one's, whichever way the mapping goes; `removed` means the later draft dropped the
 * rule, `new` that the earlier draft had none.
 */
export interface Counterpart {
  /** The rule's id in the target draft; undefined when it has none there. */
  id: string | undefined;
  changes: (ChangeKind | 'removed')[];
  /** Obligations whose level differs between the two drafts (empty when none). */
  level_changes: LevelChange[];
  note?: string;
}

/** Where the packaged registry lives. */
export const REGISTRY_FILE = fileURLToPath(new URL('./drafts.yaml', import.meta.url));

/** A malformed registry: `problems` holds one line per finding, each starting with `file:line:col`. */
export class DraftRegistryError extends Error {
  constructor(
    readonly file: string,
    readonly problems: string[],
  ) {
    super(`${file}: the draft registry is malformed:\n${problems.map((p) => `  ${p}`).join('\n')}`);
    this.name = 'DraftRegistryError';
  }
}

/** Where each registry was read from, so its catalogs resolve beside it. */
const registryDirs = new WeakMap<DraftRegistry, string>();
/** Catalogs already loaded, per registry and version. */
const catalogCache = new WeakMap<DraftRegistry, Map<string, DraftCatalog>>();
/** Each draft's rule ids with their place in its catalog, for {@link byRuleOrder}. */
const orderCache = new WeakMap<DraftRegistry, Map<string, Map<string, number>>>();
let packaged: DraftRegistry | undefined;

/**
 * Parses and checks registry text: YAML, the draft-registry schema, then unique versions, labels and
 * commits, and dates in order. `file` labels messages; `dir` is where the catalogs it names live.
 * Throws {@link DraftRegistryError} listing every problem with its position.
 */
export function parseDraftRegistry(text: string, file = '<registry>', dir = dirname(REGISTRY_FILE)): DraftRegistry {
  const { value, problems, where } = readCheckedYaml(text, file, 'draft-registry');
  if (problems.length > 0) throw new DraftRegistryError(file, problems);
  const registry = value as DraftRegistry;
  const found: Finding[] = [];
  for (const key of ['version', 'label', 'commit', 'catalog'] as const) {
    const first = new Map<string, number>();
    registry.drafts.forEach((draft, i) => {
      const earlier = first.get(draft[key]);
      if (earlier !== undefined) found.push({ path: ['drafts', i, key], message: `${key} ${draft[key]} repeats drafts[${earlier}]` });
      else first.set(draft[key], i);
    });
  }
  registry.drafts.forEach((draft, i) => {
    const before = registry.drafts[i - 1];
    if (before && before.date > draft.date) {
      found.push({ path: ['drafts', i, 'date'], message: `drafts are listed oldest first, but ${draft.version} (${draft.date}) follows ${before.version} (${before.date})` });
    }
  });
  registry.drafts.forEach((draft, i) => {
    const kindOf = new Map<string, string>();
    for (const [kind, words] of Object.entries(draft.turn_roles)) {
      for (const word of words) {
        const other = kindOf.get(word);
        if (other !== undefined) found.push({ path: ['drafts', i, 'turn_roles', kind], message: `turn_roles: the role word '${word}' names both '${other}' and '${kind}' turns` });
        else kindOf.set(word, kind);
      }
    }
  });
  if (found.length > 0) throw new DraftRegistryError(file, found.map(({ path, message }) => `${where(path)}: ${message}`));
  registryDirs.set(registry, dir);
  return registry;
}

/** Reads and checks a registry file; without an argument, the packaged `spec/drafts.yaml` (cached). */
export function loadDraftRegistry(file?: string): DraftRegistry {
  if (file === undefined) {
    packaged ??= parseDraftRegistry(readFileSync(REGISTRY_FILE, 'utf8'), REGISTRY_FILE);
    return packaged;
  }
  return parseDraftRegistry(readFileSync(file, 'utf8'), file, dirname(file));
}

/** The registered versions, oldest first. */
export function draftVersions(registry: DraftRegistry = loadDraftRegistry()): string[] {
  return registry.drafts.map((d) => d.version);
}

/** The draft with this version (or label, e.g. `0.1.0-draft`). Throws naming the known versions. */
export function draftOf(version: string, registry: DraftRegistry = loadDraftRegistry()): Draft {
  const draft = registry.drafts.find((d) => d.version === version || d.label === version);
  if (!draft) throw new Error(`unknown spec draft '${version}': the registry knows ${draftVersions(registry).join(', ')}`);
  return draft;
}

/**
 * The kind of turn a `role` word names in a loom judged at `version` (registry `turn_roles`), or
 * undefined when the draft has no such word. An unknown version is read as the seed draft.
 */
export function turnKindAt(role: unknown, version: string | undefined, registry: DraftRegistry = loadDraftRegistry()): TurnKind | undefined {
  if (typeof role !== 'string') return undefined;
  const draft = registry.drafts.find((d) => d.version === version) ?? registry.drafts[0];
  if (!draft) return undefined;
  return (Object.keys(draft.turn_roles) as TurnKind[]).find((kind) => draft.turn_roles[kind].includes(role));
}

/** The newest registered draft. */
export function newestDraft(registry: DraftRegistry = loadDraftRegistry()): Draft {
  const last = registry.drafts[registry.drafts.length - 1];
  if (!last) throw new Error('the draft registry lists no draft');
  return last;
}

/** Absolute path of a draft's catalog file. */
export function catalogFileOf(version: string, registry: DraftRegistry = loadDraftRegistry()): string {
  return join(registryDirs.get(registry) ?? dirname(REGISTRY_FILE), draftOf(version, registry).catalog);
}

/**
 * The rule catalog of a draft, loaded and checked against the registry and the earlier drafts' catalogs
 * (cached per registry). Throws {@link CatalogError} with `file:line:col` for each problem found.
 */
export function catalogOf(version: string, registry: DraftRegistry = loadDraftRegistry()): DraftCatalog {
  const draft = draftOf(version, registry);
  let cache = catalogCache.get(registry);
  if (!cache) catalogCache.set(registry, (cache = new Map()));
  const hit = cache.get(draft.version);
  if (hit) return hit;
  const file = catalogFileOf(draft.version, registry);
  const index = registry.drafts.indexOf(draft);
  const earlier = registry.drafts.slice(0, index).map((d) => ({ draft: d, catalog: catalogOf(d.version, registry) }));
  const catalog = parseCatalogWith<string>(readFileSync(file, 'utf8'), file, (c) => draftCatalogProblems(c, draft, earlier, registry));
  cache.set(draft.version, catalog);
  return catalog;
}

const ruleIdSets = new Map<DraftCatalog, ReadonlySet<string>>();

/** A draft's rule IDs as a set, built once per catalog: the kit maps and looks up IDs for every check of every case. */
export function ruleIdsOf(version: string, registry: DraftRegistry = loadDraftRegistry()): ReadonlySet<string> {
  const catalog = catalogOf(version, registry);
  let ids = ruleIdSets.get(catalog);
  if (ids === undefined) ruleIdSets.set(catalog, (ids = new Set(catalog.rules.map((r) => r.id))));
  return ids;
}

/** The rule with this id in a draft's catalog. Throws on an unknown id or draft. */
export function draftRule(id: string, version: string, registry: DraftRegistry = loadDraftRegistry()): DraftRule {
  const catalog = catalogOf(version, registry);
  const rule = catalog.rules.find((r) => r.id === id);
  if (!rule) throw new Error(`unknown rule id '${id}': draft ${draftOf(version, registry).version} has no such rule`);
  return rule;
}

/**
 * A comparator that puts rule ids in the order a draft's catalog lists them (chapter by chapter), so a
 * report judged at 0.3.1 lists LLM-4 where the catalog has it rather than after every 0.1.0 id. Ids the
 * draft does not have come last, by name.
 */
export function byRuleOrder(version: string, registry: DraftRegistry = loadDraftRegistry()): (a: string, b: string) => number {
  const version_ = draftOf(version, registry).version;
  let byVersion = orderCache.get(registry);
  if (!byVersion) orderCache.set(registry, (byVersion = new Map()));
  let order = byVersion.get(version_);
  if (!order) byVersion.set(version_, (order = new Map(catalogOf(version_, registry).rules.map((r, i) => [r.id, i]))));
  const place = order;
  return (a, b) => (place.get(a) ?? Number.MAX_SAFE_INTEGER) - (place.get(b) ?? Number.MAX_SAFE_INTEGER) || a.localeCompare(b);
}
/**
 * Maps a rule id of draft `from` to its counterpart's id in draft `to` (either direction), e.g.
 * `CRYSTAL-4` at 0.1.0 to `LLM-4` at 0.3.1. Undefined when the other draft has no counterpart (the rule
 * was removed, or is new). Throws on an unknown draft or an id the `from` draft does not have.
 */
export function mapRuleId(id: string, from: string, to: string, registry: DraftRegistry = loadDraftRegistry()): string | undefined {
  return ruleCounterpart(id, from, to, registry).id;
}

/** Like {@link mapRuleId}, with what changed between the two drafts' rules. */
export function ruleCounterpart(id: string, from: string, to: string, registry: DraftRegistry = loadDraftRegistry()): Counterpart {
  const source = draftOf(from, registry);
  const target = draftOf(to, registry);
  draftRule(id, source.version, registry);
  const order = registry.drafts.indexOf(source) - registry.drafts.indexOf(target);
  if (order === 0) return { id, changes: ['same'], level_changes: [] };
  if (order > 0) {
    // Backwards: the rule's own lineage names its counterpart in the earlier draft.
    const entry = draftRule(id, source.version, registry).lineage?.find((e) => e.draft === target.version);
    if (!entry) throw new Error(`rule ${id} of draft ${source.version} has no lineage entry for draft ${target.version}`);
    return counterpartOf(entry.id, entry);
  }
  // Forwards: the later catalog names which of its rules continues this one, or lists it as removed.
  for (const rule of catalogOf(target.version, registry).rules) {
    const entry = rule.lineage?.find((e) => e.draft === source.version && e.id === id);
    if (entry) return counterpartOf(rule.id, entry);
  }
  const removed = catalogOf(target.version, registry).removed?.find((r) => r.draft === source.version && r.id === id);
  if (removed) return { id: undefined, changes: ['removed'], level_changes: [], note: removed.note };
  throw new Error(`draft ${target.version} neither continues nor removes rule ${id} of draft ${source.version}`);
}

function counterpartOf(id: string | undefined, entry: { changes: ChangeKind[]; level_changes?: LevelChange[]; note?: string }): Counterpart {
  return { id, changes: [...entry.changes], level_changes: [...(entry.level_changes ?? [])], ...(entry.note !== undefined && { note: entry.note }) };
}

const FAMILY = /^([A-Z]+)-(\d+)$/;

/** Every level a rule states, as a whole or in a clause. */
function levelsOf(rule: DraftRule): RuleLevel[] {
  return [rule.level, ...(rule.clauses ?? []).map((c) => c.level)];
}

/** What a draft's catalog must satisfy beyond the schema, given the registry and the earlier catalogs. */
function draftCatalogProblems(
  catalog: DraftCatalog,
  draft: Draft,
  earlier: { draft: Draft; catalog: DraftCatalog }[],
  registry: DraftRegistry,
): Finding[] {
  const found: Finding[] = [];
  if (catalog.spec_version !== draft.label) {
    found.push({ path: ['spec_version'], message: `spec_version ${catalog.spec_version} is not ${draft.label}, the label registered for draft ${draft.version}` });
  }
  if (catalog.spec_commit !== draft.commit) {
    found.push({ path: ['spec_commit'], message: `spec_commit ${catalog.spec_commit ?? '(absent)'} is not ${draft.commit}, the commit registered for draft ${draft.version}` });
  }
  if (catalog.rules.length !== draft.rule_count) {
    found.push({ path: ['rules'], message: `${catalog.rules.length} rules, but the registry says draft ${draft.version} states ${draft.rule_count}` });
  }
  const ids = new Set(catalog.rules.map((r) => r.id));
  ruleShapeProblems(catalog, ids, draft.version, found);
  orderProblems(catalog, found);
  if (earlier.length === 0) {
    catalog.rules.forEach((rule, i) => {
      if (rule.lineage) found.push({ path: ['rules', i, 'lineage'], message: `${rule.id}: draft ${draft.version} is the first registered, so it has no lineage` });
    });
    if (catalog.removed) found.push({ path: ['removed'], message: `draft ${draft.version} is the first registered, so nothing can be removed` });
    return found;
  }
  lineageProblems(catalog, earlier, registry, found);
  return found;
}

/** Families stay together and numbers rise within each. */
function orderProblems(catalog: DraftCatalog, found: Finding[]): void {
  const closed = new Set<string>();
  let family = '';
  let last = 0;
  catalog.rules.forEach((rule, i) => {
    const [, name = '', num = '0'] = FAMILY.exec(rule.id) ?? [];
    if (name !== family) {
      if (closed.has(name)) found.push({ path: ['rules', i, 'id'], message: `${rule.id}: the ${name} rules are split by another family` });
      closed.add(family);
      family = name;
      last = 0;
    } else if (Number(num) <= last) {
      found.push({ path: ['rules', i, 'id'], message: `${rule.id}: out of order within ${name} (numbers rise within a family)` });
    }
    last = Number(num);
  });
}

/**
 * Every rule names exactly one counterpart (or none, when new) in each earlier draft; every earlier
 * rule is continued by exactly one rule or listed as removed; counterparts agree along the chain of
 * drafts; stated level changes match the levels of both rules.
 */
function lineageProblems(
  catalog: DraftCatalog,
  earlier: { draft: Draft; catalog: DraftCatalog }[],
  registry: DraftRegistry,
  found: Finding[],
): void {
  const byVersion = new Map(earlier.map((e) => [e.draft.version, e.catalog]));
  const claimed = new Map<string, Map<string, string>>(earlier.map((e) => [e.draft.version, new Map()]));
  catalog.rules.forEach((rule, i) => {
    const at = (...rest: (string | number)[]) => ['rules', i, ...rest];
    const entries = rule.lineage ?? [];
    for (const { draft } of earlier) {
      if (!entries.some((e) => e.draft === draft.version)) {
        found.push({ path: at('id'), message: `${rule.id}: no lineage entry for draft ${draft.version}` });
      }
    }
    const seen = new Set<string>();
    entries.forEach((entry, j) => {
      const older = byVersion.get(entry.draft);
      if (!older) {
        found.push({ path: at('lineage', j, 'draft'), message: `${rule.id}: ${entry.draft} is not a draft registered before this one` });
        return;
      }
      if (seen.has(entry.draft)) found.push({ path: at('lineage', j, 'draft'), message: `${rule.id}: a second lineage entry for draft ${entry.draft}` });
      seen.add(entry.draft);
      if (entry.id === undefined) return;
      const counterpart = older.rules.find((r) => r.id === entry.id);
      if (!counterpart) {
        found.push({ path: at('lineage', j, 'id'), message: `${rule.id}: draft ${entry.draft} has no rule ${entry.id}` });
        return;
      }
      const owner = claimed.get(entry.draft)?.get(entry.id);
      if (owner !== undefined) found.push({ path: at('lineage', j, 'id'), message: `${rule.id}: ${entry.id} of draft ${entry.draft} is already continued by ${owner}` });
      else claimed.get(entry.draft)?.set(entry.id, rule.id);
      const ours = levelsOf(rule);
      const theirs = levelsOf(counterpart);
      entry.level_changes?.forEach((change, k) => {
        if (!theirs.includes(change.from)) found.push({ path: at('lineage', j, 'level_changes', k, 'from'), message: `${rule.id}: ${entry.id} of draft ${entry.draft} states no ${change.from}` });
        if (!ours.includes(change.to)) found.push({ path: at('lineage', j, 'level_changes', k, 'to'), message: `${rule.id} states no ${change.to}` });
      });
      if (!entry.changes.some((c) => c === 'level-changed' || c === 'reversed') && strongestLevel(ours) !== strongestLevel(theirs)) {
        found.push({ path: at('lineage', j, 'changes'), message: `${rule.id} is ${strongestLevel(ours)} but ${entry.id} of draft ${entry.draft} was ${strongestLevel(theirs)}: changes must say level-changed (or reversed)` });
      }
    });
    chainProblems(rule, entries, registry, byVersion, at, found);
  });
  const removed = catalog.removed ?? [];
  removed.forEach((gone, i) => {
    const older = byVersion.get(gone.draft);
    if (!older) found.push({ path: ['removed', i, 'draft'], message: `${gone.draft} is not a draft registered before this one` });
    else if (!older.rules.some((r) => r.id === gone.id)) found.push({ path: ['removed', i, 'id'], message: `draft ${gone.draft} has no rule ${gone.id}` });
    else if (claimed.get(gone.draft)?.has(gone.id)) found.push({ path: ['removed', i, 'id'], message: `${gone.id} of draft ${gone.draft} is listed as removed but ${claimed.get(gone.draft)?.get(gone.id)} continues it` });
  });
  for (const { draft, catalog: older } of earlier) {
    const lost = older.rules
      .map((r) => r.id)
      .filter((id) => !claimed.get(draft.version)?.has(id) && !removed.some((r) => r.draft === draft.version && r.id === id));
    if (lost.length > 0) found.push({ path: ['rules'], message: `rules of draft ${draft.version} neither continued nor listed as removed: ${lost.join(', ')}` });
  }
}

/** A rule's counterparts in two earlier drafts must agree with the newer one's own lineage. */
function chainProblems(
  rule: DraftRule,
  entries: NonNullable<DraftRule['lineage']>,
  registry: DraftRegistry,
  byVersion: Map<string, DraftCatalog>,
  at: (...rest: (string | number)[]) => (string | number)[],
  found: Finding[],
): void {
  const rank = (version: string) => registry.drafts.findIndex((d) => d.version === version);
  for (const newer of entries) {
    const via = newer.id === undefined ? undefined : byVersion.get(newer.draft)?.rules.find((r) => r.id === newer.id);
    entries.forEach((older, j) => {
      if (rank(older.draft) >= rank(newer.draft)) return;
      const expected = newer.id === undefined ? undefined : via?.lineage?.find((e) => e.draft === older.draft)?.id;
      if (newer.id !== undefined && !via) return; // reported already: unknown counterpart
      if (expected !== older.id) {
        const said = newer.id === undefined ? `is new since ${newer.draft}` : `continues ${newer.id} of ${newer.draft}, which goes back to ${expected ?? 'nothing'}`;
        found.push({ path: at('lineage', j), message: `${rule.id} names ${older.id ?? 'no rule'} in draft ${older.draft}, but it ${said} there` });
      }
    });
  }
}

/** `/drafts/3/sha256` -> ['drafts', 3, 'sha256']. */

export { CatalogError };
