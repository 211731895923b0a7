/**
 * A section number the kit cites (a schema problem's `§6.1`, a record shape's `§4.3`) is printed in
 * every report whatever the draft judged, so it must name the same section in every registered draft:
 * each cited number is a heading of each draft's text (issue 31.2, "a section number is cited from the
 * draft judged"). Skipped where the texts are not beside the clone (they are not part of the project).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { draftOf, draftVersions } from '../../spec/drafts.ts';
import { PACKAGE_ROOT } from '../case-file/index.ts';

const SHARED = resolve(PACKAGE_ROOT, '../shared');
const texts = draftVersions().map((v) => ({ version: v, file: join(SHARED, draftOf(v).text) }));
const HAVE_TEXTS = texts.every((t) => existsSync(t.file));
/** The modules whose section numbers reach the reports. */
const CITING = ['harness/judge/schema-rules.ts', 'harness/judge/record-shapes.ts'];

describe.skipIf(!HAVE_TEXTS)('cited sections', () => {
  it('every section number cited in a report is a heading of every draft, so it names the same section whatever the draft judged', () => {
    const cited = new Set(CITING.flatMap((f) => [...readFileSync(join(PACKAGE_ROOT, f), 'utf8').matchAll(/section: '([^']+)'/g)].flatMap((m) => m[1]!.split(/,\s*/))));
    expect(cited.size).toBeGreaterThan(3);
    for (const { version, file } of texts) {
      const headings = new Set([...readFileSync(file, 'utf8').matchAll(/^#+\s+(\d+(?:\.\d+)*)\s/gm)].map((m) => `§${m[1]}`));
      for (const section of cited) expect(headings.has(section), `${section} in draft ${version}`).toBe(true);
    }
  });
});
