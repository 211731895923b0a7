/**
 * A verdict says what it covers (issue 23, item 2): an implementation that declares no feature passes
 * what it runs, and the console verdict, report.md, summary.md, report.html and the badge all say how
 * much was skipped and which rules nothing exercised.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import type { Adapter, Description } from '../../schemas/adapter.ts';
import { createReferenceAdapter } from '../../reference/adapter/index.ts';
import { loadCaseFile } from '../case-file/load.ts';
import { PACKAGE_ROOT } from '../case-file/package-root.ts';
import { planCases } from '../plan/plan.ts';
import { runSuite, type AdapterFactory } from '../run/run.ts';
import { renderHtml } from './html.ts';
import { renderMarkdown, verdictLines } from './markdown.ts';
import { buildProfile, profileMeets, profileText, skipKind } from './profile.ts';
import { assertReportValid, buildReport, exitCode, type Report } from './report.ts';
import { renderBadge, renderJobSummary } from './summary.ts';
import { hangBound } from '../testing/hang-bound.ts';

const CASES = join(PACKAGE_ROOT, 'tests.yaml');

/** The reference, declaring nothing optional: no feature, no optional ward, no sandbox; and only the seed draft, whose 67 rules the profile counts. */
const coreOnly: AdapterFactory = () => {
  const inner = createReferenceAdapter();
  return Object.assign(Object.create(inner) as Adapter, {
    describe: async (): Promise<Description> => {
      const { sandbox: _sandbox, wards: _wards, ...rest } = await inner.describe();
      return { ...rest, features: [], drafts: ['0.1.0'] };
    },
  });
};

describe('a report of an implementation that declares no feature', () => {
  let report: Report;
  beforeAll(async () => {
    // Three families with many feature-gated cases (fork, folding, composition, persistence). The
    // generous time limit keeps a busy machine from turning a case into an errored one.
    const suite = await runSuite(loadCaseFile(CASES), coreOnly, { filter: ['LOOP', 'LOOM', 'COMP'], jobs: 4, timeoutMs: 60_000 });
    report = buildReport(suite, { filter: ['LOOP', 'LOOM', 'COMP'] });
    assertReportValid(report);
  }, hangBound(300_000));

  it('records the profile: core, nothing declared, skips per level by kind, the rules nothing exercised', () => {
    const p = report.profile;
    expect(p.name).toBe('core');
    expect(p.features).toEqual([]);
    expect(p.undeclared).toEqual(expect.arrayContaining(['composition', 'fork', 'folding', 'persistence']));
    const must = p.skipped.MUST;
    expect(must.cases).toBe(report.verdict.MUST.skipped);
    expect(must.undeclared).toBeGreaterThan(10);
    expect(must.undeclared + must.transport + must.refused + must.other).toBe(must.cases + must.properties);
    expect(p.rules_total).toBe(67);
    // The rules the report rolls up as skipped or untested are exactly the ones listed, COMP-2 (composition) among them.
    expect(p.rules_not_exercised).toEqual(report.rules.filter((r) => r.status === 'skipped' || r.status === 'untested').map((r) => r.id));
    expect(p.rules_not_exercised).toContain('COMP-2');
  });

  it('the console verdict passes, and says how much was skipped and that the profile is core', () => {
    expect(report.verdict.MUST.status).toBe('pass');
    expect(exitCode(report)).toBe(0);
    const v = report.verdict.MUST;
    const lines = verdictLines(report);
    const skips = report.profile.skipped.MUST;
    const transport = skips.transport > 0 ? `, ${skips.transport} about another crystal transport` : '';
    expect(lines).toContain(`MUST   PASS        (${v.pass}/${v.applicable} applicable pass; ${v.skipped} cases skipped: ${skips.undeclared} for undeclared features${transport})`);
    const profile = lines.find((l) => l.startsWith('profile: '));
    expect(profile).toMatch(/^profile: core \(no feature declared; not declared: [^)]+\); \d+ of 67 rules of Cantrip 0\.1\.0 \(cfee8a3\) not exercised/);
    // The line names undeclared features, in the profile's order, and counts the rest: together they are
    // every feature the profile records as not declared (composition among them, see above).
    const [, named, more] = /not declared: (.+?)(?: and (\d+) more)?\);/.exec(profile!)!;
    const names = named!.split(', ');
    expect(names).toEqual(report.profile.undeclared.slice(0, names.length));
    expect(names.length + Number(more ?? 0)).toBe(report.profile.undeclared.length);
    expect(profile).toContain(`${report.profile.rules_not_exercised.length} of 67 rules of Cantrip 0.1.0 (cfee8a3) not exercised`);
  });

  it('the badge is not a plain green pass: blue, with the profile and the number skipped', () => {
    const skipped = report.profile.skipped.MUST.undeclared + report.profile.skipped.SHOULD.undeclared + report.profile.skipped.MAY.undeclared;
    const badge = renderBadge(report);
    expect(badge.color).toBe('blue');
    expect(badge.message).toMatch(new RegExp(`^MUST ${report.verdict.MUST.pass}/${report.verdict.MUST.applicable}( · [A-Z]+ \\d+/\\d+)* · core profile, ${skipped} skipped$`));
  });

  it('summary.md, report.md and report.html name the profile and every rule nothing exercised', () => {
    const summary = renderJobSummary(report);
    expect(summary).toMatch(/^## Cantrip conformance: .* ✅ \(core profile\)/);
    expect(summary).toContain('**Profile judged**: core (no feature declared;');
    const md = renderMarkdown(report);
    const page = renderHtml(report);
    for (const id of report.profile.rules_not_exercised) {
      expect(md).toContain(`\n- ${id} `);
      expect(page).toContain(`<a href="#rule-${id}">${id}</a>`);
    }
    expect(page).toContain('for the core profile only');
  });
});

