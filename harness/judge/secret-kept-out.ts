/**
 * PROD-8 (0.2.0 and 0.3.1), the ambient check `secret-kept-out`: the secrets the kit hands an
 * implementation never show in what it exports or shows. The secrets are the ones the kit itself made
 * up for the run, so none can be there by chance: the API key of each crystal endpoint (over a wire
 * transport) and the credential a gate is built with (feature `gate-credentials`). The places are the
 * loom and its exports, the streamed events, what the entity was shown (its LLM's requests), what the
 * user gets back (outcomes, refusals, failures) and the ACP session; logs written outside the adapter
 * are out of the kit's sight, unless the adapter hands them over (feature log-output), as it may the
 * loom's default export (feature loom-export). Every finding names the path where the secret showed.
 */
import type { LoadedCase } from '../case-file/index.ts';
import type { DriveResult } from '../drive/index.ts';
import { SEARCHED } from '../drive/index.ts';
import { pathsShowing } from '../values/index.ts';
import { catalogOf } from '../../spec/drafts.ts';

type Root = (typeof SEARCHED)[number];

/** The place, as a report names it, of each part of the run record searched for secrets. */
export const PLACE_OF: Record<Root, string> = {
  loom: 'the loom',
  threads: 'the loom',
  snapshots: 'the loom',
  exports: 'the loom export',
  logs: 'the logs',
  events: 'the streamed events',
  requests: 'the observations sent to the LLM',
  after_outcome: 'the observations sent to the LLM',
  outcomes: 'the cast outcomes',
  forks: 'the cast outcomes',
  mutations: 'the reported failures',
  errors: 'the reported failures',
  failures: 'the reported failures',
  acp: 'the ACP session',
  acp_sessions: 'the ACP session',
  acp_prompts: 'the ACP session',
};

/** A secret handed over in a case run: what it is, and the text that shows it. */
interface HandedSecret {
  what: string;
  needle: string;
}

/** The secrets the kit handed over in this run that the check can look for. */
function handedSecrets(d: DriveResult): HandedSecret[] {
  const keys = Object.values(d.prepared.setup.crystal_endpoints ?? {}).flatMap((e) => (e.api_key ? [e.api_key] : []));
  const secrets: HandedSecret[] = [...new Set(keys)].map((needle) => ({ what: 'the API key of a crystal endpoint', needle }));
  // An ACP agent is handed its crystal's key in its launch: everything it sends is searched for it (acp.inbound holds every message).
  if (d.prepared.acp_api_key) secrets.push({ what: 'the API key handed to the ACP agent', needle: d.prepared.acp_api_key });
  // A gate credential counts once some call carried it to the gate (the cast used it), or it showed anyway.
  const used = d.record.credential !== undefined && (d.record.credential.carried > 0 || d.record.credential.found.length > 0);
  if (d.prepared.credential && used) secrets.push({ what: 'the credential of a gate', needle: d.prepared.credential.needle });
  return secrets;
}

/** Where one secret shows: every path, grouped by place in {@link PLACE_OF} order. */
export function placesShowing(record: DriveResult['record'], needle: string): Map<string, string[]> {
  const byPlace = new Map<string, string[]>();
  for (const root of SEARCHED) {
    const paths = pathsShowing(record[root], needle, root);
    if (paths.length > 0) byPlace.set(PLACE_OF[root], [...(byPlace.get(PLACE_OF[root]) ?? []), ...paths]);
  }
  return byPlace;
}

/** At most this many paths per place in a detail: the rest are counted. */
const PATHS_SHOWN = 5;

type CheckResult = { status: 'pass' } | { status: 'skipped'; detail: string } | { status: 'fail'; detail: string; cause: string };

/** The check (harness/judge/invariants.ts lists it under `secret-kept-out`). */
export function secretKeptOut(c: LoadedCase, d: DriveResult): CheckResult {
  const draft = c.judged_draft ?? '0.1.0';
  if (!catalogOf(draft).rules.some((r) => r.id === 'PROD-8')) return { status: 'skipped', detail: `draft ${draft} has no rule about secrets (PROD-8)` };
  const secrets = handedSecrets(d);
  if (secrets.length === 0) return { status: 'skipped', detail: 'no secret was handed to the implementation and used (crystals reached by callback, no gate credential carried to its gate)' };
  const lines: string[] = [];
  const places = new Set<string>();
  for (const secret of secrets) {
    for (const [place, paths] of placesShowing(d.record, secret.needle)) {
      places.add(place);
      const more = paths.length > PATHS_SHOWN ? ` and ${paths.length - PATHS_SHOWN} more` : '';
      lines.push(`${secret.what} shows in ${place}: ${paths.slice(0, PATHS_SHOWN).join(', ')}${more}`);
    }
  }
  if (lines.length === 0) return { status: 'pass' };
  return { status: 'fail', detail: lines.join('\n'), cause: [...places].map((place) => `credential in ${place}`).join('\n') };
}
