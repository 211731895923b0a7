/**
 * The site as data, before any page is written: implementations with their versions (oldest first),
 * the newest version of each implementation at each draft, one matrix of rules across those newest
 * reports, and the two signals a spec author looks for: rules where implementations split (one passes,
 * another breaks it) and rules nobody passes (broken wherever they were judged, passed nowhere).
 */
import { draftVersions } from '../../spec/drafts.ts';
import { buildMatrix, type Matrix, type MatrixRow } from '../report/index.ts';
import type { SiteEntry, SiteSettings } from './entries.ts';

/** One version of an implementation: its reports by draft. */
export interface SiteVersion {
  version: string;
  /** The newest date among its reports. */
  date: string;
  byDraft: Map<string, SiteEntry>;
}

export interface SiteImplementation {
  name: string;
  /** File name of its page and badges: the name in lower case, other characters as `-`, told apart when two collide. */
  slug: string;
  /** Oldest first, by date (then as given). */
  versions: SiteVersion[];
  /** The newest version's report at each draft it was judged at (an older version's when the newest skipped that draft). */
  latest: Map<string, SiteEntry>;
}

/** A column of the rule matrix: the newest report of one implementation at one draft. */
export interface SiteColumn {
  implementation: SiteImplementation;
  entry: SiteEntry;
}

export interface SiteModel {
  title: string;
  settings: SiteSettings;
  /** The drafts any report judged, in the registry's order (oldest first); drafts the kit does not know come last. */
  drafts: string[];
  implementations: SiteImplementation[];
  columns: SiteColumn[];
  /** Rows are rules across the drafts; cell `i` belongs to `columns[i]`. */
  matrix: Matrix;
  /** One implementation passes the rule and another breaks it. */
  split: MatrixRow[];
  /** Broken wherever it was judged, and passed nowhere. */
  nobody: MatrixRow[];
  /** How many reports the site was built from. */
  reportCount: number;
}

export const DEFAULT_TITLE = 'Cantrip implementations';

/** `Cantrip Reference` → `cantrip-reference`; never empty. */
export function slugOf(name: string): string {
  const slug = name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return slug === '' ? 'implementation' : slug;
}

/** Compares two dates as given (YYYY-MM-DD or a date-time); plain strings of that form sort as time does. */
const byDate = (a: { date: string }, b: { date: string }): number => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0);

function implementationsOf(entries: readonly SiteEntry[]): SiteImplementation[] {
  const byName = new Map<string, SiteEntry[]>();
  for (const e of entries) byName.set(e.implementation, [...(byName.get(e.implementation) ?? []), e]);
  const slugs = new Set<string>();
  const out: SiteImplementation[] = [];
  for (const [name, own] of byName) {
    const versions = new Map<string, SiteVersion>();
    for (const e of own) {
      const v = versions.get(e.version) ?? { version: e.version, date: e.date, byDraft: new Map<string, SiteEntry>() };
      v.byDraft.set(e.draft, e);
      if (e.date > v.date) v.date = e.date;
      versions.set(e.version, v);
    }
    // Stable sort: versions with one date stay in the order they were given.
    const ordered = [...versions.values()].sort(byDate);
    const latest = new Map<string, SiteEntry>();
    for (const v of ordered) for (const [draft, e] of v.byDraft) latest.set(draft, e);
    let slug = slugOf(name);
    for (let n = 2; slugs.has(slug); n++) slug = `${slugOf(name)}-${n}`;
    slugs.add(slug);
    out.push({ name, slug, versions: ordered, latest });
  }
  return out.sort((a, b) => a.name.localeCompare(b.name));
}

const passes = (row: MatrixRow): boolean => row.cells.some((c) => c.status === 'pass');
const broken = (row: MatrixRow): boolean => row.cells.some((c) => c.status === 'fail' || c.status === 'xfail');

/** Builds the site's model from its reports. */
export function buildSiteModel(entries: readonly SiteEntry[], settings: SiteSettings = {}): SiteModel {
  const implementations = implementationsOf(entries);
  const registered = draftVersions();
  const present = new Set(entries.map((e) => e.draft));
  const drafts = [...registered.filter((v) => present.has(v)), ...[...present].filter((v) => !registered.includes(v)).sort()];
  const columns: SiteColumn[] = implementations.flatMap((implementation) =>
    drafts.flatMap((draft) => {
      const entry = implementation.latest.get(draft);
      return entry ? [{ implementation, entry }] : [];
    }),
  );
  const matrix = buildMatrix(columns.map((c) => ({ report: c.entry.report, label: `${c.implementation.name} ${c.entry.version} @ ${c.entry.draft}` })));
  return {
    title: settings.title ?? DEFAULT_TITLE,
    settings,
    drafts,
    implementations,
    columns,
    matrix,
    split: matrix.rows.filter((r) => r.differs),
    nobody: matrix.rows.filter((r) => broken(r) && !passes(r)),
    reportCount: entries.length,
  };
}
