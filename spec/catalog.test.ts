import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it, expect } from 'vitest';
import { parse } from 'yaml';
import { FEATURES } from '../schemas/adapter.ts';
import { validate } from '../schemas/loader.ts';
import {
  CATALOG_FILE,
  CATALOG_ONLY_FEATURES,
  CatalogError,
  RULE_IDS,
  chapterOf,
  isRuleId,
  loadCatalog,
  parseCatalog,
  ruleById,
  strongestLevel,
  type RuleLevel,
} from './catalog.ts';
import { verbatimOverlaps } from './verbatim.ts';

const SPEC_DIR = dirname(fileURLToPath(import.meta.url));
const REPO = resolve(SPEC_DIR, '..');
const SPEC_TEXT_FILE = resolve(REPO, '../shared/seeds/004_5258b408d36cbbdb.txt');
const HAVE_SPEC = existsSync(SPEC_TEXT_FILE);
const FIXTURES = join(REPO, 'fixtures/schemas/rules-catalog');
const TERMS_FILE = join(SPEC_DIR, 'terms.md');

// Pinned on purpose, independently of RULE_IDS: a rule cannot vanish or be invented without this list changing.
const PINNED_IDS = [
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
];

const catalog = loadCatalog();
const catalogText = readFileSync(CATALOG_FILE, 'utf8');

/** Every prose field of the catalog, one per line. */
function catalogProse(): string {
  return catalog.rules
    .flatMap((r) => [
      r.title,
      r.summary,
      r.level_note,
      r.testability_note,
      ...(r.clauses ?? []).flatMap((c) => [c.summary, c.testability_note]),
    ])
    .filter((t): t is string => t !== undefined)
    .join('\n');
}

/** The spec's rule lines: id -> rule text, and id -> the nearest `##`/`###` heading above, in catalog form. */
function specRules(spec: string): Map<string, { text: string; section: string }> {
  const rules = new Map<string, { text: string; section: string }>();
  let section = '';
  for (const line of spec.split('\n')) {
    const chapter = /^## Chapter (\d+): (.+)$/.exec(line);
    const sub = /^### (\d+\.\d+) (.+)$/.exec(line);
    if (chapter) section = `${chapter[1]} ${chapter[2]}`;
    else if (sub) section = `${sub[1]} ${sub[2]}`;
    const rule = /^> \*\*([A-Z]+-\d+)\*\*:\s*(.*)$/.exec(line);
    if (rule?.[1] && rule[2] !== undefined) rules.set(rule[1], { text: rule[2], section });
  }
  return rules;
}

function keywordLevels(text: string): RuleLevel[] {
  return [...new Set([...text.matchAll(/\b(MUST|SHOULD|MAY)\b/g)].map((m) => m[1] as RuleLevel))];
}

describe('rule catalog: contents', () => {
  it('holds exactly the 67 pinned rule ids, in catalog order', () => {
    expect(PINNED_IDS).toHaveLength(67);
    expect(catalog.rules.map((r) => r.id)).toEqual(PINNED_IDS);
    expect([...RULE_IDS]).toEqual(PINNED_IDS);
  });

  it('validates against the rules-catalog schema', () => {
    expect(validate('rules-catalog', parse(catalogText))).toEqual({ ok: true });
    expect(catalog.spec_version).toBe('0.1.0-draft');
    expect(catalog.spec_commit).toBe('cfee8a3');
    expect(catalog.format_version).toBe(1);
  });

  it('every rule has a level, a summary, a testability and a feature from the closed lists', () => {
    const features = new Set(['core', ...FEATURES]);
    for (const rule of catalog.rules) {
      expect(['MUST', 'SHOULD', 'MAY'], rule.id).toContain(rule.level);
      expect(rule.summary.trim().length, rule.id).toBeGreaterThanOrEqual(20);
      expect(['behavioral', 'structural', 'not-observable'], rule.id).toContain(rule.testability);
      expect(features.has(rule.feature), `${rule.id}: ${rule.feature}`).toBe(true);
    }
  });

  it('every structural or not-observable rule and clause says how or why in a note', () => {
    const opaque = catalog.rules.filter((r) => r.testability !== 'behavioral');
    expect(opaque.length).toBeGreaterThan(0);
    for (const rule of opaque) expect(rule.testability_note?.trim().length ?? 0, rule.id).toBeGreaterThanOrEqual(10);
    for (const rule of catalog.rules) {
      for (const clause of rule.clauses ?? []) {
        if (clause.testability && clause.testability !== 'behavioral') {
          expect(clause.testability_note?.trim().length ?? 0, rule.id).toBeGreaterThanOrEqual(10);
        }
      }
    }
  });

  it('a rule that has clauses takes the strongest clause level as its level', () => {
    const split = catalog.rules.filter((r) => r.clauses);
    expect(split.map((r) => r.id)).toEqual(expect.arrayContaining(['PROD-2', 'CRYSTAL-1', 'LOOP-4', 'LOOM-8', 'PROD-4']));
    for (const rule of split) expect(strongestLevel(rule.clauses!.map((c) => c.level)), rule.id).toBe(rule.level);
  });

  it('the schema feature enum is core plus the adapter FEATURES plus the catalog-only ones (acp)', () => {
    const schema = JSON.parse(readFileSync(join(REPO, 'schemas/rules-catalog.schema.json'), 'utf8')) as {
      $defs: { rule: { properties: { feature: { enum: string[] } } } };
    };
    expect(schema.$defs.rule.properties.feature.enum).toEqual(['core', ...FEATURES, ...CATALOG_ONLY_FEATURES]);
    expect(CATALOG_ONLY_FEATURES.filter((f) => (FEATURES as readonly string[]).includes(f))).toEqual([]);
  });

  it('no 0.1.0 rule belongs to a catalog-only feature (those arrive with later drafts)', () => {
    for (const rule of catalog.rules) expect(CATALOG_ONLY_FEATURES as readonly string[], rule.id).not.toContain(rule.feature);
  });

  it('depends_on names only other catalog rules', () => {
    for (const rule of catalog.rules) {
      for (const dep of rule.depends_on ?? []) {
        expect(isRuleId(dep), `${rule.id} -> ${dep}`).toBe(true);
        expect(dep, rule.id).not.toBe(rule.id);
      }
    }
  });
});

