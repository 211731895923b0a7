/**
 * Loads a case file: YAML (with positions) -> schema check -> cross-reference checks. Every problem
 * is reported as `file:line:column: what`, and the whole file is refused; nothing is dropped or
 * rewritten to make it load.
 */
import { readFileSync, statSync } from 'node:fs';
import { LineCounter, parseDocument, visit, type Document } from 'yaml';
import { validate, type SchemaProblem } from '../../schemas/loader.ts';
import type { Action, Case, CaseFile, LoadedCase, TurnRef } from './types.ts';
import { checkCaseDrafts } from './drafts.ts';
import { parsePath, PathError } from './path-syntax.ts';
import { actionNames, unknownPathName } from './expect-paths.ts';
import { positionOf } from './positions.ts';
import { checkLineageWards } from './ward-checks.ts';
import { checkOverlaysAndEvents } from './overlay-event-checks.ts';
import { checkAddedVocabulary } from './vocabulary-checks.ts';
import { checkChildGates } from './child-gate-checks.ts';
import { checkStepSnapshots } from './snapshot-step-checks.ts';
import { checkGateCredentials } from './credential-checks.ts';
import { checkCrystalSideVocabulary } from './crystal-side-checks.ts';
import { recallLoad, rememberLoad, type LoadMemo } from './memo.ts';
import { withSetupNeeds } from './setup-needs.ts';
import { scriptSteps, stepSnapshotNames } from './script-steps.ts';

export interface LoadProblem {
  file: string;
  line: number;
  column: number;
  /** JSON pointer of the offending value ('' when the YAML itself does not parse). */
  pointer: string;
  message: string;
}

/** A case file that does not load; `problems` is never empty. */
export class CaseFileError extends Error {
  override readonly name = 'CaseFileError';
  constructor(readonly problems: LoadProblem[]) {
    // A problem of the whole file (unreadable, too large) has no position: the file alone, not file:0:0.
    super(problems.map((p) => `${p.line > 0 ? `${p.file}:${p.line}:${p.column}` : p.file}: ${p.message}`).join('\n'));
  }
}

/**
 * Largest case file loaded, in bytes: 20 times tests.yaml, and loaded in a few seconds. Loading costs
 * about 0.7 s and 100 MB of memory per MB of YAML, growing faster than the size, so a larger file is
 * refused at once rather than taking minutes and gigabytes (docs/INTERPRETING.md).
 */
export const MAX_CASE_FILE_BYTES = 4 * 1024 * 1024;

/** The file-level problem of a case file over {@link MAX_CASE_FILE_BYTES}, if it is. */
function sizeProblem(bytes: number, file: string): LoadProblem | undefined {
  if (bytes <= MAX_CASE_FILE_BYTES) return undefined;
  const mib = (n: number): string => `${(n / (1024 * 1024)).toFixed(1)} MiB`;
  return { file, line: 0, column: 0, pointer: '', message: `the file is ${mib(bytes)}; case files are limited to ${mib(MAX_CASE_FILE_BYTES)} (split it into several files)` };
}

/** Reads and loads a case file from disk; `label` (default: the path) names it in messages and reports. */
export function loadCaseFile(file: string, label = file): CaseFile {
  let text: string;
  try {
    const tooBig = sizeProblem(statSync(file).size, label);
    if (tooBig) throw new CaseFileError([tooBig]);
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if (error instanceof CaseFileError) throw error;
    throw new CaseFileError([{ file: label, line: 0, column: 0, pointer: '', message: `cannot read: ${(error as Error).message}` }]);
  }
  // The same text loaded before skips parsing and the schema check (harness/case-file/memo.ts).
  const memo = recallLoad(file, text);
  const recalled = memo && fromMemo(memo, label);
  if (recalled) return recalled;
  const loaded = loadFully(text, label);
  rememberLoad(file, text, { value: loaded.value, places: loaded.caseFile.cases.map(({ position: { line, column } }) => ({ line, column })) });
  return loaded.caseFile;
}

/**
 * A case file from a memo of its parsed, schema-checked value: the cross-reference checks run again.
 * Undefined when they find a problem (the full load then says where) or the memo does not fit.
 */
