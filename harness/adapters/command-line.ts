/**
 * The `cmd:` adapter syntax: `--adapter 'cmd:python3 my_adapter.py --flag'` runs that command and speaks
 * the adapter protocol with it over stdio. The command line is split like a POSIX shell would split a
 * simple command (whitespace, 'single' and "double" quotes, backslash escapes) but never run by a shell,
 * so no expansion happens and the process the harness kills is the implementation itself.
 */

export const COMMAND_PREFIX = 'cmd:';

export interface CommandLine {
  command: string;
  args: string[];
}

/** True when an `--adapter` value names a command rather than `reference` or a module. */
export function isCommandSpec(spec: string): boolean {
  return spec.startsWith(COMMAND_PREFIX);
}

/** Splits `cmd:<command line>`; throws, saying where, on an unclosed quote or an empty command. */
export function parseCommandSpec(spec: string): CommandLine {
  const text = spec.startsWith(COMMAND_PREFIX) ? spec.slice(COMMAND_PREFIX.length) : spec;
  const words: string[] = [];
  let word = '';
  // Separate from `word`, so that '' is a word of its own.
  let inWord = false;
  let quote: '"' | "'" | undefined;
  let quoteAt = 0;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    const next = text[i + 1];
    if (quote === "'") {
      if (ch === "'") quote = undefined;
      else word += ch;
    } else if (quote === '"') {
      if (ch === '"') quote = undefined;
      else if (ch === '\\' && next !== undefined && '"\\$`'.includes(next)) word += text[++i];
      else word += ch;
    } else if (ch === "'" || ch === '"') {
      quote = ch;
      quoteAt = i;
      inWord = true;
    } else if (ch === '\\' && next !== undefined) {
      word += text[++i];
      inWord = true;
    } else if (/\s/.test(ch)) {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
    } else {
      word += ch;
      inWord = true;
    }
  }
  if (quote) throw new Error(`--adapter '${spec}': the ${quote} quote at column ${quoteAt + 1 + COMMAND_PREFIX.length} is never closed`);
  if (inWord) words.push(word);
  const [command, ...args] = words;
  if (command === undefined || command === '') throw new Error(`--adapter '${spec}': no command after '${COMMAND_PREFIX}'`);
  return { command, args };
}
