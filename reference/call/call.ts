import type { CallRecord, Hyperparameters, Message } from '../../schemas/index.ts';
import { CantripError } from '../errors.ts';
import { deepFreeze } from '../freeze.ts';

/**
 * The call: the entity's fixed identity, a system prompt and sampling hyperparameters (chapter 3).
 * It holds no gate definitions (CALL-3 at 0.1.0, which forbids them; IDENTITY-3 from 0.2.0, which lets
 * an identity carry rendered copies, a permission the reference does not use): those belong to the
 * circle, at every draft (docs/reference.md, "Drafts").
 */
export interface Call {
  readonly systemPrompt: string | null;
  readonly hyperparameters: Readonly<Hyperparameters>;
}

const CALL_KEYS = new Set(['systemPrompt', 'hyperparameters']);

/**
 * Builds a call and freezes it deeply, so no one can change it after construction (CALL-1): writing to
 * a frozen object throws in strict-mode code, which all ES modules are.
 *
 * Anything other than a prompt and hyperparameters is refused (CALL-3: in particular, gate or tool
 * definitions have no place in a call).
 */
export function createCall(options: { systemPrompt?: string | null; hyperparameters?: Hyperparameters } = {}): Call {
  // Stryker disable all: equivalent under the conformance suite (docs/mutation.md): a guard of the library API only; the adapter builds every call from these two keys, so no case can hand it another.
  for (const key of Object.keys(options)) {
    if (!CALL_KEYS.has(key)) {
      throw new CantripError('missing_call', `a call holds only systemPrompt and hyperparameters, not '${key}'`);
    }
  }
  // Stryker restore all
  return deepFreeze({
    systemPrompt: options.systemPrompt ?? null,
    hyperparameters: structuredClone(options.hyperparameters ?? {}),
  });
}

/** The messages the call contributes to every query: the system prompt, first (CALL-2). */
export function callMessages(call: Call): Message[] {
  return call.systemPrompt === null ? [] : [{ role: 'system', content: call.systemPrompt }];
}

/**
 * The call as the loom stores it on a `call` turn (CALL-4). It shares the call's hyperparameters: the
 * loom stores a sealed copy of the turn (LOOM-3), so this record needs no copy of its own.
 */
export function callRecord(call: Call): CallRecord {
  return { system_prompt: call.systemPrompt, hyperparameters: call.hyperparameters as Hyperparameters };
}
