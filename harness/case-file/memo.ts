/**
 * A memo of loaded case files on disk, so a run does not parse and schema-check the same tests.yaml
 * again: that costs about 0.7 s of every start (YAML with positions, then compiling and running the
 * test-case schema), and reading the memo about 20 ms.
 *
 * What is kept is only what parsing and the schema check decide, which nothing but their inputs can
 * change: the document's plain value (it passed the schema) and where each case starts. The key is a
 * hash of the case text, the test-case schema's text, the yaml and ajv versions and {@link MEMO_FORMAT}.
 * The cross-reference checks still run on every load, so a change to them takes effect at once. Any
 * problem with the memo (missing, unreadable, torn, another key) is a miss: the file is loaded the
 * full way and the memo written again. The folder is the user's own (mode 0700, owner checked), since a
 * memo from someone else could smuggle in cases the schema never saw.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { PACKAGE_ROOT } from './package-root.ts';

/** Bumped when what the memo holds, or how loading decides it, changes. */
const MEMO_FORMAT = 1;

/** Where a case starts in its file. */
export interface CasePlace {
  line: number;
  column: number;
}

/** What parsing and the schema check decided about one case-file text. */
export interface LoadMemo {
  value: unknown;
  places: CasePlace[];
}

const uid = process.getuid?.();
const MEMO_DIR = join(tmpdir(), `cantrip-conformance-${uid ?? 'user'}`, 'case-files');

let inputsHash: string | undefined;
/** What besides the text decides a load: the schema's text and the parser's and validator's versions. */
function inputs(): string {
  if (inputsHash === undefined) {
    const require = createRequire(join(PACKAGE_ROOT, 'package.json'));
    const version = (name: string): string => (require(`${name}/package.json`) as { version: string }).version;
    const schema = readFileSync(join(PACKAGE_ROOT, 'schemas', 'test-case.schema.json'), 'utf8');
    inputsHash = `${MEMO_FORMAT}|yaml ${version('yaml')}|ajv ${version('ajv')}|${createHash('sha256').update(schema).digest('hex')}`;
  }
  return inputsHash;
}

function keyOf(text: string): string {
  return createHash('sha256').update(inputs()).update('\0').update(text).digest('hex');
}

/** One memo per case file (by its path), replaced when the file changes, so the folder does not grow with every edit. */
export function memoPath(file: string): string {
  return join(MEMO_DIR, `${createHash('sha256').update(resolve(file)).digest('hex').slice(0, 32)}.json`);
}

/** The memo for this text of `file`, or undefined (a miss) when there is none that can be trusted. */
export function recallLoad(file: string, text: string): LoadMemo | undefined {
  try {
    const key = keyOf(text);
    const dir = statSync(MEMO_DIR);
    if (uid !== undefined && (dir.uid !== uid || (dir.mode & 0o077) !== 0)) return undefined;
    const stored = JSON.parse(readFileSync(memoPath(file), 'utf8')) as { key?: unknown } & Partial<LoadMemo>;
    if (stored.key !== key || !Array.isArray(stored.places) || stored.value === undefined) return undefined;
    return { value: stored.value, places: stored.places };
  } catch {
    return undefined;
  }
}

/**
 * Keeps what loading this text of `file` decided. Only a value that JSON carries unchanged is kept (YAML
 * can say `.nan`, which JSON cannot); a memo that cannot be written is simply not kept.
 */
export function rememberLoad(file: string, text: string, memo: LoadMemo): void {
  try {
    const json = JSON.stringify(memo.value);
    if (!isDeepStrictEqual(JSON.parse(json), memo.value)) return;
    const key = keyOf(text);
    mkdirSync(MEMO_DIR, { recursive: true, mode: 0o700 });
    // Written whole, then renamed into place: a reader never sees half a memo.
    const target = memoPath(file);
    const temporary = `${target}.${process.pid}.tmp`;
    writeFileSync(temporary, `{"key":${JSON.stringify(key)},"places":${JSON.stringify(memo.places)},"value":${json}}`, { mode: 0o600 });
    renameSync(temporary, target);
  } catch {
    // A read-only or full disk costs the next run its shortcut, nothing more.
  }
}

/** Drops the memo of `file`, if there is one (for tests that load throwaway files). */
export function forgetLoad(file: string): void {
  rmSync(memoPath(file), { force: true });
}
