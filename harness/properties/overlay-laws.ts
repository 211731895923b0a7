/**
 * Laws of overlay file gates over generated write, delete and read sequences (feature
 * `overlay-file-gates`): after the host accepts an entity's overlay, the files under the root read
 * exactly as the overlay showed them; after it rejects one, the root is exactly as it was.
 *
 * A scenario draws one to three turns of one to three operations on four paths (two that exist under
 * the root, two that do not), then a done; the host then accepts or rejects (each law has its own
 * family, so no scenario is wasted on the other decision), and a second cast reads every path. The
 * model follows the operations: a write sets a path, a deletion of an existing path removes it (of a
 * missing one, fails and changes nothing), a read sees the current view.
 */
import fc from 'fast-check';
import type { Case, CaseGate, Expectation, LoadedCase, ScriptStep, ScriptToolCall } from '../case-file/index.ts';
import { CRYSTAL, GENERATED_FILE, type CaseHeader } from './build-case.ts';
import type { PropertyDefinition } from './definitions.ts';
import { BUILT, tagged, x } from './property-helpers.ts';

/** The files under the root before anything runs. */
export const OVERLAY_BASE: Readonly<Record<string, string>> = { 'a.txt': 'base-a', 'sub/b.txt': 'base-b' };
const PATHS = ['a.txt', 'sub/b.txt', 'n.txt', 'sub/n.txt'] as const;
type OverlayPath = (typeof PATHS)[number];
const ROOT = 'data';

export type OverlayOp = { op: 'write'; path: OverlayPath; content: string } | { op: 'delete'; path: OverlayPath } | { op: 'read'; path: OverlayPath };

export interface OverlayScenario {
  turns: OverlayOp[][];
  decision: 'accept' | 'reject';
}

export interface OverlayPlan {
  scenario: OverlayScenario;
  /** Per turn, per operation: the result a read gives, or `null` for a failed operation; `true` for a write or deletion that succeeds. */
  outcomes: (string | true | null)[][];
  /** The entity's view of every path once its cast is over (`null`: no file). */
  view: Record<OverlayPath, string | null>;
}

