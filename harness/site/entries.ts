/**
 * What a results site is built from: report.json files, each standing for one implementation, at one
 * version, judged at one draft. They come as paths of reports, folders searched for report.json, or a
 * manifest (`schemas/site-manifest.schema.json`) that names the implementation, version and date of
 * each. Every report is checked against `schemas/report.schema.json` before anything is built, and two
 * reports that claim one implementation, version and draft are refused: the site could only show one
 * of them, and silently picking one would hide the other.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { formatProblems, validate } from '../../schemas/loader.ts';
import { draftOfReport, readReport } from '../report/index.ts';
import type { Report } from '../report/index.ts';

/** One report on the site. */
export interface SiteEntry {
  /** The implementation's name as the site shows it. */
  implementation: string;
  version: string;
  /** When this version was judged (or released, as a manifest says): orders an implementation's history. */
  date: string;
  /** The draft the report judged (its version, `0.3.1`). */
  draft: string;
  report: Report;
  /** The report.json it was read from, as given (relative to the working directory when it was). */
  file: string;
}

/** What the manifest may set besides the reports. */
export interface SiteSettings {
  title?: string;
  base_url?: string;
  source_url?: string;
}

export interface SiteInputs {
  entries: SiteEntry[];
  settings: SiteSettings;
}

/** A site input that cannot be used: the message names the file and what is wrong with it. */
export class SiteInputError extends Error {
  override name = 'SiteInputError';
}

interface ManifestEntry {
  report: string;
  implementation?: string;
  version?: string;
  date?: string;
}

interface Manifest extends SiteSettings {
  reports: ManifestEntry[];
}

export const REPORT_FILE = 'report.json';
/** How deep a folder is searched for report.json files; a site's runs sit a level or two down. */
const MAX_SEARCH_DEPTH = 6;
/** Folders never searched: they hold dependencies or version control, not runs. */
const SKIPPED_FOLDERS = new Set(['node_modules', '.git']);

/** Every report.json under `dir`, sorted, at most {@link MAX_SEARCH_DEPTH} folders down. */
function reportsUnder(dir: string, depth = 0): string[] {
  if (depth > MAX_SEARCH_DEPTH) return [];
  const found: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    const stat = statSync(path, { throwIfNoEntry: false });
    if (stat?.isDirectory() && !SKIPPED_FOLDERS.has(name)) found.push(...reportsUnder(path, depth + 1));
    else if (stat?.isFile() && name === REPORT_FILE) found.push(path);
  }
  return found;
}

/** A path given for a report: the file itself, or the folder whose report.json (or whose runs) it holds. */
function reportFilesAt(path: string, shown: string): string[] {
  const stat = statSync(path, { throwIfNoEntry: false });
  if (!stat) throw new SiteInputError(`${shown}: no such file or folder`);
  if (stat.isFile()) return [path];
  const direct = join(path, REPORT_FILE);
  if (existsSync(direct)) return [direct];
  const found = reportsUnder(path);
  if (found.length === 0) throw new SiteInputError(`${shown}: a folder with no ${REPORT_FILE} in it or below it`);
  return found;
}

function readManifest(file: string, shown: string): Manifest {
  let value: unknown;
  try {
    const text = readFileSync(file, 'utf8');
    value = /\.json$/i.test(file) ? JSON.parse(text) : parseYaml(text);
  } catch (error) {
    throw new SiteInputError(`${shown}: cannot read the manifest: ${(error as Error).message}`);
  }
  const checked = validate('site-manifest', value);
  if (!checked.ok) throw new SiteInputError(`${shown}: not a site manifest (schemas/site-manifest.schema.json):\n${formatProblems(checked.problems)}`);
  return value as Manifest;
}

/** Reads one report, naming the file when it does not read or does not validate. */
function entryOf(file: string, shown: string, given: Omit<ManifestEntry, 'report'> = {}): SiteEntry {
  let report: Report;
  try {
    report = readReport(file);
  } catch (error) {
    // readReport's message starts with the absolute path; the path as the user gave it reads better.
    throw new SiteInputError((error as Error).message.replace(file, shown));
  }
  return {
    implementation: given.implementation ?? report.implementation.name,
    version: given.version ?? report.implementation.version,
    date: given.date ?? report.environment.started_at,
    draft: draftOfReport(report).version,
    report,
    file: shown,
  };
}

/** The key two reports must not share. */
const claimOf = (e: SiteEntry): string => JSON.stringify([e.implementation, e.version, e.draft]);

/** Refuses two reports that stand for one implementation, version and draft, naming both files. */
function checkClaims(entries: readonly SiteEntry[]): void {
  const seen = new Map<string, SiteEntry>();
  for (const e of entries) {
    const earlier = seen.get(claimOf(e));
    if (earlier) {
      throw new SiteInputError(
        `${e.file}: claims ${e.implementation} ${e.version} at draft ${e.draft}, as ${earlier.file} already does; give each report its own version (a manifest can) or leave one out`,
      );
    }
    seen.set(claimOf(e), e);
  }
}

/**
 * The site's inputs: `paths` (reports or folders, relative to `cwd`) and, when given, a manifest's
 * reports (relative to the manifest's folder), in that order.
 */
export function readSiteInputs(paths: readonly string[], options: { manifest?: string; cwd: string }): SiteInputs {
  const entries: SiteEntry[] = [];
  let settings: SiteSettings = {};
  const shownFrom = (absolute: string): string => {
    const rel = relative(options.cwd, absolute);
    return rel.startsWith('..') || rel === '' ? absolute : rel;
  };
  for (const path of paths) {
    const absolute = resolve(options.cwd, path);
    for (const file of reportFilesAt(absolute, path)) entries.push(entryOf(file, file === absolute ? path : shownFrom(file)));
  }
  if (options.manifest !== undefined) {
    const manifestFile = resolve(options.cwd, options.manifest);
    const manifest = readManifest(manifestFile, options.manifest);
    const { reports, ...rest } = manifest;
    settings = rest;
    reports.forEach((item, index) => {
      const absolute = resolve(dirname(manifestFile), item.report);
      const files = reportFilesAt(absolute, `${options.manifest} /reports/${index}/report (${item.report})`);
      if (files.length !== 1) {
        throw new SiteInputError(`${options.manifest} /reports/${index}/report: ${item.report} holds ${files.length} reports below it; a manifest entry names one report (its file, or the folder that holds it)`);
      }
      const { report: _path, ...given } = item;
      entries.push(entryOf(files[0]!, shownFrom(files[0]!), given));
    });
  }
  if (entries.length === 0) throw new SiteInputError('no reports given: name report.json files, folders that hold them, or --manifest <file>');
  checkClaims(entries);
  return { entries, settings };
}

