/**
 * Links from a rule id, as one report names it in its draft's words, to the site's page for that rule:
 * rule pages are named by the rule's id in the newest draft that has it, so `CRYSTAL-4` of a 0.1.0
 * report links to the page of `LLM-4 / CRYSTAL-4`.
 */
import { html } from '../report/index.ts';
import type { SiteModel } from './model.ts';
import { paths } from './page.ts';

export type RuleLinker = (id: string, draft: string) => string;

/** Makes a linker for pages `depth` folders below the site's root. */
export function ruleLinker(model: SiteModel, depth: number): RuleLinker {
  const pageOf = new Map<string, string>();
  for (const row of model.matrix.rows) for (const [draft, id] of Object.entries(row.ids)) pageOf.set(`${draft} ${id}`, row.id);
  return (id, draft) => {
    const target = pageOf.get(`${draft} ${id}`);
    return target === undefined ? html(id) : `<a href="${'../'.repeat(depth)}${paths.rule(target)}">${html(id)}</a>`;
  };
}
