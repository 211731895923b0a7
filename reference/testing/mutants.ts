/**
 * Shows that the reference's rule tests can fail: each mutant breaks one rule in the source, the
 * tests named for that rule are run, and the mutant counts as caught only if they fail. The source is
 * restored after every mutant (and the script refuses to start on files with uncommitted changes, so a
 * crash can never leave a mutant behind unnoticed: `git checkout` restores it).
 *
 *   npx tsx reference/testing/mutants.ts [mutant-id ...]
 *
 * Prints one line per mutant and exits 1 if any survived.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

interface Mutant {
  id: string;
  rule: string;
  file: string;
  find: string;
  replace: string;
  /** The test files (and optional name filter) that must fail. */
  tests: string[];
  filter?: string;
}

const MUTANTS: Mutant[] = [
  { id: 'done-does-not-stop', rule: 'LOOP-3', file: 'reference/circle/medium/conversation.ts', find: 'if (done) {', replace: 'if (false) {', tests: ['reference/entity/loop.test.ts'], filter: 'LOOP-3' },
  { id: 'done-never-terminates', rule: 'CIRCLE-8', file: 'reference/entity/loop.ts', find: '(action?.done !== undefined ||', replace: '(false ||', tests: ['reference/circle/circle.test.ts'], filter: 'CIRCLE-8' },
  { id: 'max-turns-off-by-one', rule: 'LOOP-4', file: 'reference/entity/loop.ts', find: 'turnInCast >= wards.maxTurns', replace: 'turnInCast > wards.maxTurns', tests: ['reference/entity/loop.test.ts'], filter: 'LOOP-4' },
  { id: 'require-done-ignored', rule: 'LOOP-6', file: 'reference/entity/loop.ts', find: '(textOnly && !entity.cantrip.requireDone)', replace: 'textOnly', tests: ['reference/entity/loop.test.ts'], filter: 'LOOP-6' },
  { id: 'call-not-frozen', rule: 'CALL-1', file: 'reference/call/call.ts', find: 'return deepFreeze({', replace: 'return ({', tests: ['reference/call/call.test.ts'], filter: 'CALL-1' },
  { id: 'gate-errors-swallowed', rule: 'CIRCLE-5', file: 'reference/circle/gate-execution.ts', find: 'return { ...record, ok: false, error: toGateError(error) };', replace: 'return { ...record, ok: true, result: null };', tests: ['reference/circle/circle.test.ts'], filter: 'CIRCLE-5' },
  { id: 'removed-gate-still-callable', rule: 'CIRCLE-6', file: 'reference/circle/circle.ts', find: 'if (!removed.has(name)) gates.set(name, gate);', replace: 'gates.set(name, gate);', tests: ['reference/circle/circle.test.ts'], filter: 'CIRCLE-6' },
  { id: 'cached-usage-dropped', rule: 'PROD-3', file: 'reference/production/usage.ts', find: 'cached: total.cached + more.cached,', replace: 'cached: total.cached,', tests: ['reference/production/production.test.ts'], filter: 'PROD-3' },
  { id: 'client-errors-retried', rule: 'PROD-2', file: 'reference/crystal/crystal-error.ts', find: 'isRetryableStatus(options.status))', replace: 'true)', tests: ['reference/production/production.test.ts'], filter: 'PROD-2' },
  { id: 'empty-response-accepted', rule: 'CRYSTAL-3', file: 'reference/crystal/validate.ts', find: 'if (!hasText && toolCalls.length === 0) {', replace: 'if (false) {', tests: ['reference/crystal/validate.test.ts'], filter: 'CRYSTAL-3' },
  { id: 'duplicate-ids-accepted', rule: 'CRYSTAL-4', file: 'reference/crystal/validate.ts', find: 'if (seen.has(call.id)) throw', replace: 'if (false) throw', tests: ['reference/crystal/validate.test.ts'], filter: 'CRYSTAL-4' },
  { id: 'loom-replaces-turns', rule: 'LOOM-3', file: 'reference/loom/loom.ts', find: 'if (this.#turns.has(turn.id)) {', replace: 'if (false) {', tests: ['reference/loom/loom.test.ts'] },
  { id: 'wards-loosen', rule: 'WARD-1', file: 'reference/circle/wards.ts', find: 'composed[key] = Math.min(...values);', replace: 'composed[key] = Math.max(...values);', tests: ['reference/circle/circle.test.ts', 'reference/composition/composition.test.ts'], filter: 'WARD-1' },
  { id: 'child-granted-any-gate', rule: 'COMP-1', file: 'reference/composition/spawn.ts', find: "if (!gate) throw new CantripError('gate_not_granted'", replace: "if (!gate) continue; if (false) throw new CantripError('gate_not_granted'", tests: ['reference/composition/composition.test.ts'], filter: 'COMP-1' },
  { id: 'depth-not-spent', rule: 'COMP-6', file: 'reference/composition/spawn.ts', find: 'const inherited = (parentCircle.wards.maxDepth ?? 1) - 1;', replace: 'const inherited = parentCircle.wards.maxDepth ?? 1;', tests: ['reference/composition/composition.test.ts'], filter: 'COMP-6' },
  { id: 'batch-in-completion-order', rule: 'COMP-3', file: 'reference/composition/call-entity-batch.ts', find: 'results[index] = answerOf(await runChild(requests[index], context, dependencies));', replace: 'const done = answerOf(await runChild(requests[index], context, dependencies)); results[results.findIndex((r, i) => r === undefined && i >= 0)] = done;', tests: ['reference/composition/composition.test.ts'], filter: 'COMP-3' },
  { id: 'stopped-child-misreported', rule: 'COMP-9', file: 'reference/entity/loop.ts', find: "if (entity.stopReason()) return { ...partial, cause: 'parent_terminated' };", replace: '', tests: ['reference/composition/composition.test.ts'], filter: 'COMP-9' },
  { id: 'fold-not-marked', rule: 'LOOM-5', file: 'reference/loom/fold.ts', find: 'return `[Folded: turns ${fromSequence}-${toSequence}]`;', replace: 'return `Summary of earlier work`;', tests: ['reference/entity/folding.test.ts'], filter: 'LOOM-5' },
  { id: 'ephemeral-never-trimmed', rule: 'PROD-5', file: 'reference/entity/working-context.ts', find: 'this.#overrides.set(index, sealMessage(replacement));', replace: 'void replacement;', tests: ['reference/entity/folding.test.ts'], filter: 'PROD-5' },
  { id: 'symlink-escape-allowed', rule: 'CIRCLE-6', file: 'reference/circle/file-gates.ts', find: 'if (!inside(realRoot, real)) refuse(requested);', replace: '', tests: ['reference/circle/file-gates.test.ts'], filter: 'CIRCLE-6' },
  { id: 'fresh-sandbox-each-turn', rule: 'CIRCLE-9', file: 'reference/entity/entity.ts', find: 'this.mediumSession ??= await', replace: 'this.mediumSession = await', tests: ['reference/entity/code-circle.test.ts'], filter: 'CIRCLE-9' },
  { id: 'fork-without-replay', rule: 'LOOM-4', file: 'reference/circle/medium/code-medium.ts', find: "if (turn.role !== 'crystal' || turn.utterance === ''", replace: "if (true || turn.role !== 'crystal' || turn.utterance === ''", tests: ['reference/entity/code-circle.test.ts'], filter: 'LOOM-4' },
  { id: 'loom-not-exposed', rule: 'LOOM-11', file: 'reference/circle/medium/code-medium.ts', find: 'if (options.thread) await exposeThread(sandbox, options.thread());', replace: '', tests: ['reference/entity/code-circle.test.ts'], filter: 'LOOM-11' },
  { id: 'failed-child-reported-as-answer', rule: 'COMP-8', file: 'reference/composition/call-entity.ts', find: "if (outcome.status === 'terminated') return outcome.result ?? null;", replace: 'return outcome.result ?? null;', tests: ['reference/composition/composition.test.ts'], filter: 'COMP-8' },
  { id: 'child-detached-from-spawning-turn', rule: 'COMP-5', file: 'reference/composition/spawn.ts', find: 'spawnedBy: spawningTurnId,', replace: '', tests: ['reference/composition/composition.test.ts'], filter: 'COMP-5' },
  { id: 'folding-never-triggers', rule: 'PROD-4', file: 'reference/loom/fold.ts', find: 'usage.prompt + usage.completion > threshold * contextWindow', replace: 'usage.prompt + usage.completion > 2 * contextWindow', tests: ['reference/entity/folding.test.ts'], filter: 'PROD-4' },
  { id: 'fold-drops-the-call', rule: 'LOOM-6', file: 'reference/entity/working-context.ts', find: 'this.#head = [...this.#call, ...pinned,', replace: 'this.#head = [...pinned,', tests: ['reference/entity/folding.test.ts'], filter: 'LOOM-6' },
  { id: 'child-crystal-ignored', rule: 'COMP-7', file: 'reference/composition/spawn.ts', find: 'crystal: request.crystal ?? parent.cantrip.crystal,', replace: 'crystal: parent.cantrip.crystal,', tests: ['reference/composition/composition.test.ts'], filter: 'COMP-7' },
  // Issue 10's behaviours, each caught by a named case of tests.yaml run against the reference.
  { id: 'child-data-before-intent', rule: 'INTENT-2', file: 'reference/entity/loop.ts', find: '  if (start.intent !== null) entity.context.rememberIntent(start.intent);\n', replace: "  if (firstCast && start.intent !== null && entity.cantrip.context !== undefined) entity.context.remember({ role: 'user', content: 'Context data first' });\n  if (start.intent !== null) entity.context.rememberIntent(start.intent);\n", tests: ['harness/run/reference.test.ts'], filter: 'comp4-child-with-context-sees-its-intent-first' },
  { id: 'sandbox-shared-between-casts', rule: 'CANTRIP-2', file: 'reference/entity/entity.ts', find: 'this.mediumSession ??= await this.cantrip.circle.medium.open(', replace: 'this.mediumSession ??= (globalThis as Record<string, never>).sharedSandbox ??= await this.cantrip.circle.medium.open(', tests: ['harness/run/reference.test.ts'], filter: 'code-casts-do-not-share-sandbox-state' },
  { id: 'duplicate-ids-checked-side-by-side-only', rule: 'CRYSTAL-4', file: 'reference/crystal/validate.ts', find: 'if (seen.has(call.id)) throw', replace: 'if (toolCalls[index - 1]?.id === call.id) throw', tests: ['harness/run/reference.test.ts'], filter: 'crystal4-duplicate-ids-apart-in-one-reply' },
  { id: 'root-checked-by-prefix', rule: 'CIRCLE-6', file: 'reference/circle/file-gates.ts', find: "  const rel = relative(root, path);\n  return rel === ''", replace: "  const rel = relative(root, path);\n  return path.startsWith(root) || rel === ''", tests: ['harness/run/reference.test.ts'], filter: 'file-sibling-with-the-root-as-prefix-refused' },
  { id: 'child-free-of-token-budget', rule: 'WARD-1', file: 'reference/composition/spawn.ts', find: 'const wards = composeWards(parentCircle.wards, {', replace: 'const wards = composeWards({ ...parentCircle.wards, maxTokens: undefined }, {', tests: ['harness/run/reference.test.ts'], filter: 'ward1-child-token-budget-no-looser-than-parent' },
  { id: 'failed-gates-not-streamed', rule: 'CIRCLE-5', file: 'reference/entity/loop.ts', find: "for (const record of action.gateCalls) await stream(entity, cast, { type: 'gate_result'", replace: "for (const record of action.gateCalls) if (record.ok) await stream(entity, cast, { type: 'gate_result'", tests: ['harness/run/reference.test.ts'], filter: 'streaming-one-result-event-per-gate-call' },
  { id: 'fold-drops-the-intent', rule: 'LOOP-5', file: 'reference/entity/working-context.ts', find: 'const pinned = this.#intentIndex !== undefined && this.#intentIndex < until ? [this.#log[this.#intentIndex]!] : [];', replace: 'const pinned: never[] = [];', tests: ['harness/run/reference.test.ts'], filter: 'fold-triggers-and-marks-summary' },
  // Issue 14's lineage wards, each caught by the reference's own unit tests of the rule.
  { id: 'verifier-checked-after-the-gate', rule: 'CIRCLE-6', file: 'reference/circle/gate-execution.ts', find: 'verifyCall(verifiers, name, copy);\n    const result = await gate.execute(copy, context);', replace: 'const result = await gate.execute(copy, context);\n    verifyCall(verifiers, name, copy);', tests: ['reference/circle/verifiers.test.ts'], filter: 'CIRCLE-6' },
  { id: 'child-skips-parent-verifiers', rule: 'WARD-1', file: 'reference/composition/spawn.ts', find: '    verifiers: parentCircle.verifiers,\n', replace: '', tests: ['reference/circle/verifiers.test.ts'], filter: 'WARD-1' },
  { id: 'rejection-bound-ignored', rule: 'LOOP-4', file: 'reference/entity/loop.ts', find: "if (wards.maxRejections !== undefined && rejections >= wards.maxRejections) return 'max_rejections';", replace: '', tests: ['reference/circle/verifiers.test.ts'], filter: 'LOOP-4' },
  { id: 'child-limits-ignored', rule: 'COMP-1', file: 'reference/composition/spawn.ts', find: '  admitChild(parentCircle.childLimits, circle);\n', replace: '', tests: ['reference/composition/child-limits.test.ts'], filter: 'COMP-1' },
  { id: 'reopen-forgets-the-loom', rule: 'LOOM-1', file: 'reference/adapter/reference-adapter.ts', find: 'storage = new JsonlStorage(file);\n        loom = new Loom(storage);', replace: "storage = new JsonlStorage(`${file}.fresh`);\n        loom = new Loom(storage);", tests: ['harness/run/reference.test.ts'], filter: 'loom1-turns-survive-a-restart' },
];

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const chosen = process.argv.slice(2);
const mutants = chosen.length > 0 ? MUTANTS.filter((mutant) => chosen.includes(mutant.id)) : MUTANTS;

