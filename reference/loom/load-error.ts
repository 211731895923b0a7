/**
 * The error a loom raises when stored lines cannot be trusted: a corrupt line that is not a torn tail,
 * a duplicated turn id, a parent or reward target that does not exist. It names where and what as
 * fields, so callers can branch on them without reading the message.
 */
export class LoomLoadError extends Error {
  override readonly name: string = 'LoomLoadError';
  constructor(
    /** The storage's location, e.g. the JSONL file path. */
    readonly location: string,
    /** 1-based line number of the offending record. */
    readonly line: number,
    /** What is wrong with it. */
    readonly reason: string,
    options?: { cause?: unknown },
  ) {
    super(`${location}:${line}: ${reason}`, options);
  }
}
