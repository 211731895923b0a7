// Runs at draft 0.1.0, the draft the properties' rules are written in (drafts.test.ts runs them at later drafts).
import { referenceAtSeedDraft } from '../testing/seed-draft-reference.ts';
import { describe, it, expect, beforeAll } from 'vitest';
import type { Adapter, Host } from '../../schemas/adapter.ts';
import { describeAdapter, type AdapterFactory } from '../run/run.ts';
import { CODE_PROPERTIES } from './code-definitions.ts';
import { byId, expectCaughtAndReproduced, miniature } from './test-support.ts';
import { runProperties } from './run-properties.ts';

const SEED = 20240611;
const RUNS = 30;
/** Code properties only: a rule-family filter would also pick conversation properties. */
const ONLY = ['code-medium'];

/** The reference, with every turn's gate-call records reported in reverse order (breaks CIRCLE-7). */
const reversedRecords = (reference: AdapterFactory): AdapterFactory => async () => {
  const inner = await reference();
  return Object.assign(Object.create(inner) as Adapter, {
    loom: async () => {
      const got = await inner.loom();
      if (!got.ok) return got;
      return { ok: true as const, value: { turns: got.value.turns.map((t) => ({ ...t, gate_calls: [...t.gate_calls].reverse() })) } };
    },
  });
};

/**
 * The reference behind a crystal bridge that rewrites the programs the mock crystal sends (the sandbox
 * tool's code argument), to play an implementation that breaks one rule of the code medium.
 */
const rewritingPrograms =
  (rewrite: (code: string, reply: number) => string) =>
  (reference: AdapterFactory): AdapterFactory =>
  async () => {
    const inner = await reference();
    const { sandbox } = await inner.describe();
    const argument = sandbox?.argument ?? 'code';
    return Object.assign(Object.create(inner) as Adapter, {
      construct: async (setup: Parameters<Adapter['construct']>[0], host: Host) => {
        let replies = 0;
        const bridge: Host = {
          ...host,
          sleep: (ms) => host.sleep(ms),
          callGate: (g, a, c) => host.callGate(g, a, c),
          queryCrystal: async (crystal, request) => {
            const reply = await host.queryCrystal(crystal, request);
            if (!reply.ok) return reply;
            replies += 1;
            const tool_calls = reply.response.tool_calls?.map((c) =>
              c.gate === sandbox?.tool ? { ...c, arguments: JSON.stringify({ [argument]: rewrite(String(JSON.parse(c.arguments)[argument] ?? ''), replies) }) } : c,
            );
            return { ok: true as const, response: { ...reply.response, ...(tool_calls && { tool_calls }) } };
          },
        };
        if (host.event) bridge.event = (e) => host.event?.(e);
        return inner.construct(setup, bridge);
      },
    });
  };

/** Loses the program of every second crystal reply, so what those turns set never exists (breaks CIRCLE-9). */
const dropsEverySecondProgram = rewritingPrograms((code, reply) => (reply % 2 === 0 ? '' : code));
/** Evaluates done's argument but never calls done, so the cast runs on past it (breaks LOOP-3). */
const ignoresDone = rewritingPrograms((code) => code.replaceAll('done(', 'void ('));
/** Ends the cast whenever a program throws, instead of showing the error and going on (breaks LOOP-1). */
const errorEndsTheCast = rewritingPrograms((code) => code.replace(/throw new Error\(/g, 'done(0); throw new Error('));

describe('code-medium properties', () => {
  let reference: AdapterFactory;
  beforeAll(async () => {
    reference = await referenceAtSeedDraft();
  });

  it('CIRCLE-9, CIRCLE-7, CIRCLE-5, LOOP-3, LOOP-1: every code property passes on the reference, each on real runs', async () => {
    const results = await runProperties(reference, await describeAdapter(reference), { draft: '0.1.0', seed: SEED, runs: RUNS, filter: ONLY });
    expect(results.map((r) => [r.id, r.status, r.reason])).toEqual(CODE_PROPERTIES.map((p) => [p.id, 'pass', undefined]));
    for (const r of results) expect(r.runs, r.id).toBeGreaterThanOrEqual(RUNS);
  });

  it('CIRCLE-9: every code property is skipped, with the reason, on the miniature (no code medium)', async () => {
    const factory = miniature();
    const results = await runProperties(factory, await describeAdapter(factory), { draft: '0.1.0', seed: SEED, runs: 5, filter: ONLY });
    expect(results.map((r) => [r.id, r.status, r.reason])).toEqual(CODE_PROPERTIES.map((p) => [p.id, 'skipped', 'feature not declared: code-medium']));
  });

  const broken = [
    { name: 'reversed records', wrap: reversedRecords, property: 'code-gate-records-in-call-order', rules: ['CIRCLE-7'] },
    { name: 'a bridge that drops every second program', wrap: dropsEverySecondProgram, property: 'code-state-persists-across-turns', rules: ['CIRCLE-9'] },
    { name: 'done ignored', wrap: ignoresDone, property: 'code-done-ends-the-cast', rules: ['LOOP-3'] },
    { name: 'errors that end the cast', wrap: errorEndsTheCast, property: 'code-error-does-not-end-the-cast', rules: ['LOOP-1'] },
  ];
  for (const want of broken) {
    it(`${want.rules.join(', ')}: the reference with ${want.name} fails ${want.property}, shrunk to a small case that reproduces it`, async () => {
      const factory = want.wrap(reference);
      const found = await runProperties(factory, await describeAdapter(factory), { draft: '0.1.0', seed: SEED, runs: RUNS, filter: [want.property] });
      const result = byId(found, want.property);
      await expectCaughtAndReproduced(result, want.rules, 3, factory, reference);
    });
  }
});
