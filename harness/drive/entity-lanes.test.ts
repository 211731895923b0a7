/**
 * Issue 21, class 1: children on their parent's crystal. A crystal scripted per entity (`by_entity`)
 * answers each request from the script of the entity whose intent it carries (INTENT-2); a request that
 * carries no known intent is a finding under INTENT-2, not a fault of the script.
 */
import { describe, it, expect } from 'vitest';
import type { CrystalRequest } from '../../schemas/records.ts';
import { loadCaseFile, loadCaseText } from '../case-file/load.ts';
import { PACKAGE_ROOT } from '../case-file/package-root.ts';
import { join } from 'node:path';
import { EntityLanes } from './entity-lanes.ts';

const request = (intent: string): CrystalRequest => ({ messages: [{ role: 'system', content: 'p' }, { role: 'user', content: intent }] });

const SHARED = {
  crystals: {
    parent: {
      script: [{ tool_calls: [{ gate: 'call_entity', args: { intent: 'sub' } }] }],
      by_entity: { child: { script: [{ content: 'c' }] }, grand: { intents: ['deep one'], script: [{ content: 'g' }] } },
    },
    other: { script: [{ content: 'x' }] },
  },
  act: [{ cast: { intent: 'Delegate a subtask', as: 'first' } }],
};

describe('a shared crystal scripted per entity (issue 21, class 1)', () => {
  const lanes = new EntityLanes(SHARED);

  it('places a request by the intent it carries: the action\'s, a delegated one, or a lane\'s listed one; the longest fitting intent wins', () => {
    expect(lanes.place('parent', request('Delegate a subtask'))).toBe('parent');
    expect(lanes.place('parent', request('sub'))).toBe('child');
    expect(lanes.place('parent', request('deep one\n\ncontext: data'))).toBe('grand');
    // An unshared crystal is its own lane, whatever its requests carry.
    expect(lanes.place('other', request('anything'))).toBe('other');
    expect([...lanes.childLanes].sort()).toEqual(['child', 'grand']);
  });

  it('the latest user message carrying a known intent decides: a child handed its parent\'s history is still the child', () => {
    const inherited: CrystalRequest = { messages: [{ role: 'user', content: 'Delegate a subtask' }, { role: 'assistant', content: 'ok' }, { role: 'user', content: 'sub' }] };
    expect(lanes.place('parent', inherited)).toBe('child');
    const nudged: CrystalRequest = { messages: [{ role: 'user', content: 'Delegate a subtask' }, { role: 'assistant', content: 'words' }, { role: 'user', content: 'Call done when finished.' }] };
    expect(lanes.place('parent', nudged)).toBe('parent');
  });

  it('a request carrying no intent of the case cannot be placed (INTENT-2)', () => {
    expect(lanes.place('parent', request('what am I doing?'))).toBeUndefined();
    expect(lanes.place('parent', { messages: [{ role: 'system', content: 'p' }] })).toBeUndefined();
  });

  it('a cast without a text intent leaves the unplaced requests to the actions\' entities', () => {
    const open = new EntityLanes({ ...SHARED, act: [{ cast: { as: 'first' } }] });
    expect(open.place('parent', request('what am I doing?'))).toBe('parent');
  });

  it('a lane named like a crystal is refused at load, at its place', () => {
    const text = `format_version: 1
spec_version: 0.1.0-draft
cases:
  - id: clash
    rules: [COMP-2]
    level: MUST
    description: lanes and crystals share the requests namespace
    setup: { crystal: parent, call: {}, circle: { medium: conversation, gates: [done, call_entity], wards: { max_turns: 3 } } }
    crystals:
      parent: { script: [], by_entity: { other: { script: [] } } }
      other: { script: [] }
    act: [{ cast: { intent: go } }]
    expect: [{ path: outcomes.cast1.status, equals: terminated }]
`;
    expect(() => loadCaseText(text, 'clash.yaml')).toThrow(/clash\.yaml:\d+:\d+: lane 'other' has the name of a crystal of the case/);
  });

  it('tests.yaml: every delegation runs on its parent\'s crystal, except the cases about COMP-7\'s MAY, which require the feature', () => {
    const file = loadCaseFile(join(PACKAGE_ROOT, 'tests.yaml'));
    const composition = file.cases.filter((c) => (c.requires ?? []).includes('composition'));
    expect(composition.length).toBeGreaterThan(30);
    for (const c of composition) {
      const gates = (c.setup.circle?.gates ?? []).map((g) => (typeof g === 'string' ? { name: g } : g)).filter((g) => g.name.startsWith('call_entity'));
      const ownCrystal = gates.some((g) => 'crystal' in g && g.crystal !== undefined && g.crystal !== c.setup.crystal);
      const ownCall = gates.some((g) => 'call' in g && g.call !== undefined);
      if (!ownCrystal && !ownCall) continue;
      expect(c.rules, c.id).toContain('COMP-7');
      if (ownCrystal) expect(c.requires, c.id).toContain('child-crystal');
      if (ownCall) expect(c.requires, c.id).toContain('child-call');
    }
    expect(composition.filter((c) => Object.values(c.crystals ?? {}).some((k) => k.by_entity)).length).toBeGreaterThan(30);
  });
});
