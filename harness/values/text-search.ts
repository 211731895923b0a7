/**
 * Where a piece of text shows inside a JSON value: every string (and every key) that contains it, named
 * by a path in the case file's path syntax (`loom.turns[3].observation`). Used to say exactly where a
 * secret the kit handed over turned up (PROD-8), so a failure points at the field that leaked it.
 */

/** A key as a path step: `.name` when it reads as one, else a quoted bracket (`["a b"]`). */
function step(key: string): string {
  return /^[A-Za-z_][A-Za-z0-9_-]*$/.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`;
}

/**
 * The paths under `root` of every string in `value` that contains `needle`, in document order; a key
 * that contains it is named with the path of its object and `(key)`. An empty needle is found nowhere
 * (it would be found everywhere, which tells nothing).
 */
export function pathsShowing(value: unknown, needle: string, root: string): string[] {
  if (needle === '') return [];
  const found: string[] = [];
  const walk = (v: unknown, at: string): void => {
    if (typeof v === 'string') {
      if (v.includes(needle)) found.push(at);
      return;
    }
    if (Array.isArray(v)) {
      v.forEach((item, i) => walk(item, `${at}[${i}]`));
      return;
    }
    if (v === null || typeof v !== 'object') return;
    for (const [key, item] of Object.entries(v)) {
      if (key.includes(needle)) found.push(`${at}${step(key)} (key)`);
      walk(item, `${at}${step(key)}`);
    }
  };
  walk(value, root);
  return found;
}
