/**
 * Two fields of a turn that the spec's Turn record (§6.1) does not list, but whose names the drafts give in
 * their own words, read in the kit's words (`truncation_cause`, `call`; docs/adapter-protocol.md):
 *
 * - the cause of a truncation: COMP-9 (every draft) says the loom tells a parent-ended child apart "by the
 *   reason field", so a truncated turn may name its cause `reason`;
 * - what the root context records: from 0.2.0 the root is the identity (IDENTITY-4, role `identity`), so
 *   the root may keep its system prompt and hyperparameters under `identity` instead of `call`.
 *
 * A field is renamed only when the kit's word is absent, and `reason` only on a truncated turn or when it is
 * null (a reason on another turn is some other field of the implementation's, left alone). Applied after the role words (draft-roles.ts).
 */
import type { Adapter } from '../../schemas/adapter.ts';
import { withLoomView } from './loom-view.ts';
import type { Turn } from '../../schemas/records.ts';
import { turnKindAt } from '../../spec/drafts.ts';

type Fields = Record<string, unknown>;

/** `turn` with a draft-worded truncation cause or identity record under the kit's field name. */
export function turnFieldsInKitWords(turn: Turn, draft: string | undefined): Turn {
  if (turn === null || typeof turn !== 'object') return turn;
  const fields = turn as unknown as Fields;
  let out: Fields | undefined;
  if (!('truncation_cause' in fields) && 'reason' in fields && (fields['truncated'] === true || fields['reason'] === null)) {
    const { reason, ...rest } = fields;
    out = { ...rest, truncation_cause: reason };
  }
  // The root's record takes the root's role word wherever the judged draft calls the root `identity`.
  if (!('call' in fields) && 'identity' in fields && turnKindAt('identity', draft) === 'call' && turnKindAt(String(fields['role']), draft) === 'call') {
    const { identity, ...rest } = out ?? fields;
    out = { ...rest, call: identity };
  }
  return (out ?? turn) as unknown as Turn;
}

/** The adapter with `loom()` and `thread()` answering with {@link turnFieldsInKitWords} applied to every turn. */
export function withDraftFieldWords(adapter: Adapter, draft: string | undefined): Adapter {
  return withLoomView(adapter, (turns) => turns.map((t) => turnFieldsInKitWords(t, draft)));
}