const dirty = execFileSync('git', ['status', '--porcelain', '--', ...new Set(mutants.map((mutant) => mutant.file))], { cwd: root, encoding: 'utf8' }).trim();
if (dirty) {
  console.error(`refusing to mutate files with uncommitted changes:\n${dirty}`);
  process.exit(2);
}

let survived = 0;
for (const mutant of mutants) {
  const path = join(root, mutant.file);
  const original = readFileSync(path, 'utf8');
  if (!original.includes(mutant.find)) {
    console.log(`STALE     ${mutant.id} (${mutant.rule}): '${mutant.find}' is no longer in ${mutant.file}`);
    survived += 1;
    continue;
  }
  writeFileSync(path, original.replace(mutant.find, mutant.replace));
  try {
    const args = ['vitest', 'run', ...mutant.tests, ...(mutant.filter ? ['-t', mutant.filter] : [])];
    const run = spawnSync('npx', args, { cwd: root, encoding: 'utf8', timeout: 120_000 });
    const summary = /Tests\s+(.*)/.exec(run.stdout.replace(/\x1b\[[0-9;]*m/g, ''))?.[1]?.trim() ?? 'no summary';
    const caught = run.status !== 0;
    if (!caught) survived += 1;
    console.log(`${caught ? 'CAUGHT  ' : 'SURVIVED'}  ${mutant.id} (${mutant.rule}): ${summary}`);
  } finally {
    writeFileSync(path, original);
  }
}
console.log(`${mutants.length - survived} of ${mutants.length} mutants caught`);
process.exit(survived > 0 ? 1 : 0);
