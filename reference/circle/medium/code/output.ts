/**
 * Collects one evaluation's console lines up to a character cap and counts what it dropped, so the
 * observation stays bounded however much the code prints, and says so visibly when it was cut.
 */
export class OutputBuffer {
  private text = '';
  private dropped = 0;

  constructor(private readonly cap: number) {}

  /** Adds one line; `fullLength` is the line's length before the sandbox pre-trimmed it. */
  add(level: string, line: string, fullLength: number): void {
    const prefix = level === 'warn' || level === 'error' ? `[${level}] ` : '';
    const separator = this.text.length > 0 || this.dropped > 0 ? '\n' : '';
    const wanted = separator.length + prefix.length + Math.max(fullLength, line.length);
    const room = this.cap - this.text.length;
    if (room <= 0 || this.dropped > 0) {
      this.dropped += wanted;
      return;
    }
    const piece = (separator + prefix + line).slice(0, room);
    this.text += piece;
    this.dropped += wanted - piece.length;
  }

  /** The captured text, with a marker when anything was dropped. */
  toString(): string {
    return this.dropped > 0 ? `${this.text}…[output truncated: ${this.dropped} more chars]` : this.text;
  }
}

/** Shortens a rendered value the same visible way output is shortened. */
export function capText(text: string, cap: number): string {
  return text.length > cap ? `${text.slice(0, cap)}…[truncated: ${text.length - cap} more chars]` : text;
}