function fromMemo(memo: LoadMemo, file: string): CaseFile | undefined {
  const data = memo.value as { format_version: 1; spec_version: string; cases: Case[] };
  if (!Array.isArray(data.cases) || memo.places.length !== data.cases.length || crossCheck(data.cases).length > 0) return undefined;
  const cases: LoadedCase[] = data.cases.map((c, i) => ({ ...c, requires: withSetupNeeds(c), position: { file, line: memo.places[i]!.line, column: memo.places[i]!.column } }));
  return { file, format_version: 1, spec_version: data.spec_version, cases };
}

/** Loads case-file text; `file` is used only in messages. */
export function loadCaseText(text: string, file = 'tests.yaml'): CaseFile {
  return loadFully(text, file).caseFile;
}

/** Parses, schema-checks and cross-checks case-file text; also gives the plain value that passed the schema. */
function loadFully(text: string, file: string): { caseFile: CaseFile; value: unknown } {
  const tooBig = sizeProblem(Buffer.byteLength(text, 'utf8'), file);
  if (tooBig) throw new CaseFileError([tooBig]);
  const counter = new LineCounter();
  const doc = parseDocument(text, { lineCounter: counter, prettyErrors: false });
  // Warnings too: an unknown tag (`!foo`) would otherwise be dropped silently and its value read as plain text.
  if (doc.errors.length > 0 || doc.warnings.length > 0) {
    throw new CaseFileError(
      [...doc.errors, ...doc.warnings].map((e) => {
        const at = e.linePos?.[0] ?? counter.linePos(e.pos[0]);
        return { file, line: at.line, column: at.col, pointer: '', message: `YAML: ${firstLine(e.message)}` };
      }),
    );
  }
  let value: unknown;
  try {
    value = doc.toJS();
  } catch (error) {
    // Building the value fails on too many aliases (a billion-laughs document): say where the aliases start.
    const at = firstAliasPosition(doc, counter);
    throw new CaseFileError([{ file, line: at.line, column: at.col, pointer: '', message: `YAML: ${firstLine((error as Error).message)}` }]);
  }
  const where = (pointer: string, message: string, atKey = false): LoadProblem => ({ file, ...positionOf(doc, counter, pointer, atKey), pointer, message });
  const checked = validate('test-case', value);
  if (!checked.ok) throw new CaseFileError(mostUseful(checked.problems).map((p) => where(p.pointer, describe(p), KEY_PROBLEMS.has(p.keyword))));
  const data = value as { format_version: 1; spec_version: string; cases: Case[] };
  const problems = crossCheck(data.cases).map(([pointer, message]) => where(pointer, message));
  if (problems.length > 0) throw new CaseFileError(problems);
  // What the setup itself uses joins the hand-written `requires` (harness/case-file/setup-needs.ts).
  const cases: LoadedCase[] = data.cases.map((c, i) => ({ ...c, requires: withSetupNeeds(c), position: { file, ...positionOf(doc, counter, `/cases/${i}/id`, true) } }));
  return { caseFile: { file, format_version: 1, spec_version: data.spec_version, cases }, value };
}

const KEY_PROBLEMS = new Set(['additionalProperties', 'false schema']);

/** Where the document's first alias (`*name`) is, or its start when it has none. */
function firstAliasPosition(doc: Document, counter: LineCounter): { line: number; col: number } {
  let offset: number | undefined;
  visit(doc, {
    Alias(_key, node) {
      offset = node.range?.[0];
      return visit.BREAK;
    },
  });
  return counter.linePos(offset ?? 0);
}

function firstLine(message: string): string {
  return message.split('\n')[0] ?? message;
}

function describe(p: SchemaProblem): string {
  const key = p.pointer.split('/').pop() ?? '';
  if (p.keyword === 'additionalProperties' || p.keyword === 'false schema') return `unknown or misplaced key '${key}'`;
  if (p.keyword === 'required') return `missing key '${key}'`;
  return `${p.pointer || '/'} ${p.message}`;
}

