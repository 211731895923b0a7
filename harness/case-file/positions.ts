/**
 * Maps a JSON pointer (as ajv reports it) back to a line and column of the YAML source, so a bad case
 * file is reported where the author can fix it.
 */
import { isMap, isPair, isScalar, isSeq, LineCounter, type Document, type Node } from 'yaml';

export interface Position {
  line: number;
  column: number;
}

/** Splits a JSON pointer into unescaped segments (`/a~1b/0` -> `['a/b', '0']`). */
export function pointerSegments(pointer: string): string[] {
  if (pointer === '' || pointer === '/') return [];
  return pointer
    .replace(/^\//, '')
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/**
 * The position of the deepest node the pointer reaches. With `atKey`, the last segment's key itself is
 * reported (that is where a misspelled key sits); otherwise its value.
 */
export function positionOf(doc: Document, counter: LineCounter, pointer: string, atKey = false): Position {
  let node: unknown = doc.contents;
  let offset = rangeStart(node) ?? 0;
  const segments = pointerSegments(pointer);
  for (const [i, segment] of segments.entries()) {
    if (isMap(node)) {
      const pair = node.items.find((p) => isPair(p) && keyText(p.key) === segment);
      if (!pair) break;
      node = pair.value;
      // A misplaced key is reported at the key; a bad value at the value.
      const last = i === segments.length - 1;
      offset = (last && atKey ? rangeStart(pair.key) : rangeStart(pair.value) ?? rangeStart(pair.key)) ?? offset;
      continue;
    }
    if (isSeq(node)) {
      const item = node.items[Number(segment)];
      if (item === undefined) break;
      node = item;
      offset = rangeStart(item) ?? offset;
      continue;
    }
    break;
  }
  const { line, col } = counter.linePos(offset);
  return { line, column: col };
}

function keyText(key: unknown): string | undefined {
  if (isScalar(key)) return String(key.value);
  return undefined;
}

function rangeStart(node: unknown): number | undefined {
  const range = (node as Node | null | undefined)?.range;
  return range ? range[0] : undefined;
}