describe('rule catalog: helpers', () => {
  it('ruleById and chapterOf answer for known ids (CRYSTAL-3, PROD-2, WARD-1)', () => {
    expect(ruleById('CRYSTAL-3').testability).toBe('behavioral');
    expect(chapterOf('PROD-2')).toBe(7);
    expect(chapterOf('WARD-1')).toBe(4);
    expect(chapterOf('ENTITY-6')).toBe(1);
  });

  it('ruleById and chapterOf throw on an unknown id; isRuleId rejects it', () => {
    expect(() => ruleById('LOOP-99')).toThrow(/LOOP-99/);
    expect(() => chapterOf('loop-1')).toThrow(/loop-1/);
    expect(isRuleId('LOOP-99')).toBe(false);
    expect(isRuleId(42)).toBe(false);
    expect(isRuleId('LOOM-12')).toBe(true);
  });
});

describe('rule catalog: malformed files are reported with file, line and what', () => {
  /** Parses a mutated copy of the real catalog and returns the problems it raises. */
  function problemsOf(text: string): string[] {
    try {
      parseCatalog(text, 'broken.yaml');
    } catch (error) {
      expect(error).toBeInstanceOf(CatalogError);
      expect((error as CatalogError).file).toBe('broken.yaml');
      return (error as CatalogError).problems;
    }
    throw new Error('expected parseCatalog to reject the text');
  }
  const lineOf = (needle: string) => catalogText.split('\n').findIndex((l) => l.includes(needle)) + 1;

  it('an unknown level points at the line of that field', () => {
    const line = lineOf('title: Utterance and observation alternate') + 1;
    const problems = problemsOf(catalogText.replace(/(id: LOOP-1\n(?:.*\n){3}\s+level: )MUST/, '$1MUSTN'));
    expect(problems.some((p) => p.startsWith(`broken.yaml:${line}:`) && p.includes('/rules/0/level'))).toBe(true);
  });

  it('a duplicated id and the id it displaced are both reported', () => {
    const problems = problemsOf(catalogText.replace('id: LOOP-2\n', 'id: LOOP-1\n'));
    expect(problems.some((p) => p.startsWith(`broken.yaml:${lineOf('id: LOOP-2')}:`) && p.includes('LOOP-1'))).toBe(true);
    expect(problems.some((p) => p.includes('LOOP-2'))).toBe(true);
  });

  it('a level weaker than its strongest clause is rejected (PROD-2)', () => {
    const problems = problemsOf(catalogText.replace(/(id: PROD-2\n(?:.*\n){3}\s+level: )MUST/, '$1SHOULD'));
    expect(problems.some((p) => p.startsWith(`broken.yaml:${lineOf('id: PROD-2') + 4}:`))).toBe(true);
  });

  it('another draft\'s spec_version is refused by the 0.1.0 loader, at its line', () => {
    const problems = problemsOf(catalogText.replace('spec_version: 0.1.0-draft', 'spec_version: 0.3.1'));
    expect(problems.some((p) => p.startsWith(`broken.yaml:${lineOf('spec_version:')}:`) && p.includes('0.3.1'))).toBe(true);
  });

  it('a YAML syntax error carries its line', () => {
    const problems = problemsOf('spec_version: 0.1.0-draft\nrules: [\n  {id: LOOP-1\n');
    expect(problems.length).toBeGreaterThan(0);
    expect(problems.every((p) => /^broken\.yaml:\d+:\d+: /.test(p))).toBe(true);
  });
});

