import { readFileSync } from 'node:fs';
import type { Crystal } from '../crystal/contract.ts';
import { CrystalError } from '../crystal/crystal-error.ts';
import { KEY_VARIABLES, LOCAL_KEY_VARIABLE } from '../crystal/providers/env.ts';
import { FAMILIES, resolveCrystal } from '../crystal/providers/resolve.ts';
import { ScriptedCrystal, type ScriptStep } from '../crystal/scripted.ts';

/** The prefix of a crystal replayed from a JSON file of replies (tests and troubleshooting, no network). */
export const SCRIPTED_PREFIX = 'scripted:';

/**
 * The agent's crystal from its one-line spec. Beyond the provider specs of `resolveCrystal`, a hosted
 * family may name another address as `<family>:<base URL>#<model>` (a proxy, a gateway, a test
 * server), and `scripted:<file.json>` replays the replies listed in the file, one per query. Keys come
 * from the environment as usual and never appear in an error message.
 */
export function agentCrystal(spec: string, env: Record<string, string | undefined> = process.env): Crystal {
  if (spec.startsWith(SCRIPTED_PREFIX)) return scriptedFromFile(spec.slice(SCRIPTED_PREFIX.length));
  const colon = spec.indexOf(':');
  const family = spec.slice(0, colon);
  const rest = spec.slice(colon + 1);
  const hash = rest.lastIndexOf('#');
  if (colon > 0 && family !== 'local' && (FAMILIES as readonly string[]).includes(family) && /^https?:\/\//.test(rest) && hash !== -1) {
    return resolveCrystal(`${family}:${rest.slice(hash + 1)}`, { env, baseUrl: rest.slice(0, hash) });
  }
  return resolveCrystal(spec, { env });
}

/**
 * PROD-8: every credential the agent could be holding: the values of the provider key variables that
 * are set. The agent scrubs them from everything it sends the client and everything it logs.
 */
export function credentialsIn(env: Record<string, string | undefined>): string[] {
  const variables = [...Object.values(KEY_VARIABLES), LOCAL_KEY_VARIABLE];
  return variables.map((variable) => env[variable]?.trim() ?? '').filter((value) => value !== '');
}

function scriptedFromFile(file: string): Crystal {
  if (file === '') throw new CrystalError('missing_crystal', `crystal spec '${SCRIPTED_PREFIX}': no file after the prefix`);
  let steps: unknown;
  try {
    steps = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new CrystalError('missing_crystal', `scripted crystal ${file}: cannot read a JSON file (${(error as Error).message})`);
  }
  if (!Array.isArray(steps) || steps.some((step) => typeof step !== 'object' || step === null || Array.isArray(step))) {
    throw new CrystalError('missing_crystal', `scripted crystal ${file}: expected a JSON array of crystal responses (objects)`);
  }
  return new ScriptedCrystal(steps as ScriptStep[], `scripted:${file}`);
}