const op: fc.Arbitrary<OverlayOp> = fc.oneof(
  fc.record({ op: fc.constant('write' as const), path: fc.constantFrom(...PATHS), content: fc.constantFrom('x', 'yy', 'zzz', 'base-a') }),
  fc.record({ op: fc.constant('delete' as const), path: fc.constantFrom(...PATHS) }),
  fc.record({ op: fc.constant('read' as const), path: fc.constantFrom(...PATHS) }),
);
const turns = fc.array(fc.array(op, { minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 3 });

export const overlayArbitrary = (decision: OverlayScenario['decision']): fc.Arbitrary<OverlayScenario> => turns.map((t) => ({ turns: t, decision }));

export function planOverlay(scenario: OverlayScenario): OverlayPlan {
  const view = Object.fromEntries(PATHS.map((p) => [p, OVERLAY_BASE[p] ?? null])) as Record<OverlayPath, string | null>;
  const outcomes = scenario.turns.map((turn) =>
    turn.map((o): string | true | null => {
      if (o.op === 'write') {
        view[o.path] = o.content;
        return true;
      }
      if (o.op === 'delete') {
        if (view[o.path] === null) return null;
        view[o.path] = null;
        return true;
      }
      return view[o.path];
    }),
  );
  return { scenario, outcomes, view };
}

const callOf = (o: OverlayOp): ScriptToolCall =>
  o.op === 'write' ? { gate: 'write', args: { path: o.path, content: o.content } } : { gate: o.op, args: { path: o.path } };

const gate = (name: string): CaseGate => ({ name, root: ROOT, overlay: true });

export function buildOverlayCase(plan: OverlayPlan, header: CaseHeader, expect: Expectation[]): LoadedCase {
  const { turns: drawn, decision } = plan.scenario;
  const script: ScriptStep[] = [
    ...drawn.map((turn) => ({ tool_calls: turn.map(callOf) })),
    { tool_calls: [{ gate: 'done', args: { answer: 'changed' } }] },
    { tool_calls: PATHS.map((path) => ({ gate: 'read', args: { path } })) },
    { tool_calls: [{ gate: 'done', args: { answer: 'looked' } }] },
  ];
  const c: Case = {
    id: header.id,
    rules: header.rules,
    level: 'MUST',
    requires: ['overlay-file-gates'],
    description: header.description,
    setup: {
      crystal: CRYSTAL,
      call: {},
      files: Object.fromEntries(Object.entries(OVERLAY_BASE).map(([p, content]) => [`${ROOT}/${p}`, content])),
      circle: { medium: 'conversation', gates: ['done', gate('read'), gate('write'), gate('delete')], wards: { max_turns: drawn.length + 1 } },
    },
    crystals: { [CRYSTAL]: { script } },
    act: [
      { cast: { intent: 'Change the files', as: 'first' } },
      { overlay: { entity: 'first', decision, as: 'decided' } },
      { cast: { intent: 'Read every file', as: 'second' } },
    ],
    expect,
  };
  return { ...c, position: { file: GENERATED_FILE, line: 0, column: 0 } };
}

/** The second cast's reads, and the root's files, as `view` says they should be. */
function readsAndFiles(view: Record<OverlayPath, string | null>): Expectation[] {
  const out: Expectation[] = [];
  PATHS.forEach((path, i) => {
    const content = view[path];
    out.push(content === null ? x(`loom.cast(second)[0].gate_calls[${i}].ok`, { equals: false }) : x(`loom.cast(second)[0].gate_calls[${i}].result`, { equals: content }));
    out.push(content === null ? x(`files[path=${ROOT}/${path}]`, { length: 0 }) : x(`files[path=${ROOT}/${path}][0].content`, { equals: content }));
  });
  return out;
}

/** The first cast went as drawn (each operation as the model says), and the host's decision was taken. */
function wentAsDrawn(plan: OverlayPlan): Expectation[] {
  const own = plan.outcomes.flatMap((turn, k) =>
    turn.map((outcome, i) => {
      const at = `loom.cast(first)[${k}].gate_calls[${i}]`;
      return outcome === null ? x(`${at}.ok`, { equals: false }) : outcome === true ? x(`${at}.ok`, { equals: true }) : x(`${at}.result`, { equals: outcome });
    }),
  );
  return [BUILT, x('outcomes.first.status', { equals: 'terminated' }), x('mutations.decided', { present: true }), x('loom.cast(second)', { length: 2 }), ...own];
}

/**
 * CIRCLE-10, CIRCLE-4. The overlay is a dependency of the file gates, bound with the circle, and what
 * the entity saw through it is what its gates returned (CIRCLE-4). Accepting it makes it the files
 * under the root: afterwards every path reads, for a new entity and on disk, exactly as the overlay
 * showed it at the end of the cast.
 */
const acceptThenRead: PropertyDefinition<OverlayPlan> = {
  id: 'overlay-accept-then-read-equals-the-overlay-view',
  rules: ['CIRCLE-10', 'CIRCLE-4'],
  level: 'MUST',
  title: "after the host accepts an entity's overlay, every file reads as that overlay showed it, whatever writes and deletions made it",
  requires: ['overlay-file-gates'],
  invariants: [],
  expectations: (plan) => (plan.scenario.decision === 'accept' ? { checks: tagged(['CIRCLE-10', 'CIRCLE-4'], ...readsAndFiles(plan.view)), assumes: wentAsDrawn(plan) } : { checks: [], assumes: [] }),
};

/**
 * CIRCLE-6, CIRCLE-10. The overlay narrows what the write and delete gates reach, a restriction the
 * circle enforces and the entity cannot get past (CIRCLE-6). Rejecting it discards it: afterwards the
 * root is exactly as it was before the cast, on disk and as a new entity reads it.
 */
const rejectLeavesBase: PropertyDefinition<OverlayPlan> = {
  id: 'overlay-reject-leaves-the-base-untouched',
  rules: ['CIRCLE-6', 'CIRCLE-10'],
  level: 'MUST',
  title: "after the host rejects an entity's overlay, the files under the root are exactly as before, whatever writes and deletions it held",
  requires: ['overlay-file-gates'],
  invariants: [],
  expectations: (plan) => {
    if (plan.scenario.decision !== 'reject') return { checks: [], assumes: [] };
    const base = Object.fromEntries(PATHS.map((p) => [p, OVERLAY_BASE[p] ?? null])) as Record<OverlayPath, string | null>;
    return { checks: tagged(['CIRCLE-6', 'CIRCLE-10'], ...readsAndFiles(base), x('files', { length: Object.keys(OVERLAY_BASE).length })), assumes: wentAsDrawn(plan) };
  },
};

export const OVERLAY_ACCEPT_PROPERTIES: readonly PropertyDefinition<OverlayPlan>[] = [acceptThenRead];
export const OVERLAY_REJECT_PROPERTIES: readonly PropertyDefinition<OverlayPlan>[] = [rejectLeavesBase];
export const overlaySteps = (plan: OverlayPlan): number => plan.scenario.turns.length + 3;