// ajv reports every failed branch of anyOf/oneOf/if; the deepest concrete problems are the useful ones.
const GENERIC = new Set(['anyOf', 'oneOf', 'if', 'not', 'enum']);
function mostUseful(problems: SchemaProblem[]): SchemaProblem[] {
  // A value that is one of a list or an object (a level, or a level per draft): a wrong word is a wrong
  // word of the list, not a missing object. The enum branch's problem speaks for that pointer.
  const enumAt = new Set(problems.filter((p) => p.keyword === 'enum').map((p) => p.pointer));
  problems = problems.filter((p) => !(p.keyword === 'type' && enumAt.has(p.pointer)));
  const concrete = problems.filter((p) => !GENERIC.has(p.keyword) || (p.keyword === 'enum' && !problems.some((q) => q.pointer.startsWith(`${p.pointer}/`))));
  const kept = problems.filter((p) => {
    if (concrete.includes(p)) return true;
    return !concrete.some((c) => c.pointer === p.pointer || c.pointer.startsWith(`${p.pointer}/`));
  });
  // A misspelled key makes every anyOf branch complain; keep only one message per pointer.
  const seen = new Set<string>();
  return kept.filter((p) => {
    const key = `${p.pointer}|${p.keyword}|${p.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

type Problem = [pointer: string, message: string];

/** Checks the schema cannot express: unique ids, names defined before use, crystals declared, paths. */
function crossCheck(cases: Case[]): Problem[] {
  const problems: Problem[] = [];
  const ids = new Map<string, number>();
  cases.forEach((c, i) => {
    const at = `/cases/${i}`;
    const earlier = ids.get(c.id);
    if (earlier !== undefined) problems.push([`${at}/id`, `duplicate case id '${c.id}' (first used by case ${earlier})`]);
    else ids.set(c.id, i);
    // Rule ids against the catalog of the case's rules_draft, its drafts and its level in each (drafts.ts).
    problems.push(...checkCaseDrafts(c, at));
    const crystals = c.crystals ?? {};
    if (c.setup.crystal !== undefined && !Object.hasOwn(crystals, c.setup.crystal)) {
      problems.push([`${at}/setup/crystal`, `crystal '${c.setup.crystal}' is not declared under crystals`]);
    }
    (c.setup.circle?.gates ?? []).forEach((g, j) => {
      if (typeof g === 'object' && g.crystal !== undefined && !Object.hasOwn(crystals, g.crystal)) {
        problems.push([`${at}/setup/circle/gates/${j}/crystal`, `crystal '${g.crystal}' is not declared under crystals`]);
      }
    });
    for (const [name, crystal] of Object.entries(crystals)) {
      for (const lane of Object.keys(crystal.by_entity ?? {})) {
        // Requests are filed under a lane's name as under a crystal's: the two must not clash.
        if (Object.hasOwn(crystals, lane)) problems.push([`${at}/crystals/${name}/by_entity/${lane}`, `lane '${lane}' has the name of a crystal of the case`]);
      }
    }
    problems.push(...checkActions(c.act, `${at}/act`));
    problems.push(...checkLineageWards(c, at));
    problems.push(...checkOverlaysAndEvents(c, at));
    problems.push(...checkAddedVocabulary(c, at));
    problems.push(...checkChildGates(c, at));
    problems.push(...checkStepSnapshots(c, at));
    problems.push(...checkGateCredentials(c, at));
    problems.push(...checkCrystalSideVocabulary(c, at));
    c.act.forEach((action, j) => {
      const [verb, crystal] = 'construct' in action ? ['construct', action.construct.crystal] : 'fork' in action ? ['fork', action.fork.crystal] : [undefined, undefined];
      if (crystal !== undefined && !Object.hasOwn(crystals, crystal)) problems.push([`${at}/act/${j}/${verb}/crystal`, `crystal '${crystal}' is not declared under crystals`]);
    });
    problems.push(...checkExpectationRules(c, at));
    // Running again with scaled times only helps a case that scripts a time to scale.
    if (c.premise && !scriptsTime(c)) problems.push([`${at}/premise`, 'a premise needs a scripted time to scale on a rerun: a ward timeout_ms or a crystal step delay_ms']);
    // Requests of a shared crystal are filed under each entity lane's name (by_entity) as well.
    const lanes = Object.values(crystals).flatMap((crystal) => Object.keys(crystal.by_entity ?? {}));
    const names = { actions: actionNames(c.act), crystals: new Set([...Object.keys(crystals), ...lanes]), stepSnapshots: stepSnapshotNames(c) };
    for (const [list, expectations] of [['expect', c.expect], ['premise', c.premise ?? []]] as const) {
      expectations.forEach((e, j) => {
        const nested = (e.any_of ?? []).flatMap((a, k) => [[`any_of/${k}/path`, a.path], [`any_of/${k}/same_as`, a.same_as]] as const);
        for (const [key, path] of [['path', e.path], ['same_as', e.same_as], ['contains_text_at', e.contains_text_at], ['holds_value_at', e.holds_value_at], ...nested] as const) {
          if (path === undefined || typeof path !== 'string') continue;
          try {
            const unknown = unknownPathName(path, parsePath(path), names.actions, names.crystals, names.stepSnapshots);
            if (unknown !== undefined) problems.push([`${at}/${list}/${j}/${key}`, unknown]);
          } catch (error) {
            if (error instanceof PathError) problems.push([`${at}/${list}/${j}/${key}`, error.message]);
            else throw error;
          }
        }
      });
    }
  });
  return problems;
}

/**
 * Each expectation names the rule it checks, so a failure is reported under the rule it breaks: a
 * `rule` must be one of the case's rules, and a case with several rules tags every expectation (a
 * one-rule case's untagged expectations check its one rule). Premises are not checks of a rule.
 */
function checkExpectationRules(c: Case, at: string): Problem[] {
  const problems: Problem[] = [];
  c.expect.forEach((e, j) => {
    if (e.rule !== undefined && !c.rules.includes(e.rule)) problems.push([`${at}/expect/${j}/rule`, `'${e.rule}' is not one of this case's rules (${c.rules.join(', ')})`]);
    else if (e.rule === undefined && c.rules.length > 1) problems.push([`${at}/expect/${j}`, `this case lists several rules (${c.rules.join(', ')}): say which one this expectation checks with 'rule:'`]);
  });
  return problems;
}

