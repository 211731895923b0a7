/**
 * Reading one of the spec folder's YAML files (a rule catalog, the draft registry): parse it keeping
 * positions, check it against its schema, and say where each problem is (`file:line:col`).
 */
import { LineCounter, parseDocument } from 'yaml';
import { validate } from '../schemas/loader.ts';

export interface CheckedYaml {
  /** The parsed value, when the text parsed and matched its schema. */
  value?: unknown;
  /** Every problem found, each with its position. */
  problems: string[];
  /** The position of a node, by its path in the document (the file alone when it has none). */
  where: (path: readonly (string | number)[]) => string;
}

/** Parses `text` and checks it against the schema `schema` (a short name known to the schema loader). */
export function readCheckedYaml(text: string, file: string, schema: string): CheckedYaml {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false });
  const where = (path: readonly (string | number)[]): string => {
    const node = path.length === 0 ? doc.contents : doc.getIn(path, true);
    const offset = (node as { range?: [number, number, number] } | undefined)?.range?.[0];
    if (offset === undefined) return file;
    const { line, col } = lineCounter.linePos(offset);
    return `${file}:${line}:${col}`;
  };
  if (doc.errors.length > 0) {
    return {
      where,
      problems: doc.errors.map((e) => {
        const { line, col } = lineCounter.linePos(e.pos[0]);
        return `${file}:${line}:${col}: ${e.message}`;
      }),
    };
  }
  const value: unknown = doc.toJS();
  const result = validate(schema, value);
  if (!result.ok) return { where, problems: result.problems.map((p) => `${where(pointerPath(p.pointer))}: ${p.pointer}: ${p.message}`) };
  return { value, problems: [], where };
}

/** A JSON pointer as the path of keys and indices `doc.getIn` takes. */
export function pointerPath(pointer: string): (string | number)[] {
  if (pointer === '/' || pointer === '') return [];
  return pointer
    .split('/')
    .slice(1)
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((part) => (/^[0-9]+$/.test(part) ? Number(part) : part));
}
