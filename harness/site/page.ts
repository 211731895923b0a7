/**
 * The frame every page of the results site shares: the head (one inline style, a Content-Security-Policy
 * that forbids every fetch), the navigation back to the front page, and the footer. A page may carry
 * one inline script, allowed by its hash alone; every page reads in full without it (the script only
 * sorts and filters tables that are already there), so a reader with scripts off loses nothing but that.
 */
import { createHash } from 'node:crypto';
import { documentHead, html, STYLE } from '../report/index.ts';

/** Styles the site adds to the report's. */
const SITE_STYLE = `${STYLE}
header.site { display: flex; flex-wrap: wrap; align-items: baseline; gap: .5rem 1.5rem; border-bottom: 1px solid var(--line); padding-bottom: .5rem; }
header.site .home { font-weight: 600; }
footer.site { margin-top: 3rem; border-top: 1px solid var(--line); padding-top: .5rem; }
td.cell { min-width: 11rem; }
td.cell .levels { display: flex; flex-direction: column; gap: .1rem; }
th button { all: unset; cursor: pointer; } th button::after { content: " \\2195"; color: var(--muted); }
.filters { display: flex; flex-wrap: wrap; gap: .5rem 1.5rem; align-items: center; margin: .5rem 0; }
svg.trend { background: var(--head); border: 1px solid var(--line); border-radius: 6px; }
svg.trend text { fill: var(--muted); font-size: 10px; }
`;

/** Sorts a table by a clicked header and filters the rows of tables marked `data-filter` by the text box and the checkbox above them. */
export const TABLE_SCRIPT = `
document.querySelectorAll('table.sortable').forEach(function (table) {
  table.querySelectorAll('th[data-sort]').forEach(function (th, col) {
    var button = document.createElement('button');
    button.textContent = th.textContent;
    th.textContent = '';
    th.appendChild(button);
    var index = Array.prototype.indexOf.call(th.parentNode.children, th);
    button.addEventListener('click', function () {
      var body = table.tBodies[0];
      var down = th.getAttribute('aria-sort') !== 'descending';
      table.querySelectorAll('th').forEach(function (h) { h.removeAttribute('aria-sort'); });
      th.setAttribute('aria-sort', down ? 'descending' : 'ascending');
      var key = function (row) { var cell = row.children[index]; return cell ? (cell.getAttribute('data-key') || cell.textContent || '') : ''; };
      var rows = Array.prototype.slice.call(body.rows);
      rows.sort(function (a, b) {
        var x = key(a), y = key(b), nx = parseFloat(x), ny = parseFloat(y);
        var c = !isNaN(nx) && !isNaN(ny) ? nx - ny : x.localeCompare(y);
        return down ? -c : c;
      });
      rows.forEach(function (row) { body.appendChild(row); });
    });
  });
});
document.querySelectorAll('.filters').forEach(function (box) {
  box.hidden = false;
  var table = document.getElementById(box.getAttribute('data-for'));
  var text = box.querySelector('input[type=search]');
  var failing = box.querySelector('input[type=checkbox]');
  var apply = function () {
    var words = text.value.toLowerCase();
    Array.prototype.forEach.call(table.tBodies[0].rows, function (row) {
      var shown = row.textContent.toLowerCase().indexOf(words) >= 0 && (!failing.checked || row.getAttribute('data-broken') === 'yes');
      row.hidden = !shown;
    });
  };
  text.addEventListener('input', apply);
  failing.addEventListener('change', apply);
});
`;

export interface PageOptions {
  title: string;
  /** The site's title, shown in every header. */
  siteTitle: string;
  /** How many folders below the site's root the page is (0 for index.html), to link back up. */
  depth: number;
  /** The page's one inline script, if it has one. */
  script?: string;
  /** The footer's line: what the site was built from. */
  footer: string;
}

const sha256 = (text: string): string => createHash('sha256').update(text, 'utf8').digest('base64');

/** The policy of a page: nothing is fetched; its style and, when it has one, its script (by hash) apply. */
export function pagePolicy(script?: string): string {
  const scripts = script === undefined ? "script-src 'none'" : `script-src 'sha256-${sha256(script)}'`;
  return `default-src 'none'; style-src 'unsafe-inline'; img-src data:; ${scripts}; base-uri 'none'; form-action 'none'`;
}

/** The relative path from a page `depth` folders down to a file at the site's root. */
export const up = (depth: number, path: string): string => `${'../'.repeat(depth)}${path}`;

/** A whole page. `body` is HTML already escaped where it holds text. */
export function page(options: PageOptions, body: string): string {
  return [
    ...documentHead(`${options.title} · ${options.siteTitle}`, SITE_STYLE, pagePolicy(options.script)),
    '<body>',
    `<header class="site"><a class="home" href="${up(options.depth, 'index.html')}">${html(options.siteTitle)}</a><a href="${up(options.depth, 'index.html#rules')}">rules</a><a href="${up(options.depth, 'index.html#implementations')}">implementations</a></header>`,
    '<main>',
    body,
    '</main>',
    `<footer class="site muted">${options.footer}</footer>`,
    ...(options.script === undefined ? [] : [`<script>${options.script}</script>`]),
    '</body>',
    '</html>',
    '',
  ].join('\n');
}

/** A status as a coloured label (the report's styles: `s-pass`, `s-fail`, …). */
export const statusBadge = (status: string, text: string = status): string => `<span class="badge s-${html(status)}">${html(text)}</span>`;

/**
 * A name as a file name: letters, digits, `_`, `-` and (not first) `.` stay; every other character is
 * spelled `~XX` in hex (`~` itself included), so distinct names stay distinct and none climbs out of its folder.
 */
export const fileSafe = (name: string): string =>
  Array.from(name, (ch, i) => (/[A-Za-z0-9_-]/.test(ch) || (ch === '.' && i > 0) ? ch : `~${ch.codePointAt(0)!.toString(16)}`)).join('') || '_';

/** Where each kind of page lives, relative to the site's root. */
export const paths = {
  front: 'index.html',
  implementation: (slug: string): string => `implementations/${fileSafe(slug)}.html`,
  rule: (id: string): string => `rules/${fileSafe(id)}.html`,
  badge: (slug: string, draft: string): string => `badges/${fileSafe(slug)}/${fileSafe(draft)}.json`,
};