const VERBS = ['construct', 'cast', 'invoke', 'send', 'fork', 'annotate_reward', 'mutate', 'thread', 'snapshot_loom', 'reopen', 'overlay', 'export_loom', 'logs', 'acp_session', 'acp_prompt'] as const;

function checkActions(act: Action[], at: string): Problem[] {
  const problems: Problem[] = [];
  const names = new Set<string>(['main']);
  const sessions = new Set<string>();
  const counters = new Map<string, number>();
  act.forEach((action, i) => {
    const verb = VERBS.find((v) => Object.hasOwn(action, v))!;
    const body = (action as Record<string, Record<string, unknown>>)[verb]!;
    const here = `${at}/${i}/${verb}`;
    const refs: [string, unknown][] = [];
    if (typeof body.cantrip === 'string') refs.push(['cantrip', body.cantrip]);
    if (typeof body.entity === 'string') refs.push(['entity', body.entity]);
    for (const key of ['from', 'turn', 'leaf']) {
      const ref = body[key] as TurnRef | undefined;
      if (ref && 'of' in ref) refs.push([`${key}/of`, ref.of]);
    }
    for (const [key, name] of refs) {
      if (!names.has(name as string)) problems.push([`${here}/${key}`, `'${String(name)}' is not the name of an earlier action`]);
    }
    // An ACP prompt goes to a session an earlier acp_session opened.
    if (verb === 'acp_prompt' && !sessions.has(body.session as string)) problems.push([`${here}/session`, `'${String(body.session)}' is not the name of an earlier acp_session action`]);
    const n = (counters.get(verb) ?? 0) + 1;
    counters.set(verb, n);
    const as = typeof body.as === 'string' ? body.as : `${verb}${n}`;
    if (names.has(as)) problems.push([`${here}/as`, `the name '${as}' is already used in this case`]);
    names.add(as);
    if (verb === 'acp_session') sessions.add(as);
  });
  return problems;
}

/** Whether the case scripts a real time: a timeout ward, a held crystal reply or a slow test gate. */
function scriptsTime(c: Case): boolean {
  const steps = scriptSteps(c);
  const gateWaits = (c.setup.circle?.gates ?? []).some((g) => typeof g === 'object' && g.delay_ms !== undefined);
  return c.setup.circle?.wards?.timeout_ms !== undefined || gateWaits || steps.some((step) => step.delay_ms !== undefined);
}
