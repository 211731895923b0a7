/**
 * What each deliberately broken miniature must show, shared by the test that checks it
 * (harness/run/miniatures.test.ts) and the measurement of rule labels per defect (bench/rule-labels.ts).
 * The rules are 0.1.0's, the draft the defects are written in; `mapRuleId` gives them at a later draft.
 */
import { conformantVariant, type Defect } from '../../fixtures/miniatures/miniature.ts';
import type { Adapter } from '../../schemas/adapter.ts';
import type { Turn } from '../../schemas/records.ts';
import { withLoomView } from '../drive/loom-view.ts';

/**
 * Each deliberately broken miniature and what the suite must catch: failing case ids, and the rules it
 * breaks (fixtures/miniatures/defects.ts says why each one is broken). The run must show broken exactly
 * `rules`, no other: a run that leaves its script is a driving fault under the rule that was broken
 * (harness/drive/mock-crystal.ts, harness/drive/course.ts), and what the case's expectations and the
 * ambient checks read after it are its consequences, not failures of their own rules.
 */
export const EXPECTED: Record<Defect, { cases: string[]; rules: string[] }> = {
  'ignores-done': { cases: ['done-ends-cast-with-answer', 'loop3-done-first-of-three-calls'], rules: ['LOOP-3', 'CIRCLE-8'] },
  'swallows-gate-errors': { cases: ['gate-failure-returns-as-observation', 'circle5-failure-then-recovery'], rules: ['CIRCLE-5'] },
  // One turn past the cap is the circle not enforcing its ward (CIRCLE-6), for children too (WARD-1).
  'off-by-one-max-turns': { cases: ['max-turns-truncates-the-cast', 'truncated-cast-gets-a-summary', 'ward1-child-turn-cap-is-the-smaller'], rules: ['LOOP-4', 'CIRCLE-6', 'WARD-1'] },
  // Zero usage also starves the token-budget ward, the entity's (LOOP-4) and its children's (WARD-1).
  'drops-usage': { cases: ['usage-tracked-per-turn-and-per-entity', 'loop4-token-budget-ward'], rules: ['PROD-3', 'LOOM-9', 'LOOP-4', 'WARD-1'] },
  // Accepted edits leave the loom broken in the ways the edits chose: a dangling parent (LOOM-2), a turn both terminated and truncated (LOOM-7), a chain cut (LOOP-1).
  'mutates-past-turns': { cases: ['stored-turn-cannot-be-edited', 'loom3-stored-turn-cannot-be-deleted'], rules: ['LOOM-3', 'LOOM-2', 'LOOM-7', 'LOOP-1'] },
  'intent-not-first': { cases: ['intent2-intent-is-first-user-message-after-system'], rules: ['INTENT-2'] },
  'system-prompt-dropped-after-first-turn': { cases: ['system-prompt-leads-every-request'], rules: ['CALL-2'] },
  // The cast that ends on text is a LOOP-6 finding of the drive (harness/drive/course.ts): the missing circle message after it is its consequence, not LOOP-1's.
  'text-ends-loop-despite-require-done': { cases: ['require-done-text-reply-continues'], rules: ['LOOP-6'] },
  // circle1-done-removed-by-ward-refused needs remove_gates, a ward the variant does not declare. A circle
  // without a ward accepted is also a configuration that cannot end accepted (LOOP-2).
  'no-construction-validation': { cases: ['construct-without-done-gate-refused', 'construct-without-truncation-ward-refused'], rules: ['CANTRIP-3', 'CIRCLE-1', 'CIRCLE-2', 'LOOP-2'] },
  // The reused entity's requests lead with the first cast's intent (INTENT-2), and its ids are shared (ENTITY-2).
  'shared-state-between-casts': { cases: ['casts-of-one-cantrip-are-independent'], rules: ['CANTRIP-2', 'ENTITY-2', 'INTENT-2'] },
  // The copied history holds the parent's call_entity call, unanswered in the child's context (CIRCLE-4, CIRCLE-7), and leads with the parent's intent (INTENT-2).
  'child-inherits-parent-history': { cases: ['comp4-child-history-stays-out-of-parent', 'child-starts-without-parent-history'], rules: ['COMP-4', 'INTENT-2', 'CIRCLE-4', 'CIRCLE-7'] },
  'batch-results-in-completion-order': { cases: ['comp3-batch-results-in-request-order'], rules: ['COMP-3'] },
  'child-gets-every-parent-gate': { cases: ['comp1-child-offered-only-requested-gates', 'comp1-gate-parent-lacks-not-granted'], rules: ['COMP-1'] },
  'child-data-before-intent': { cases: ['comp4-child-with-context-sees-its-intent-first'], rules: ['INTENT-2'] },
  'forcing-not-simulated': { cases: ['crystal5-required-tool-use-simulated-for-a-crystal-that-cannot-force'], rules: ['CRYSTAL-5'] },
  'child-escapes-token-budget': { cases: ['ward1-child-token-budget-no-looser-than-parent'], rules: ['WARD-1'] },
  'declared-gate-schema-replaced': { cases: ['circle11-declared-gate-schema-presented-and-fixed-result-observed'], rules: ['CIRCLE-11'] },
  'null-tool-calls-rejected': { cases: ['crystal6-null-tool-calls-read-as-none'], rules: ['CRYSTAL-6'] },
  'batch-gate-survives-depth-limit': { cases: ['comp6-child-at-the-depth-limit-has-no-batch-gate'], rules: ['COMP-6'] },
  // The dropped intent is missing from every later request of a cast or send: the send's intent is not among its messages (INTENT-2, as the kit reads it for a send), the intent does not reach every turn (LOOP-5), and the intent message is not the same in every request of the cast (INTENT-3, as spec/rules.yaml reads it).
  'later-requests-drop-the-send-intent': { cases: ['intent2-later-send-intent-on-every-request-of-that-send'], rules: ['INTENT-2', 'LOOP-5', 'INTENT-3'] },
  'turn-duration-excludes-crystal-wait': { cases: ['loom9-duration-covers-slow-crystal'], rules: ['LOOM-9'] },
  'batch-children-outlive-parent': { cases: ['comp9-parent-timeout-stops-every-batch-child'], rules: ['COMP-9'] },
  'duplicate-ids-checked-side-by-side': { cases: ['crystal4-duplicate-ids-apart-in-one-reply'], rules: ['CRYSTAL-4'] },
  'fork-onto-other-crystal-starts-fresh': { cases: ['loom4-fork-onto-another-crystal-carries-the-path'], rules: ['LOOM-4'] },
  // The drive finds the stray entity (harness/drive/course.ts) by the replies its turns record: they answered requests only the cast's own entity made (harness/drive/answered-queries.ts). So even where a child that failed before storing a turn could account for one more entity (three composition cases), the terminal-state check is not left to judge a cast whose last turn the stray entity took (LOOM-7 holds: that turn is marked).
  'turns-under-a-stray-entity': { cases: ['entity1-every-entity-in-the-loom-came-from-a-cast-or-an-invocation', 'comp8-child-crystal-failure-returns-to-parent'], rules: ['ENTITY-1'] },
  'thinking-taken-as-a-reply': { cases: ['crystal3-thinking-alone-is-not-a-response'], rules: ['CRYSTAL-3'] },
  'overflow-trims-history': { cases: ['crystal2-overflow-after-history-is-a-structured-error'], rules: ['CRYSTAL-2'] },
  'forcing-reminder-outlives-the-query': { cases: ['crystal1-simulated-forcing-leaves-no-trace-on-the-next-cast'], rules: ['CRYSTAL-1'] },
  'fork-restates-the-first-intent': { cases: ['loom4-fork-without-intent-from-a-later-cast-carries-that-cast'], rules: ['LOOM-4'] },
  'fork-drops-the-require-done-nudge': { cases: ['loop1-fork-after-a-text-turn-under-require-done-alternates'], rules: ['LOOP-1'] },
  'child-context-dropped': { cases: ['comp-context-data-reaches-the-child'], rules: ['COMP-4'] },
  'child-throw-read-as-no-answer': { cases: ['comp8-child-that-throws-returns-an-error-to-the-parent'], rules: ['COMP-8'] },
  // Seen only by a loom read while the cast runs (loom-during-cast): after the cast every turn is there, in order.
  // The send that should have been refused queries the crystal with no intent: that is not INTENT-2 (there is no intent to lead with), so the case's own expectations blame INTENT-1.
  'send-without-intent-accepted': { cases: ['intent1-send-without-intent-refused'], rules: ['INTENT-1'] },
  // The drive finds the turn that did not happen (harness/drive/course.ts): the turn counts, sequences and terminal flags the cases and ambient checks read of that loom are its consequences, not CIRCLE-6, LOOP-2, LOOP-4, LOOP-6, ENTITY-4, LOOM-10, WARD-1 or LOOP-1.
  'empty-turn-after-the-cap': { cases: ['max-turns-truncates-the-cast', 'loop2-runaway-crystal-stopped-at-three', 'loop4-single-turn-cap', 'entity4-finished-entity-keeps-its-thread', 'loom7-truncated-only-on-the-last-turn', 'ward1-child-turn-cap-is-the-smaller'], rules: ['LOOM-7'] },
  // The drive finds the reply whose turn was never written: the cases' reads of the loom's terminal flags are its consequences, not LOOP-6's.
  'text-turns-not-recorded': { cases: ['require-done-text-reply-continues', 'loop6-require-done-only-text-is-truncated'], rules: ['LOOM-1'] },
  // Every loom lacks its call turn, so every case that reads a loom fails CALL-4, and only CALL-4: what reads the call turn (CALL-3's record of the call, LOOM-2's link to it) is its consequence.
  'no-call-turn': { cases: ['call3-call-record-holds-no-gates', 'call4-call-turn-is-the-root', 'thread-is-the-root-to-leaf-path'], rules: ['CALL-4'] },
  // The drive finds the send's intent composed with an earlier one (harness/drive/course.ts): what the cases read of those requests' messages is its consequence, not ENTITY-5, INTENT-3, LOOP-5 or ENTITY-6.
  'sends-composed-into-one-intent': { cases: ['invoked-entity-keeps-state-across-sends', 'loop5-call-and-intent-on-every-send', 'intent3-each-cast-records-its-own-intent', 'entity5-third-send-sees-all-history', 'entity6-interleaved-invocations-stay-apart'], rules: ['INTENT-2'] },
  // The nameless call, acted on, is recorded with the empty name it had: the record's schema finding is CRYSTAL-4's (harness/judge/schema-rules.ts), not CIRCLE-4's or CIRCLE-7's.
  'nameless-call-acted-on': { cases: ['crystal4-gate-name-missing'], rules: ['CRYSTAL-4'] },
  'turns-written-when-the-cast-ends': { cases: ['loom1-first-two-turns-are-in-the-loom-at-the-third-query', 'loom1-a-second-send-finds-its-first-turns-in-the-loom-mid-cast', 'loom1-a-child-finds-its-first-turns-in-the-loom-mid-cast'], rules: ['LOOM-1'] },
};

