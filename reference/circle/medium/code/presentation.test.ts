import { describe, it, expect } from 'vitest';
import type { ToolDefinition } from '../../../../schemas/index.ts';
import { presentCodeMedium, gateSignature } from './presentation.ts';
import { renderEvaluation } from './observation.ts';

const read: ToolDefinition = {
  name: 'read',
  description: 'Read a file under the circle root.',
  parameters: { type: 'object', properties: { path: { type: 'string' }, encoding: { type: 'string' } }, required: ['path'] },
};
const done: ToolDefinition = { name: 'done', description: 'Finish.', parameters: { type: 'object', properties: { answer: {} }, required: ['answer'] } };

describe('code medium presentation', () => {
  it('CIRCLE-11: one js tool with a required string code argument', () => {
    const { tool } = presentCodeMedium([read, done]);
    expect(tool.name).toBe('js');
    expect(tool.parameters).toMatchObject({ type: 'object', required: ['code'], properties: { code: { type: 'string' } } });
  });

  it('CIRCLE-11: the HOST FUNCTIONS section lists every gate as a signature with its description, done and persistence', () => {
    const { tool, prompt } = presentCodeMedium([read, done]);
    expect(prompt).toContain('### HOST FUNCTIONS');
    expect(prompt).toContain('`read(path: string, encoding?: string)` — Read a file under the circle root.');
    expect(prompt).toContain('`done(answer: any)`');
    expect(prompt).toMatch(/persist/);
    expect(tool.description).toBe(prompt);
    expect(prompt.match(/`done\(/g)).toHaveLength(1);
  });

  it('CIRCLE-11: a gate without parameters has an empty signature', () => {
    expect(gateSignature({ name: 'now', description: '', parameters: { type: 'object' } })).toBe('now()');
  });
});

describe('code medium observation', () => {
  it('CIRCLE-7 / CIRCLE-5: gate results in order, failures included, then output and the value', () => {
    const text = renderEvaluation({
      gate_calls: [
        { tool_call_id: 't.1', gate: 'read', arguments: ['a.txt'], ok: true, result: 'hello' },
        { tool_call_id: 't.2', gate: 'read', arguments: ['b.txt'], ok: false, error: { name: 'Error', message: 'missing' } },
      ],
      output: 'line',
      value: { n: 2 },
    });
    expect(text).toBe('[gate calls]\n1. read("a.txt") -> "hello"\n2. read("b.txt") failed: Error: missing\n[output]\nline\n[value] {"n":2}');
  });

  it('LOOP-3: a done evaluation shows the answer; an error and a reset are shown', () => {
    expect(renderEvaluation({ gate_calls: [], output: '', done: { answer: 7 } })).toContain('[done] 7');
    const failed = renderEvaluation({ gate_calls: [], output: '', error: { name: 'TimeoutError', message: 'late' }, reset: true });
    expect(failed).toContain('[error] TimeoutError: late');
    expect(failed).toContain('[sandbox reset]');
  });
});
