/**
 * The ACP verbs in a case file (feature acp, PROD-6, PROD-7): what loads, what the loader derives, and
 * what it refuses, each at the file:line:col of the offending key.
 */
import { describe, expect, it } from 'vitest';
import { loadCaseText } from './load.ts';
import { problemsOf } from '../testing/case-file-refusals.ts';

/** A case file of one ACP case whose actions and expectations are the given YAML lines. */
function caseText(act: string, expect = "      - { path: acp_prompts.first.stop_reason, equals: end_turn }"): string {
  return `format_version: 1
spec_version: 0.1.0-draft
cases:
  - id: acp-case
    rules: [PROD-1]
    level: MUST
    description: an ACP case
    setup:
      crystal: agent
      call: {}
      circle: { medium: conversation, gates: [done], wards: { max_turns: 2 } }
    crystals:
      agent:
        script:
          - tool_calls: [{ gate: done, args: { answer: ok } }]
    act:
${act}
    expect:
${expect}
`;
}

const SESSION_AND_PROMPT = `      - acp_session: { as: session }
      - acp_prompt: { session: session, text: Hello, as: first }`;

describe('the ACP verbs of a case file', () => {
  it('load, and a case that uses them requires the acp feature without saying so', () => {
    const [c] = loadCaseText(caseText(SESSION_AND_PROMPT)).cases;
    expect(c?.requires).toEqual(['acp']);
    expect(c?.act).toEqual([{ acp_session: { as: 'session' } }, { acp_prompt: { session: 'session', text: 'Hello', as: 'first' } }]);
  });

  it('refuse a prompt to a session no earlier acp_session opened, at its line and column', () => {
    const problems = problemsOf(caseText(`      - acp_session: { as: session }
      - acp_prompt: { session: sesion, text: Hello, as: first }`), 'acp.yaml');
    expect(problems).toEqual([expect.objectContaining({ file: 'acp.yaml', line: 18, column: 32, pointer: '/cases/0/act/1/acp_prompt/session' })]);
  });

  it('refuse a prompt that names an earlier action that is not a session', () => {
    const problems = problemsOf(caseText(`      - cast: { intent: Hi, as: earlier }
      - acp_session: { as: session }
      - acp_prompt: { session: earlier, text: Hello, as: first }`), 'acp.yaml');
    expect(problems.map((p) => p.pointer)).toEqual(['/cases/0/act/2/acp_prompt/session']);
  });

  it('refuse a prompt without text, and a session whose cwd is not absolute', () => {
    expect(problemsOf(caseText(`      - acp_session: { as: session }
      - acp_prompt: { session: session, as: first }`), 'acp.yaml').map((p) => [p.line, p.pointer])).toEqual([[18, '/cases/0/act/1/acp_prompt/text']]);
    expect(problemsOf(caseText(`      - acp_session: { as: session, cwd: work }
      - acp_prompt: { session: session, text: Hello, as: first }`), 'acp.yaml').map((p) => p.pointer)).toEqual(['/cases/0/act/0/acp_session/cwd']);
  });

  it('refuse a path into the ACP record that names no action of the case', () => {
    const problems = problemsOf(caseText(SESSION_AND_PROMPT, '      - { path: acp_prompts.second.stop_reason, equals: end_turn }'), 'acp.yaml');
    expect(problems.map((p) => [p.line, p.pointer])).toEqual([[20, '/cases/0/expect/0/path']]);
  });
});
