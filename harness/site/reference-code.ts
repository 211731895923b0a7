/**
 * Where the reference implementation carries each rule: its sources name the rules they implement in
 * their comments (the TSDoc of each exported item, `grep -rn LOOP-3 reference`), so a rule page can list
 * those places. The files are read as text and never loaded: the harness reaches the reference's code
 * only through its adapter. In an installed package the sources are not shipped, and the compiled
 * declarations (which keep the TSDoc) are read instead.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { PACKAGE_ROOT } from '../case-file/index.ts';

export interface CodeMention {
  /** Relative to the kit's root, with `/`. */
  file: string;
  line: number;
}

const RULE_ID = /\b[A-Z]+-[0-9]+\b/g;

function sourceFiles(dir: string, pattern: RegExp): string[] {
  return readdirSync(dir).sort().flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'testing' || name === 'examples' ? [] : sourceFiles(path, pattern);
    return pattern.test(name) && !/\.test\.[mc]?[jt]s$/.test(name) ? [path] : [];
  });
}

/** Every rule id the reference's code mentions, with where; `root` is the kit's folder. */
export function referenceMentions(root: string = PACKAGE_ROOT): Map<string, CodeMention[]> {
  const sources = join(root, 'reference');
  const built = join(root, 'dist', 'reference');
  const files = existsSync(sources) ? sourceFiles(sources, /\.ts$/) : existsSync(built) ? sourceFiles(built, /\.d\.ts$/) : [];
  const mentions = new Map<string, CodeMention[]>();
  for (const path of files) {
    const file = relative(root, path).split('\\').join('/');
    readFileSync(path, 'utf8')
      .split('\n')
      .forEach((text, i) => {
        for (const id of new Set(text.match(RULE_ID) ?? [])) {
          const list = mentions.get(id) ?? [];
          // One line per file is enough to find it; the first mention of a rule in a file is usually its TSDoc.
          if (!list.some((m) => m.file === file)) list.push({ file, line: i + 1 });
          mentions.set(id, list);
        }
      });
  }
  return mentions;
}
