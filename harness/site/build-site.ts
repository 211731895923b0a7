/**
 * Builds the results site: every page and badge as a file in memory (`buildSite`), then written into a
 * folder (`writeSite`). The pages are plain, self-contained HTML: they open from disk and publish to any
 * static host; none fetches anything. Pages link to each other by relative paths only.
 */
import { existsSync, readdirSync, rmSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { html, makeOutputFolder, plural, writeOutputFile } from '../report/index.ts';
import type { SiteInputs } from './entries.ts';
import { badgeFiles } from './badges.ts';
import { renderFrontPage } from './front-page.ts';
import { renderImplementationPage } from './implementation-page.ts';
import { buildSiteModel, type SiteModel } from './model.ts';
import { paths } from './page.ts';
import { referenceMentions, type CodeMention } from './reference-code.ts';
import { renderRulePage } from './rule-page.ts';

export interface SiteFile {
  /** Relative to the site's root, with `/`. */
  path: string;
  content: string;
}

export interface Site {
  model: SiteModel;
  files: SiteFile[];
}

/** Marks a folder as a site this command wrote, so a rebuild may clear it and nothing else. */
export const SITE_MARKER = '.cantrip-site';

function footerOf(model: SiteModel): string {
  const newest = model.columns.map((c) => c.entry.report.environment.started_at).sort().pop() ?? '';
  return `Built by <code>cantrip-conformance site</code> from ${plural(model.reportCount, 'report')} (the newest judged ${html(newest)}). Every page is plain HTML and fetches nothing.`;
}

/** Every file of the site built from `inputs`. `mentions` is where the reference carries each rule (default: read from the kit's sources). */
export function buildSite(inputs: SiteInputs, mentions: Map<string, CodeMention[]> = referenceMentions()): Site {
  const model = buildSiteModel(inputs.entries, inputs.settings);
  const footer = footerOf(model);
  const files: SiteFile[] = [{ path: paths.front, content: renderFrontPage(model, footer) }];
  for (const impl of model.implementations) files.push({ path: paths.implementation(impl.slug), content: renderImplementationPage(model, impl, footer) });
  for (const row of model.matrix.rows) files.push({ path: paths.rule(row.id), content: renderRulePage(model, row, mentions, footer) });
  for (const b of badgeFiles(model)) files.push({ path: b.path, content: `${JSON.stringify(b.badge, null, 2)}\n` });
  files.push({ path: SITE_MARKER, content: 'written by cantrip-conformance site; a rebuild clears this folder\n' });
  return { model, files };
}

/** A folder the site may be written into: absent, empty, or a site written before. */
export class SiteOutputError extends Error {
  override name = 'SiteOutputError';
}

/**
 * Writes the site into `dir`. A folder that holds an earlier site (it has the marker file) is cleared
 * first, so pages of implementations no longer in the inputs do not linger; any other non-empty folder
 * is refused rather than mixed into. Each file is written as the reports are: to a temporary name, then renamed.
 */
export function writeSite(dir: string, site: Site): string[] {
  if (existsSync(dir)) {
    if (!statSync(dir).isDirectory()) throw new SiteOutputError(`${dir}: exists and is not a folder`);
    const present = readdirSync(dir);
    if (present.length > 0 && !present.includes(SITE_MARKER)) throw new SiteOutputError(`${dir}: a folder that holds other files (${present.slice(0, 3).join(', ')}${present.length > 3 ? ', …' : ''}); give an empty or new folder, or one an earlier \`site\` wrote`);
    for (const name of present) rmSync(join(dir, name), { recursive: true, force: true });
  }
  // Written as the reports are (harness/report/write-files.ts): a temporary name renamed over the final
  // one, so a planted symlink is replaced rather than written through, and no reader sees half a page.
  const written: string[] = [];
  for (const f of site.files) {
    const path = join(dir, f.path);
    makeOutputFolder(dirname(path));
    written.push(writeOutputFile(dirname(path), basename(path), f.content));
  }
  return written;
}
