import { describe, it, expect } from 'vitest';
import { isCommandSpec, parseCommandSpec } from './command-line.ts';

describe('the cmd: adapter syntax', () => {
  it('splits words on whitespace and keeps quoted spaces', () => {
    expect(parseCommandSpec(`cmd:python3  "my adapter.py" --name 'a b' x\\ y`)).toEqual({ command: 'python3', args: ['my adapter.py', '--name', 'a b', 'x y'] });
  });

  it('keeps an empty quoted word as an argument', () => {
    expect(parseCommandSpec(`cmd:run '' end`)).toEqual({ command: 'run', args: ['', 'end'] });
  });

  it('does no shell expansion', () => {
    expect(parseCommandSpec('cmd:echo $HOME *.py')).toEqual({ command: 'echo', args: ['$HOME', '*.py'] });
  });

  it('refuses an unclosed quote, naming its column, and an empty command', () => {
    expect(() => parseCommandSpec(`cmd:python3 'x.py`)).toThrow('column 13');
    expect(() => parseCommandSpec('cmd:   ')).toThrow("no command after 'cmd:'");
  });

  it('tells cmd: specs from reference and module paths', () => {
    expect([isCommandSpec('cmd:x'), isCommandSpec('reference'), isCommandSpec('./adapter.ts')]).toEqual([true, false, false]);
  });
});