/**
 * Broken copies of the conformant variant made by rewriting the looms it answers with (its `loom()` and
 * `thread()`), for the defects of the stored call that fixtures/miniatures/ has no defect for: each with
 * the rules (0.1.0 ids) it must be blamed on, none when the change is one the spec permits.
 *
 * - `call-prompt-dropped`: the root's call record loses its system prompt: the loom does not keep the
 *   call (CALL-4, IDENTITY-4 from 0.2.0), and only that rule is blamed, by every case that reads it.
 * - `call-prompt-wrapped`: the root's call record keeps its prompt, when it has one, wrapped in an object (`{ text }`), not
 *   as the text the call was given: the record of the call is not the call (CALL-4), found by the
 *   ambient turn-schema check alone, whose finding and failing check name that rule only.
 * - `call-kept-under-another-key`: the root keeps the call under a key of its own (`settings`): the spec
 *   names no field for it (docs/OPEN-CHOICES.md), so nothing fails.
 */
export const LOOM_DEFECTS: Record<string, { rules: string[]; view: (turn: Turn) => Turn }> = {
  'call-prompt-dropped': { rules: ['CALL-4'], view: (t) => rootRecord(t, (key, record) => ({ [key]: withoutKey(record, 'system_prompt') })) },
  'call-prompt-wrapped': { rules: ['CALL-4'], view: (t) => rootRecord(t, (key, record) => ({ [key]: typeof record['system_prompt'] === 'string' ? { ...record, system_prompt: { text: record['system_prompt'] } } : record })) },
  'call-kept-under-another-key': { rules: [], view: (t) => rootRecord(t, (_key, record) => ({ settings: record })) },
};

