/**
 * A report's verdict in the few words a table cell has room for: per level, its status and the share
 * of applicable cases that passed; and what the verdict covers (the profile, what was skipped, the
 * rules nothing exercised), since a pass that covers half the spec is not a pass of the whole.
 */
import { LEVELS, notExercisedText, plural, skippedAt, type Report } from '../report/index.ts';

export type Level = (typeof LEVELS)[number];

export interface LevelSummary {
  level: Level;
  /** The level's status in the report: pass, fail, incomplete, no-cases. */
  status: string;
  /** `258/258`, `250/258 · 8 fail`, `no cases`. */
  text: string;
}

/** A level's verdict in a few words. Expected failures count as passed, as the report's verdict counts them. */
export function levelSummary(report: Report, level: Level): LevelSummary {
  const v = report.verdict[level];
  if (v.status === 'no-cases') return { level, status: v.status, text: 'no cases' };
  const props = v.properties ? v.properties.fail + v.properties.errored : 0;
  const notes = [
    v.fail > 0 ? `${v.fail} fail` : '',
    v.errored > 0 ? `${v.errored} errored` : '',
    props > 0 ? plural(props, 'property', 'properties') + ' broken' : '',
  ].filter(Boolean);
  return { level, status: v.status, text: [`${v.pass + v.xfail}/${v.applicable}`, ...notes].join(' · ') };
}

/** Cases and properties skipped, over every level. */
export const skippedTotal = (report: Report): number => LEVELS.reduce((n, l) => n + skippedAt(report.profile.skipped[l]), 0);

/** `full profile · 3 skipped · 1 of 79 rules not exercised`. */
export function coverageText(report: Report): string {
  const skipped = skippedTotal(report);
  return [`${report.profile.name} profile`, skipped > 0 ? `${skipped} skipped` : 'nothing skipped', notExercisedText(report.profile)].join(' · ');
}

/** A level failed (a MUST, SHOULD or MAY case or property broke its rule). */
export const anyLevelFails = (report: Report): boolean => LEVELS.some((l) => report.verdict[l].status === 'fail');

/**
 * A number that sorts reports from best to worst: the share of MUST cases passed, less a little for
 * every failure at a lower level, so `fail` sorts below `pass` at any size.
 */
export function sortKey(report: Report): number {
  const must = report.verdict.MUST;
  const share = must.applicable === 0 ? 0 : (must.pass + must.xfail) / must.applicable;
  const lower = report.verdict.SHOULD.fail + report.verdict.MAY.fail;
  return Math.round((share - Math.min(lower, 99) / 10_000) * 1_000_000) / 1_000_000;
}
