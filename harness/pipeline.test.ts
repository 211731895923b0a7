/**
 * The harness's folders are the stages of its pipeline (docs/architecture.md), and imports run one way
 * along it: a stage may use the stages before it, never one after it. Cross-stage imports go through
 * the stage's index.ts, which only re-exports. Tests may reach anywhere; the code they test may not.
 * The walls of the design hold too: the reference never imports the harness, and the harness reaches
 * the reference only through its adapter.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, posix } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PACKAGE_ROOT } from './case-file/index.ts';

/** Each folder of harness/ with its place in the pipeline: a folder may import only folders of a lower rank. */
const RANK: Record<string, number> = {
  values: 0, // plain-data helpers every stage may use
  adapters: 1, // reaching an implementation: a module or a process speaking the adapter protocol
  'crystal-server': 1, // scripted crystals in the providers' wire formats
  'case-file': 2,
  plan: 3,
  drive: 4,
  judge: 5,
  run: 6,
  properties: 7,
  report: 8,
  site: 9,
  cli: 10,
  vitest: 9,
};
/** Only tests import test support; the package's public index may re-export any stage. */
const TEST_SUPPORT = 'testing';
const PUBLIC_INDEX = 'harness/index.ts';
/** The one door from the harness into the reference. */
const REFERENCE_DOOR = 'reference/adapter/index.ts';

type Edge = { from: string; to: string };

function sourceFiles(dir: string): string[] {
  return readdirSync(join(PACKAGE_ROOT, dir)).flatMap((name) => {
    const path = posix.join(dir, name);
    return statSync(join(PACKAGE_ROOT, path)).isDirectory() ? sourceFiles(path) : /\.(ts|mts)$/.test(name) ? [path] : [];
  });
}

/** Every relative module specifier of a file (static and dynamic imports, re-exports), resolved from the repository root. */
function importsOf(file: string): string[] {
  const text = readFileSync(join(PACKAGE_ROOT, file), 'utf8');
  const specs = [...text.matchAll(/(?:\bfrom\s*|\bimport\s*\(?\s*)'(\.{1,2}\/[^']+)'/g)].map((m) => m[1]!);
  return specs.map((spec) => posix.normalize(posix.join(posix.dirname(file), spec)));
}

const folderOf = (file: string): string => (file.split('/').length > 2 ? file.split('/')[1]! : '');
const isTest = (file: string): boolean => file.endsWith('.test.ts');

/** What breaks the pipeline's direction among `edges` (harness files only), one line each. */
function directionProblems(edges: Edge[]): string[] {
  const problems: string[] = [];
  for (const { from, to } of edges) {
    if (isTest(from) || !to.startsWith('harness/')) continue;
    const source = folderOf(from);
    const target = folderOf(to);
    if (target === TEST_SUPPORT && source !== TEST_SUPPORT) {
      problems.push(`${from} imports test support ${to}`);
      continue;
    }
    if (from === PUBLIC_INDEX || source === TEST_SUPPORT || source === target) continue;
    const sourceRank = RANK[source];
    const targetRank = RANK[target];
    if (sourceRank === undefined) problems.push(`${from} is in no stage of the pipeline`);
    else if (targetRank === undefined) problems.push(`${from} imports ${to}, which is in no stage of the pipeline`);
    else if (targetRank >= sourceRank) problems.push(`${from} (${source}) imports ${to} (${target}): against the pipeline's direction`);
    else if (!to.endsWith(`/${target}/index.ts`)) problems.push(`${from} reaches into ${to}: another stage is used through its index.ts`);
  }
  return problems;
}

/** Cycles among the files of `edges`, each as the files on it. */
function importCycles(edges: Edge[]): string[][] {
  const next = new Map<string, string[]>();
  for (const { from, to } of edges) next.set(from, [...(next.get(from) ?? []), to]);
  const cycles: string[][] = [];
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (file: string): void => {
    state.set(file, 'open');
    stack.push(file);
    for (const to of next.get(file) ?? []) {
      if (state.get(to) === 'open') cycles.push(stack.slice(stack.indexOf(to)));
      else if (!state.has(to)) visit(to);
    }
    stack.pop();
    state.set(file, 'done');
  };
  for (const file of next.keys()) if (!state.has(file)) visit(file);
  return cycles;
}

const harnessFiles = sourceFiles('harness');
const edges: Edge[] = harnessFiles.flatMap((from) => importsOf(from).map((to) => ({ from, to })));

describe('the harness pipeline', () => {
  it('imports run one way along the stages, through each stage index', () => {
    expect(directionProblems(edges)).toEqual([]);
  });

  it('sees an import against the direction, and one past an index', () => {
    // The check itself must be able to fail: judging that uses the command line, and a stage reaching into another's files.
    expect(directionProblems([{ from: 'harness/judge/expectations.ts', to: 'harness/cli/main.ts' }])).toHaveLength(1);
    expect(directionProblems([{ from: 'harness/run/run.ts', to: 'harness/drive/drive.ts' }])).toHaveLength(1);
    expect(directionProblems([{ from: 'harness/drive/drive.ts', to: 'harness/case-file/index.ts' }])).toEqual([]);
    expect(directionProblems([{ from: 'harness/report/report.ts', to: 'harness/testing/chromium.ts' }])).toHaveLength(1);
  });

  it('has no import cycle among harness files', () => {
    const sources = edges.filter((e) => !isTest(e.from) && e.to.startsWith('harness/'));
    expect(importCycles(sources)).toEqual([]);
    expect(importCycles([{ from: 'a', to: 'b' }, { from: 'b', to: 'a' }])).toEqual([['a', 'b']]);
  });

  it('has index files that only re-export', () => {
    const indexes = harnessFiles.filter((f) => f.endsWith('/index.ts'));
    expect(indexes.length).toBeGreaterThan(8);
    for (const index of indexes) {
      const statements = readFileSync(join(PACKAGE_ROOT, index), 'utf8')
        .replace(/\/\*[\s\S]*?\*\//g, '')
        .replace(/\/\/.*$/gm, '')
        .split(';')
        .map((s) => s.trim())
        .filter(Boolean);
      for (const statement of statements) expect(statement, index).toMatch(/^export (type )?(\*|\{[^}]*\}) from '\.\/[^']+'$/);
    }
  });

  it('keeps the walls: the reference never imports the harness; the harness reaches the reference only through its adapter', () => {
    const referenceEdges = sourceFiles('reference').flatMap((from) => importsOf(from).map((to) => ({ from, to })));
    expect(referenceEdges.filter((e) => e.to.startsWith('harness/'))).toEqual([]);
    const intoReference = edges.filter((e) => !isTest(e.from) && e.to.startsWith('reference/') && e.to !== REFERENCE_DOOR);
    expect(intoReference).toEqual([]);
  });
});