/** The roles and field names of the root that records the call, in the drafts' words (0.1.0 `call`, later `identity`). */
const ROOT_WORDS: readonly string[] = ['call', 'identity'];

/** `turn` with its root record (under `call` or `identity`) replaced by what `change` returns; other turns as they are. */
function rootRecord(turn: Turn, change: (key: string, record: Record<string, unknown>) => Record<string, unknown>): Turn {
  const fields = turn as unknown as Record<string, unknown>;
  if (!ROOT_WORDS.includes(String(fields['role']))) return turn;
  const key = ROOT_WORDS.find((k) => fields[k] !== null && typeof fields[k] === 'object');
  if (key === undefined) return turn;
  return { ...withoutKey(fields, key), ...change(key, fields[key] as Record<string, unknown>) } as unknown as Turn;
}

const withoutKey = (record: Record<string, unknown>, key: string): Record<string, unknown> => Object.fromEntries(Object.entries(record).filter(([k]) => k !== key));

/** The conformant variant (every draft) with `loomDefect`'s view over its looms. */
export function variantWithLoomDefect(loomDefect: string): Adapter {
  const defect = LOOM_DEFECTS[loomDefect];
  if (defect === undefined) throw new Error(`no loom defect '${loomDefect}' (${Object.keys(LOOM_DEFECTS).join(', ')})`);
  return withLoomView(conformantVariant(), (turns) => turns.map(defect.view));
}