describe('why a case was skipped', () => {
  it('every reason the planner gives an implementation that declares nothing is read as undeclared or transport, none as other', () => {
    const file = loadCaseFile(CASES);
    const bare: Description = { name: 'bare', version: '0', spec_version: '0.1.0-draft', protocol_version: 1, features: [] };
    const reasons = new Set<string>();
    for (const transport of ['callback', 'openai'] as const) {
      const declared = { ...bare, crystal_transports: ['callback', 'openai'] } as Description;
      for (const planned of planCases(file.cases, declared, [], transport)) if (planned.skip) reasons.add(planned.skip);
    }
    expect(reasons.size).toBeGreaterThan(3);
    const other = [...reasons].filter((r) => skipKind(r).kind === 'other');
    expect(other).toEqual([]);
    expect(skipKind('feature not declared: fork, folding')).toEqual({ kind: 'undeclared', needs: ['fork', 'folding'] });
    expect(skipKind('ward not declared: verifier (describe().wards)')).toEqual({ kind: 'undeclared', needs: ['verifier'] });
    expect(skipKind(`sandbox language: the case scripts javascript, the implementation's sandbox speaks nothing`)).toEqual({ kind: 'undeclared', needs: ['sandbox javascript'] });
    expect(skipKind('crystal transport not declared: gemini (describe().crystal_transports)').kind).toBe('transport');
  });

  it('an implementation that declares no feature is core even when nothing was skipped: "full (no feature declared)" never shows', () => {
    const none = buildProfile({ name: 'x', version: '1', features: [] } as never, [{ level: 'MUST', status: 'pass' }], [], []);
    expect(none.name).toBe('core');
    expect(profileText(none)).not.toMatch(/^full/);
    const some = buildProfile({ name: 'x', version: '1', features: ['fork'] } as never, [{ level: 'MUST', status: 'pass' }], [], []);
    expect(some.name).toBe('full');
    expect(profileMeets('core', 'full')).toBe(false);
    expect(profileMeets('partial', 'partial')).toBe(true);
    expect(profileMeets('full', 'core')).toBe(true);
  });
});
