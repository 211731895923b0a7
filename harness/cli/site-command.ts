/**
 * `site <report.json|folder>... [--manifest <file>] [--out <dir>] [--title <text>] [--base-url <url>]
 * [--source-url <url>]`: builds the static results site from reports written by `run`
 * (harness/site/). Exit 0 when the site was written; 2 for bad usage, a report that does not validate,
 * two reports that claim one implementation, version and draft, or an output folder it must not use.
 */
import { resolve } from 'node:path';
import { parseCommandLine, type OptionTable } from './arguments.ts';
import { buildSite, readSiteInputs, writeSite } from '../site/index.ts';
import type { CompareIo } from './compare.ts';

export const SITE_USAGE = 'usage: cantrip-conformance site <report.json | folder>... [--manifest <file>] [--out <dir>] [--title <text>] [--base-url <url>] [--source-url <url>]';

/** Where the site goes unless --out says elsewhere. */
export const DEFAULT_SITE_OUT = 'cantrip-site';

const SITE_OPTIONS = {
  manifest: { type: 'string' },
  out: { type: 'string' },
  title: { type: 'string' },
  'base-url': { type: 'string' },
  'source-url': { type: 'string' },
} as const satisfies OptionTable;

const SITE_HELP = `${SITE_USAGE}
  Builds a static results site from reports written by \`run\`: the implementations by draft on the
  front page (with the rules they split on and the rules nobody passes), a page per implementation
  (verdicts, failures by root cause, skips, badges, history across versions) and a page per rule. Plain
  files that open from disk or from any static host; no page fetches anything.
  <report.json | folder>  a report, or a folder searched for report.json files
  --manifest <file>       YAML or JSON naming each report with its implementation, version and date
                          (schemas/site-manifest.schema.json; paths relative to the manifest)
  --out <dir>             where the site is written; a folder an earlier \`site\` wrote is replaced [${DEFAULT_SITE_OUT}]
  --title <text>          the site's title [the manifest's, else "Cantrip implementations"]
  --base-url <url>        where the site will be published, for the badge embeds [the manifest's]
  --source-url <url>      a repository address that kit paths are appended to, for links to the reference code [the manifest's]
  exit codes: 0 the site was written, 2 bad usage, a report that does not validate, two reports claiming one
  implementation, version and draft, or an output folder that holds other files`;

export function runSite(args: string[], io: CompareIo): number {
  try {
    const { values, positionals } = parseCommandLine(args, SITE_OPTIONS, true);
    if (values['help'] === true) {
      io.out(SITE_HELP);
      return 0;
    }
    const manifest = values['manifest'] as string | undefined;
    const inputs = readSiteInputs(positionals, { cwd: io.cwd, ...(manifest !== undefined && { manifest }) });
    for (const [option, key] of [['title', 'title'], ['base-url', 'base_url'], ['source-url', 'source_url']] as const) {
      const given = values[option] as string | undefined;
      if (given !== undefined) inputs.settings[key] = given;
    }
    const out = resolve(io.cwd, (values['out'] as string | undefined) ?? DEFAULT_SITE_OUT);
    const site = buildSite(inputs);
    const written = writeSite(out, site);
    const m = site.model;
    io.out(`wrote ${written.length} files into ${out}: ${m.implementations.length} implementations, ${m.columns.length} verdicts over ${m.drafts.join(', ')}, ${m.matrix.rows.length} rule pages (${m.split.length} split, ${m.nobody.length} nobody passes); open ${resolve(out, 'index.html')}`);
    return 0;
  } catch (error) {
    // SiteInputError and SiteOutputError name the file or folder; a usage error names the option.
    io.err(`${(error as Error).message}\n${SITE_USAGE}`);
    return 2;
  }
}
