/**
 * The credential a case's gates are built with (feature `gate-credentials`, PROD-8): a marker made up
 * at random for each run, so it cannot be in anything the implementation produces unless it came from
 * the setup, and how a test gate built with it answers (it needs it on every call, and may repeat it).
 * Where it showed afterwards is found by drive/credential-search.ts.
 */
import { randomBytes } from 'node:crypto';
import type { GateCallContext, GateReply } from '../../schemas/adapter.ts';
import { CREDENTIAL_PLACEHOLDER } from '../case-file/index.ts';
import { rememberMadeUpSecret } from '../values/index.ts';

/** A run's gate credential. */
export interface GateCredential {
  /** What the implementation is handed (`GateSetup.credential`). */
  value: string;
  /**
   * What the kit searches for: the random part alone (32 hex digits), so a leak that kept it but
   * changed the prefix is still found, and no text matches it by chance.
   */
  needle: string;
}

/** A fresh credential, random per run. */
export function makeGateCredential(): GateCredential {
  const needle = randomBytes(16).toString('hex');
  // PROD-8 searches the run record for it before the report; the report itself must not show it.
  rememberMadeUpSecret(needle);
  return { value: `kit-gate-credential-${needle}`, needle };
}

/**
 * What became of the credential in a case run, under `credential` of the run record. Absent from a
 * case whose gates have none.
 */
export interface CredentialRecord {
  /** Test gate calls that carried the credential the gate was built with. */
  carried: number;
  /** Test gate calls of a gate built with a credential that came without it, or with another. */
  not_carried: number;
  /**
   * Every place the credential shows in what the implementation exported or showed (the surfaces of
   * drive/credential-search.ts, `SEARCHED`), as paths of the run record: `loom.turns[3].observation`, `events[5].data.error`.
   */
  found: string[];
}

/** How a call of a gate built with `credential` stands: the gate refuses one that does not carry it. */
export function checkCarried(credential: GateCredential, context: GateCallContext): 'carried' | 'missing' | 'wrong' {
  if (context.credential === undefined) return 'missing';
  return context.credential === credential.value ? 'carried' : 'wrong';
}

/** The refusal of a gate called without its credential; it never repeats the secret. */
export function refusedForCredential(state: 'missing' | 'wrong'): GateReply {
  return { ok: false, error: { name: 'CredentialRefused', message: state === 'missing' ? 'this gate needs the credential it was built with, and the call carried none' : 'the call carried a credential other than the one this gate was built with' } };
}

/** `value` with every `{credential}` in its strings replaced by the secret: a reply that repeats it. */
export function withCredential<T>(value: T, credential: GateCredential): T {
  if (typeof value === 'string') return value.split(CREDENTIAL_PLACEHOLDER).join(credential.value) as T;
  if (Array.isArray(value)) return value.map((item) => withCredential(item, credential)) as T;
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, withCredential(v, credential)])) as T;
  return value;
}
