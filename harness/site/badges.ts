/**
 * Badges: one shields.io endpoint file per implementation and draft (the newest version's verdict, as
 * `run` writes badge.json), and the Markdown that embeds it. shields.io fetches the endpoint file from
 * where the site is published, so the embed needs the site's address (`base_url`); without it the page
 * shows the line with a placeholder to replace.
 */
import { html, renderBadge, type Badge } from '../report/index.ts';
import type { SiteEntry } from './entries.ts';
import type { SiteImplementation, SiteModel } from './model.ts';
import { paths } from './page.ts';

/** Stands in for the site's address in an embed line when the manifest gives none. */
export const BASE_URL_PLACEHOLDER = 'https://YOUR-SITE';

/** Every badge file of the site: path relative to its root, and the endpoint JSON. */
export function badgeFiles(model: SiteModel): { path: string; badge: Badge }[] {
  return model.columns.map((c) => ({ path: paths.badge(c.implementation.slug, c.entry.draft), badge: renderBadge(c.entry.report) }));
}

/** The colours shields.io gives its named colours, for the preview drawn on the page itself. */
const COLOURS: Record<string, string> = { brightgreen: '#4c1', green: '#97ca00', yellow: '#dfb317', red: '#e05d44', blue: '#007ec6', lightgrey: '#9f9f9f' };

/** The badge of one report, drawn on the page, with the endpoint file and the Markdown that embeds it. */
export function badgeEmbed(model: SiteModel, impl: SiteImplementation, entry: SiteEntry): string {
  const badge = renderBadge(entry.report);
  const file = paths.badge(impl.slug, entry.draft);
  const base = (model.settings.base_url ?? BASE_URL_PLACEHOLDER).replace(/\/+$/, '');
  const markdown = `![${badge.label}](https://img.shields.io/endpoint?url=${encodeURIComponent(`${base}/${file}`)})`;
  const preview = `<span class="badge" style="background:#555;color:#fff;border-radius:3px 0 0 3px">${html(badge.label)}</span><span class="badge" style="background:${COLOURS[badge.color] ?? '#9f9f9f'};color:#fff;border-radius:0 3px 3px 0">${html(badge.message)}</span>`;
  const note = model.settings.base_url === undefined ? `<p class="muted">Replace <code>${BASE_URL_PLACEHOLDER}</code> with the address the site is published at (or give <code>base_url</code> in the manifest).</p>` : '';
  return `<p>${preview}</p><p>Endpoint: <a href="../${file}"><code>${html(file)}</code></a>. Embed in Markdown:</p><pre>${html(markdown)}</pre>${note}`;
}
