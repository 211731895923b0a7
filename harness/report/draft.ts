/**
 * The spec draft a report judged, and what the outputs take from it: its name for people
 * (`Cantrip 0.3.1 (0c876ea)`), its rule catalog (titles, levels, summaries, how many rules there are),
 * and its words for the chapters whose names moved between drafts ("The crystal" at 0.1.0 is "The LLM"
 * later). A report without a draft (written before drafts were told apart) judged 0.1.0, as does a run
 * of an implementation that declares no draft.
 */
import { catalogOf, draftOf, type DraftCatalog } from '../../spec/drafts.ts';

/** The draft a run judged, as report.json records it (schemas/report.schema.json `draft`). */
export interface ReportDraft {
  /** The registry's version, e.g. `0.3.1`. */
  version: string;
  /** Abbreviated upstream commit of the draft's text. */
  commit: string;
  /** The version as the text states it, e.g. `0.1.0-draft`. */
  label: string;
}

/** The draft judged when nothing says which: the seed draft, the one the kit was first written for. */
export const UNDECLARED_DRAFT = '0.1.0';

/** The registry's facts about a draft version (or label). Throws naming the known versions for an unknown one. */
export function reportDraft(version: string = UNDECLARED_DRAFT): ReportDraft {
  const draft = draftOf(version);
  return { version: draft.version, commit: draft.commit, label: draft.label };
}

/** The draft a report judged; 0.1.0 for a report that does not say. */
export function draftOfReport(report: { draft?: ReportDraft }): ReportDraft {
  return report.draft ?? reportDraft(UNDECLARED_DRAFT);
}

/** `Cantrip 0.3.1 (0c876ea)`: how every output names the draft it judged. */
export function draftName(draft: ReportDraft): string {
  return `Cantrip ${draft.version} (${draft.commit})`;
}

/** `Cantrip 0.3.1 (0c876ea)` for the draft a report judged. */
export function judgedDraftName(report: { draft?: ReportDraft }): string {
  return draftName(draftOfReport(report));
}

/** `; 14 cases outside this draft (not run)`, or nothing when every selected case applies to it. */
export function outsideDraftNote(report: { outside_draft?: string[] }): string {
  const n = report.outside_draft?.length ?? 0;
  return n === 0 ? '' : `; ${n} ${n === 1 ? 'case' : 'cases'} outside this draft (not run)`;
}

/**
 * The rule catalog of the draft a report judged, or undefined when this kit's registry does not know
 * that draft (a report written by a newer kit): the outputs then fall back on the report's own rules.
 */
export function catalogOfReport(report: { draft?: ReportDraft }): DraftCatalog | undefined {
  try {
    return catalogOf(draftOfReport(report).version);
  } catch {
    return undefined;
  }
}

/**
 * The chapter titles of a draft, in its own words: chapter 2 is about the model (`crystal` at 0.1.0,
 * `LLM` later), chapter 3 about what the model is told (`call`, later `identity`); the other five kept
 * their names. The words come from the registry's `terms`, so a new draft brings its own.
 */
export function chapterTitles(version: string = UNDECLARED_DRAFT): Record<number, string> {
  const { terms } = draftOf(version);
  return { 1: 'The loop', 2: `The ${terms.llm}`, 3: `The ${terms.identity}`, 4: 'The circle', 5: 'Composition', 6: 'The loom', 7: 'Production' };
}
