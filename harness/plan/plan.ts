/**
 * Plans a run: puts each case in the judged draft's terms (or leaves it outside the draft: drafts.ts),
 * keeps the cases a filter selects and decides, from what the implementation declares, which must be
 * skipped and why (a missing feature, a sandbox that speaks another language), and which wire-only
 * cases a callback run drives over a wire transport the implementation declares.
 */
import type { CrystalTransport, Description } from '../../schemas/adapter.ts';
import { OPTIONAL_WARDS } from '../../schemas/adapter.ts';
import { caseDrafts, scriptSteps, withSetupNeeds, type LoadedCase } from '../case-file/index.ts';
import { caseForDraft, chooseDraft } from './drafts.ts';
import { selects, termsAtDraft } from './filter.ts';

export interface PlannedCase {
  /** The case in the judged draft's terms; as loaded when it is outside the draft. */
  case: LoadedCase;
  /**
   * Set when the case does not apply to the judged draft (which drafts it applies to): it is not run,
   * and counts neither as failed nor as skipped.
   */
  outside?: string;
  /** Set when the case is skipped. */
  skip?: string;
  /**
   * Set when the case runs over another crystal transport than the run's: a case about a wire format
   * (its `transports` leave out `callback`) in a callback run, over a wire transport the implementation
   * declares ({@link wireTransportFor}).
   */
  transport?: CrystalTransport;
}

/**
 * The wire transport a callback run drives a wire-only case over: the first the case names that the
 * implementation declares in `describe().crystal_transports`. So an implementation that offers provider
 * code is judged on it by default, without `--crystal-transport`; undefined when it declares none of them.
 */
export function wireTransportFor(c: LoadedCase, declared: readonly CrystalTransport[]): CrystalTransport | undefined {
  return c.transports?.find((t) => t !== 'callback' && declared.includes(t));
}

/** Languages of the code utterances a case scripts. */
export function codeLanguages(c: LoadedCase): Set<string> {
  const languages = new Set<string>();
  for (const step of scriptSteps(c)) for (const lang of Object.keys(step.code ?? {})) languages.add(lang);
  return languages;
}

/** Fork strategies a case's fork actions ask for (§6.6): the implementation must declare each, or the case is skipped. */
export function askedForkStrategies(c: LoadedCase): string[] {
  const asked = c.act.flatMap((a) => ('fork' in a && a.fork.strategy !== undefined ? [a.fork.strategy] : []));
  return [...new Set(asked)];
}

/** Optional ward kinds a case sets (OPTIONAL_WARDS): the implementation must declare each, or the case is skipped. */
export function optionalWards(c: LoadedCase): string[] {
  const wards = c.setup.circle?.wards ?? {};
  return OPTIONAL_WARDS.filter((w) => wards[w] !== undefined);
}

/**
 * Plans `cases` for the judged `draft` (default: the newest the implementation declares, drafts.ts).
 * Filter terms match the case in the judged draft's IDs (a case outside it: in its own); a term naming
 * another draft's rule is read as its counterpart in the judged draft (filter.ts `termsAtDraft`).
 */
export function planCases(cases: readonly LoadedCase[], description: Description, filter: readonly string[] = [], transport: CrystalTransport = 'callback', draft: string = chooseDraft(description)): PlannedCase[] {
  const terms = termsAtDraft(filter, draft);
  return cases.flatMap((loaded) => {
    const c = caseForDraft(loaded, draft);
    if (!selects(c ?? loaded, terms)) return [];
    if (c === undefined) return [{ case: loaded, outside: `the case applies to draft ${caseDrafts(loaded).join(', ')}, not ${draft}` }];
    return [planInside(c, description, transport)];
  });
}

/** Plans a case that applies to the judged draft (already in its terms). */
function planInside(c: LoadedCase, description: Description, transport: CrystalTransport): PlannedCase {
  const transports = description.crystal_transports ?? ['callback'];
  if (!transports.includes(transport)) return { case: c, skip: `crystal transport not declared: ${transport} (describe().crystal_transports)` };
  const features = new Set<string>(description.features);
  let over: CrystalTransport | undefined;
  if (c.transports !== undefined && !c.transports.includes(transport)) {
    over = transport === 'callback' ? wireTransportFor(c, transports) : undefined;
    if (over === undefined) {
      const why = transport === 'callback' ? 'and the implementation declares none of them (describe().crystal_transports)' : `not ${transport}`;
      return { case: c, skip: `the case is about the ${c.transports.join(' or ')} transport, ${why}` };
    }
  }
  // What the setup uses counts whether or not the case lists it (a case built in code never went through the loader).
  const missing = withSetupNeeds(c).filter((f) => !features.has(f));
  if (missing.length > 0) return { case: c, skip: `feature not declared: ${missing.join(', ')}` };
  const wards = new Set<string>(description.wards ?? []);
  const undeclared = optionalWards(c).filter((w) => !wards.has(w));
  if (undeclared.length > 0) return { case: c, skip: `ward not declared: ${undeclared.join(', ')} (describe().wards)` };
  const strategies = new Set<string>(description.fork_strategies ?? []);
  const unoffered = askedForkStrategies(c).filter((s) => !strategies.has(s));
  if (unoffered.length > 0) return { case: c, skip: `fork strategy not declared: ${unoffered.join(', ')} (describe().fork_strategies)` };
  const languages = codeLanguages(c);
  const spoken = description.sandbox?.language;
  if (languages.size > 0 && (spoken === undefined || !languages.has(spoken))) {
    return { case: c, skip: `sandbox language: the case scripts ${[...languages].join(', ')}, the implementation's sandbox speaks ${spoken ?? 'nothing'}` };
  }
  return { case: c, ...(over !== undefined && { transport: over }) };
}
