/**
 * Names in an expectation's path that the case itself defines: `outcomes.first` needs an action named
 * `first`, `requests.parent` a crystal named `parent`. A misspelt name can only ever find nothing, which a
 * run would blame on the implementation; refusing it when the case file loads puts the blame where it
 * belongs, with the path's file:line:column.
 */
import type { Action } from './types.ts';
import type { Segment } from './path-syntax.ts';

/** Record roots keyed by an action's name (`as:`, or the verb and its count: `cast1`). */
const BY_ACTION = ['cantrips', 'outcomes', 'errors', 'failures', 'entities', 'forks', 'mutations', 'threads', 'snapshots', 'exports', 'logs', 'acp_sessions', 'acp_prompts'];
/** Record roots keyed by a crystal declared under `crystals`. */
const BY_CRYSTAL = ['requests', 'replies', 'after_outcome', 'wire_waits', 'concurrency'];

/** The names actions of `act` are recorded under, `main` (the setup's cantrip) included. */
export function actionNames(act: readonly Action[]): Set<string> {
  const names = new Set<string>(['main']);
  const counters = new Map<string, number>();
  for (const action of act) {
    const verb = Object.keys(action)[0]!;
    const body = (action as Record<string, { as?: unknown }>)[verb];
    const n = (counters.get(verb) ?? 0) + 1;
    counters.set(verb, n);
    names.add(typeof body?.as === 'string' ? body.as : `${verb}${n}`);
  }
  return names;
}

/**
 * Why the path's second segment names nothing the case defines, or undefined when it does (or is no
 * plain name). `stepSnapshots`: the names crystal steps keep a snapshot under (`snapshot_loom` on a
 * step), which `snapshots.<name>` may name as well as an action.
 */
export function unknownPathName(path: string, segments: readonly Segment[], actions: ReadonlySet<string>, crystals: ReadonlySet<string>, stepSnapshots: ReadonlySet<string> = new Set()): string | undefined {
  const [root, name] = segments;
  if (root?.kind !== 'key' || name?.kind !== 'key') return undefined;
  if (root.name === 'snapshots' && stepSnapshots.has(name.name)) return undefined;
  const [defined, what] = BY_ACTION.includes(root.name) ? [actions, 'action'] : BY_CRYSTAL.includes(root.name) ? [crystals, 'crystal'] : [undefined, ''];
  if (!defined || defined.has(name.name)) return undefined;
  const snapshots = root.name === 'snapshots' && stepSnapshots.size > 0 ? ` or of a step's snapshot_loom (${[...stepSnapshots].join(', ')})` : '';
  return `path '${path}': '${name.name}' is not the name of ${what === 'action' ? 'an action of this case' : 'a crystal declared under crystals'} (${[...defined].join(', ') || 'none'})${snapshots}`;
}
