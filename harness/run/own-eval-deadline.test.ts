/**
 * A code medium's own evaluation deadline on a busy machine (issue 31, item 5): an implementation that
 * does not declare the `eval_timeout_ms` ward keeps its own deadline, which the kit cannot stretch. When it
 * declares that default (`describe().sandbox.eval_timeout_ms`), a code case that failed on a loaded
 * machine with a program that ran at least that long by the kit's clock is incomplete, not failed; a
 * case whose programs all ran shorter keeps its failure, and on an idle machine nothing changes.
 *
 * The implementation: the reference, wrapped so that its default deadline is one the test picks (it fills
 * the circle's `eval_timeout_ms` when the setup gives none) and it declares that default, not the ward. The
 * machine's load is what `os.loadavg()` says, set by the test, so the verdicts do not depend on the real load.
 */
import { describe, expect, it, vi } from 'vitest';
import { createReferenceAdapter } from '../../reference/adapter/index.ts';
import type { Adapter, CantripSetup, Description, Host } from '../../schemas/adapter.ts';
import { loadCaseText } from '../case-file/index.ts';
import { hangBound } from '../testing/hang-bound.ts';
import { incompleteCase } from '../vitest/conformance.ts';
import { runCase } from './run.ts';

const machine = vi.hoisted(() => ({ loadPerCore: 1 }));
vi.mock('node:os', async (importOriginal) => {
  const os = await importOriginal<typeof import('node:os')>();
  const loadavg = (): number[] => [machine.loadPerCore * os.cpus().length, 0, 0];
  return { ...os, loadavg, default: { ...os, loadavg } };
});

/** The reference with its own default evaluation deadline `defaultMs`, declared, and the ward not declared. */
function withOwnDeadline(defaultMs: number): () => Adapter {
  return () => {
    const base = createReferenceAdapter();
    return {
      ...base,
      describe: async (): Promise<Description> => {
        const d = await base.describe();
        return { ...d, wards: (d.wards ?? []).filter((w) => w !== 'eval_timeout_ms'), sandbox: { ...d.sandbox!, eval_timeout_ms: defaultMs } };
      },
      construct: (setup: CantripSetup, host: Host) => {
        const circle = setup.circle;
        const own = circle && circle.medium === 'code' && circle.wards.eval_timeout_ms === undefined ? { ...setup, circle: { ...circle, wards: { ...circle.wards, eval_timeout_ms: defaultMs } } } : setup;
        return base.construct(own, host);
      },
    };
  };
}

/** A code case whose one program runs `busyMs` by the wall clock, then gives `answer`; it expects `expected`. */
function codeCase(busyMs: number, answer: string, expected: string) {
  const [c] = loadCaseText(
    `format_version: 1
spec_version: 0.1.0-draft
cases:
  - id: busy-program
    rules: [CIRCLE-7]
    level: MUST
    requires: [code-medium]
    description: a program that runs ${busyMs} ms, then ends the cast
    timeout_ms: 20000
    setup:
      crystal: parent
      call: {}
      circle: { medium: code, gates: [done], wards: { max_turns: 2 } }
    crystals:
      parent:
        script:
          - code: { javascript: "const t = Date.now(); while (Date.now() - t < ${busyMs}) {} done('${answer}');" }
          - code: { javascript: "done('late');" }
    act:
      - cast: { intent: "Run a while", as: first }
    expect:
      - { path: outcomes.first.result, equals: ${expected} }
`,
    'own-deadline.yaml',
  ).cases;
  return c!;
}

async function run(loadPerCore: number, factory: () => Adapter, c: ReturnType<typeof codeCase>) {
  machine.loadPerCore = loadPerCore;
  const probe = factory();
  const description = await probe.describe();
  await probe.dispose();
  return runCase(c, factory, description);
}

describe("the implementation's own evaluation deadline on a loaded machine", () => {
  it('a program it cut on a loaded machine: incomplete, with the deadline and the time the kit saw', { timeout: hangBound(120_000) }, async () => {
    const result = await run(10, withOwnDeadline(300), codeCase(1_500, 'right', 'right'));
    expect(result.status).toBe('errored');
    expect(result.own_eval_deadline).toMatchObject({ deadline_ms: 300, load_factor: 10 });
    expect(result.own_eval_deadline!.longest_eval_ms).toBeGreaterThanOrEqual(300);
    expect(result.failed_rules).toEqual([]);
    expect(incompleteCase(result, false)).toMatch(/^incomplete:/);
  });

  it('the same cut on an idle machine still fails', { timeout: hangBound(120_000) }, async () => {
    const result = await run(0.5, withOwnDeadline(300), codeCase(1_500, 'right', 'right'));
    expect(result.status).toBe('fail');
    expect(result.own_eval_deadline).toBeUndefined();
  });

  it('a real failure on a loaded machine, its program far shorter than the deadline: still fails', { timeout: hangBound(120_000) }, async () => {
    const result = await run(10, withOwnDeadline(600_000), codeCase(0, 'wrong', 'right'));
    expect(result.status).toBe('fail');
    expect(result.failed_rules).toEqual(['CIRCLE-7']);
    expect(result.own_eval_deadline).toBeUndefined();
  });
});
