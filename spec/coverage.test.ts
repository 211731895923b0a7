/**
 * Coverage of the conformance cases (`tests.yaml`) against the rule catalog (`spec/rules.yaml`):
 * every rule the kit can observe through the adapter is exercised by some case, cases only name rules
 * and features that exist, ids are unique, and no case description copies a sentence of the spec.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it, expect } from 'vitest';
import { parse } from 'yaml';
import { FEATURES } from '../schemas/adapter.ts';
import { validate } from '../schemas/loader.ts';
import { isRuleId, loadCatalog, type Rule } from './catalog.ts';
import { catalogOf } from './drafts.ts';
import { verbatimOverlaps } from './verbatim.ts';

const SPEC_DIR = dirname(fileURLToPath(import.meta.url));
const REPO = resolve(SPEC_DIR, '..');
const CASES_FILE = join(REPO, 'tests.yaml');
const SPEC_TEXT_FILE = resolve(REPO, '../shared/seeds/004_5258b408d36cbbdb.txt');
const HAVE_SPEC = existsSync(SPEC_TEXT_FILE);

/** The floor for the size of the suite. */
const MIN_CASES = 150;

interface CaseSummary {
  id: string;
  rules: string[];
  /** The draft whose IDs `rules` uses (absent: 0.1.0, this catalog's). */
  rules_draft?: string;
  requires?: string[];
  description: string;
}

const casesText = readFileSync(CASES_FILE, 'utf8');
const casesDoc: unknown = parse(casesText);
// A case written in a later draft's rule ids (`rules_draft`) counts here under their 0.1.0 counterparts;
// a rule new since 0.1.0 has none, and the coverage of later drafts' catalogs is not this file's concern.
const cases: CaseSummary[] = ((casesDoc as { cases?: (CaseSummary & { rules_draft?: string })[] } | null)?.cases ?? []).map((c) => ({
  id: c.id,
  rules: c.rules ?? [],
  ...(c.rules_draft !== undefined && { rules_draft: c.rules_draft }),
  ...(c.requires !== undefined && { requires: c.requires }),
  description: c.description,
  ...(c.rules_draft !== undefined && { rules_draft: String(c.rules_draft) }),
}));
const catalog = loadCatalog();

/** Rules the issue says need a case: behavioral as a whole, or with at least one behavioral clause. */
function needsCase(rule: Rule): boolean {
  return rule.testability === 'behavioral' || (rule.clauses ?? []).some((c) => c.testability === 'behavioral');
}

/** Rule id -> ids of the cases that name it. */
function casesByRule(): Map<string, string[]> {
  const by = new Map<string, string[]>();
  for (const c of cases) for (const r of c.rules) by.set(r, [...(by.get(r) ?? []), c.id]);
  return by;
}

describe('tests.yaml against the rule catalog', () => {
  it('the case file validates against the test-case schema', () => {
    const result = validate('test-case', casesDoc);
    expect(result.ok ? [] : result.problems.map((p) => `${p.pointer}: ${p.message}`)).toEqual([]);
  });

  it(`holds at least ${MIN_CASES} cases`, () => {
    expect(cases.length).toBeGreaterThanOrEqual(MIN_CASES);
  });

  it('case ids are unique', () => {
    const seen = new Set<string>();
    const repeated = cases.map((c) => c.id).filter((id) => (seen.has(id) ? true : (seen.add(id), false)));
    expect(repeated).toEqual([]);
  });

  it('every behavioral rule, and every rule with a behavioral clause, is named by at least one case', () => {
    const by = casesByRule();
    const required = catalog.rules.filter(needsCase).map((r) => r.id);
    // Guards the check itself: the catalog marks most rules behavioral, and CRYSTAL-6 only through a clause.
    expect(required.length).toBeGreaterThan(50);
    expect(required).toContain('CRYSTAL-6');
    expect(required.filter((id) => !by.has(id))).toEqual([]);
  });

  it('every rule id a case names exists in the catalog of the draft it is written in', () => {
    const seedCases = cases.filter((c) => c.rules_draft === undefined || c.rules_draft === '0.1.0');
    const unknown = seedCases.flatMap((c) => c.rules.filter((r) => !isRuleId(r)).map((r) => `${c.id}: ${r}`));
    expect(unknown).toEqual([]);
    const catalogIds = new Set(catalog.rules.map((r) => r.id));
    expect(seedCases.flatMap((c) => c.rules).filter((r) => !catalogIds.has(r as Rule['id']))).toEqual([]);
    // Cases written in a later draft's IDs (PROD-6 at 0.3.1) name rules of that draft's catalog.
    const later = cases.filter((c) => !seedCases.includes(c));
    const unknownLater = later.flatMap((c) => c.rules.filter((r) => !catalogOf(c.rules_draft!).rules.some((rule) => rule.id === r)).map((r) => `${c.id}: ${r}`));
    expect(unknownLater).toEqual([]);
  });

  it('every case requires only features the adapter contract knows', () => {
    const known = new Set<string>(FEATURES);
    const bad = cases.flatMap((c) => (c.requires ?? []).filter((f) => !known.has(f)).map((f) => `${c.id}: ${f}`));
    expect(bad).toEqual([]);
  });

  it('a case checking a feature-only rule declares that feature (or another optional one that implies it)', () => {
    // A core case naming, say, COMP-2 would fail on every implementation without composition.
    const featureOf = new Map(catalog.rules.map((r) => [r.id as string, r.feature]));
    const bad = cases.flatMap((c) => {
      const features = new Set(c.requires ?? []);
      const needed = c.rules.map((r) => featureOf.get(r)).filter((f) => f !== undefined && f !== 'core' && f !== 'providers');
      return features.size === 0 && needed.length === c.rules.length ? [`${c.id}: ${needed.join(', ')}`] : [];
    });
    expect(bad).toEqual([]);
  });
});

describe.skipIf(!HAVE_SPEC)('case descriptions against the spec text', () => {
  const spec = HAVE_SPEC ? readFileSync(SPEC_TEXT_FILE, 'utf8') : '';

  it('the verbatim detector flags a description copied from the spec (self-check)', () => {
    const copied = 'Two consecutive entity utterances without an intervening observation MUST NOT occur.';
    expect(verbatimOverlaps(copied, spec).length).toBeGreaterThan(0);
  });

  it('no case description repeats a spec sentence', () => {
    const copies = cases.flatMap((c) => verbatimOverlaps(c.description, spec).map((s) => `${c.id}: ${s}`));
    expect(copies).toEqual([]);
  });
});

if (!HAVE_SPEC) {
  describe('case descriptions against the spec text', () => {
    it.skip(`spec text not found at ${SPEC_TEXT_FILE}; the verbatim check needs it`, () => {});
  });
}