describe('rule catalog: schema fixtures', () => {
  // expect.json (shared with schemas/schemas.test.ts) maps each invalid fixture to the field it breaks.
  const expected = JSON.parse(readFileSync(join(FIXTURES, 'expect.json'), 'utf8')) as Record<
    string,
    { pointer: string; keyword: string }
  >;
  const files = readdirSync(FIXTURES).filter((f) => f.endsWith('.json') && f !== 'expect.json');
  const read = (file: string): unknown => JSON.parse(readFileSync(join(FIXTURES, file), 'utf8'));

  it('has at least one valid and two invalid fixtures, and every invalid one has an expected pointer', () => {
    expect(files.filter((f) => f.startsWith('valid-')).length).toBeGreaterThanOrEqual(1);
    const invalid = files.filter((f) => f.startsWith('invalid-'));
    expect(invalid.length).toBeGreaterThanOrEqual(2);
    expect(invalid.sort()).toEqual(Object.keys(expected).sort());
  });

  for (const file of files.filter((f) => f.startsWith('valid-'))) {
    it(`${file} is accepted`, () => expect(validate('rules-catalog', read(file))).toEqual({ ok: true }));
  }
  for (const [file, { pointer, keyword }] of Object.entries(expected)) {
    it(`${file} is rejected at the field its name gives`, () => {
      const result = validate('rules-catalog', read(file));
      expect(result.ok).toBe(false);
      if (!result.ok) expect(result.problems).toContainEqual(expect.objectContaining({ pointer, keyword }));
    });
  }
});

describe.skipIf(!HAVE_SPEC)('rule catalog against the spec text', () => {
  const spec = HAVE_SPEC ? readFileSync(SPEC_TEXT_FILE, 'utf8') : '';
  const fromSpec = specRules(spec);

  it('the spec numbers exactly the catalog rules', () => {
    expect([...fromSpec.keys()].sort()).toEqual([...PINNED_IDS].sort());
  });

  it('each rule names the chapter and section that state it', () => {
    for (const rule of catalog.rules) {
      const found = fromSpec.get(rule.id);
      expect(rule.section, rule.id).toBe(found?.section);
      expect(rule.chapter, rule.id).toBe(Number(found?.section.split(/[. ]/)[0]));
    }
  });

  it('every keyword of a rule is covered by its level or clauses; mixed rules are split; keyword-less levels are explained', () => {
    for (const rule of catalog.rules) {
      const levels = keywordLevels(fromSpec.get(rule.id)?.text ?? '');
      const ours = new Set([rule.level, ...(rule.clauses ?? []).map((c) => c.level)]);
      for (const level of levels) expect(ours.has(level), `${rule.id} lacks ${level}`).toBe(true);
      if (levels.length > 1) expect(rule.clauses, `${rule.id} mixes ${levels.join('+')}`).toBeDefined();
      if (strongestLevel(levels) !== rule.level) expect(rule.level_note, `${rule.id} level differs from its keywords`).toBeDefined();
    }
  });

  it('the verbatim detector catches a copied spec sentence (self-check)', () => {
    const copied = `Our words first. ${fromSpec.get('CIRCLE-6')?.text ?? ''}`;
    expect(verbatimOverlaps(copied, spec).length).toBeGreaterThan(0);
  });

  it('no catalog summary, title or note repeats a spec sentence verbatim', () => {
    expect(verbatimOverlaps(catalogProse(), spec)).toEqual([]);
  });

  it('terms.md repeats no spec sentence verbatim', () => {
    expect(verbatimOverlaps(readFileSync(TERMS_FILE, 'utf8'), spec)).toEqual([]);
  });
});

if (!HAVE_SPEC) {
  it.skip(`spec text not found at ${SPEC_TEXT_FILE}; verbatim and section checks need it (it is not published with the package)`, () => {});
}

describe('terms.md', () => {
  const terms = readFileSync(TERMS_FILE, 'utf8');
  // The term entries end where the part on renames across drafts begins (tested in drafts.test.ts).
  const sections = (terms.split(/^# Across drafts/m)[0] ?? '').split(/^## /m).slice(1);
  const TERMS = ['crystal', 'call', 'gate', 'ward', 'circle', 'intent', 'cantrip', 'entity', 'turn', 'thread', 'loom', 'medium'];

  it('defines the eleven terms plus medium, each naming its reference module and known rules', () => {
    expect(sections.map((s) => s.split('\n')[0]?.trim().toLowerCase())).toEqual(TERMS);
    for (const section of sections) {
      const name = section.split('\n')[0];
      expect(section, name).toMatch(/`reference\/[a-z/]+\/`/);
      const ids = [...section.matchAll(/\b[A-Z]+-\d+\b/g)].map((m) => m[0]);
      expect(ids.length, name).toBeGreaterThan(0);
      for (const id of ids) expect(isRuleId(id), `${name}: ${id}`).toBe(true);
    }
  });
});
