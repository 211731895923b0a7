import { describe, it, expect } from 'vitest';
import type { Turn } from '../../schemas/records.ts';
import type { QueryRecord } from './mock-crystal.ts';
import { queriesAnsweredBy, turnOfAnActionsQuery } from './answered-queries.ts';

/** A query served a reply that calls `calls` (gate, arguments as the reply sends them: JSON text). */
function query(lane: string, calls: [string, unknown][], extra: Partial<QueryRecord> = {}): QueryRecord {
  return {
    crystal: 'parent',
    lane,
    action: 0,
    request: { messages: [{ role: 'user', content: 'go' }] },
    reply: { ok: true, response: { content: null, usage: { prompt: 10, completion: 5, cached: 0 }, tool_calls: calls.map(([gate, args], i) => ({ id: `tc${i + 1}`, gate, arguments: JSON.stringify(args) })) } },
    ...extra,
  };
}

/** A crystal turn under `entity` keeping `records` as its gate calls (any record shape: the point of the module). */
function turn(id: string, entity: string, records: unknown[]): Turn {
  return {
    id, parent_id: null, cantrip_id: 'c', entity_id: entity, role: 'crystal', sequence: 1, utterance: '', observation: '',
    gate_calls: records as Turn['gate_calls'], metadata: { tokens_prompt: 10, tokens_completion: 5, tokens_cached: 0, duration_ms: 1, timestamp: '2026-01-01T00:00:00Z' },
    reward: null, terminated: false, truncated: false,
  };
}

const parentCall = query('parent', [['call_entity', { intent: 'doomed-child' }]]);
const parentDone = query('parent', [['done', { answer: 'survived' }]]);
const childEcho = query('child', [['echo', { text: 'c1' }]]);
const childFailed: QueryRecord = { ...query('child', []), reply: { ok: false, error: { status: 400, message: 'scripted failure' } } };
const queries = [parentCall, childFailed, parentDone, childEcho];
const childLane = (lane: string): boolean => lane === 'child' || lane === '_unplaced';

describe('which query a stored turn answered (harness/drive/answered-queries.ts)', () => {
  it('reads the seed\'s record (gate, parsed arguments) without the call id, whatever the result was kept as', () => {
    const kept = turn('t2', 'e1', [{ gate: 'done', arguments: { answer: 'survived' }, ok: true, result: '"survived"' }]);
    expect(queriesAnsweredBy(kept, queries)).toEqual([parentDone]);
  });

  it('reads a later draft\'s text record (gate_name, arguments as text of any spacing)', () => {
    const kept = turn('t2', 'e1', [{ gate_name: 'done', arguments: '{ "answer" : "survived" }', result: 'survived', is_error: false }]);
    expect(queriesAnsweredBy(kept, queries)).toEqual([parentDone]);
  });

  it('places no turn that keeps no gate call (a turn stored for a failed query, a text turn)', () => {
    expect(queriesAnsweredBy(turn('t9', 'child-1', []), queries)).toEqual([]);
  });

  it('places no turn whose call no reply made (other arguments, other gate)', () => {
    expect(queriesAnsweredBy(turn('t2', 'e1', [{ gate: 'done', arguments: { answer: 'other' } }]), queries)).toEqual([]);
    expect(queriesAnsweredBy(turn('t2', 'e1', [{ gate: 'echo', arguments: { answer: 'survived' } }]), queries)).toEqual([]);
  });

  it('lets a turn leave out calls its reply made (skipped after done, LOOP-3), but not keep one twice', () => {
    const both = query('parent', [['done', { answer: 1 }], ['echo', { text: 'late' }]]);
    expect(queriesAnsweredBy(turn('t1', 'e1', [{ gate: 'done', arguments: { answer: 1 } }]), [both])).toEqual([both]);
    expect(queriesAnsweredBy(turn('t1', 'e1', [{ gate: 'done', arguments: { answer: 1 } }, { gate: 'done', arguments: { answer: 1 } }]), [both])).toEqual([]);
  });

  it('finds a turn under an entity no action produced that records the reply to the cast\'s own request (ENTITY-1)', () => {
    const stray = turn('t2', 'e1-stray', [{ gate: 'done', arguments: { answer: 'survived' }, ok: true }]);
    expect(turnOfAnActionsQuery([stray], queries, childLane)).toEqual({ turn: stray, query: parentDone });
  });

  it('leaves a child\'s turn alone: its reply was asked for under a child lane (a shared crystal placed by intent)', () => {
    const child = turn('t3', 'child-1', [{ gate: 'echo', arguments: { text: 'c1' }, ok: true }]);
    expect(turnOfAnActionsQuery([child], queries, childLane)).toBeUndefined();
  });

  it('draws no conclusion where the turn fits a child\'s reply as well as the cast\'s', () => {
    const childDone = query('child', [['done', { answer: 'survived' }]]);
    const either = turn('t4', 'child-1', [{ gate: 'done', arguments: { answer: 'survived' } }]);
    expect(turnOfAnActionsQuery([either], [...queries, childDone], childLane)).toBeUndefined();
    // A request nobody could place may be anyone's, a child's too.
    const unplaced = query('_unplaced', [['done', { answer: 'survived' }]]);
    expect(turnOfAnActionsQuery([either], [parentDone, unplaced], childLane)).toBeUndefined();
  });
});
