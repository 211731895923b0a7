/**
 * The ACP agent in-process: the SDK's client app connected straight to the agent app, on the
 * reference's scripted crystal, so the prompt variants and refusals are checked without a process.
 */
import { client, methods, PROTOCOL_VERSION, type ClientContext, type PromptResponse, type SessionNotification } from '@agentclientprotocol/sdk';
import { describe, expect, it } from 'vitest';
import { gateCall, ScriptedCrystal, type ScriptStep } from '../crystal/scripted.ts';
import { secretRedactor } from '../production/redaction.ts';
import { createAcpAgent } from './agent.ts';
import { agentCantrip } from './agent-cantrip.ts';
import { parseAgentOptions } from './agent-options.ts';
import { parsePromptIntent } from './prompt-intent.ts';

/** Connects a client to an agent on `script` and runs `op`; returns the crystal to inspect its requests. */
async function withAgent(script: ScriptStep[], op: (context: ClientContext, updates: SessionNotification[]) => Promise<void>): Promise<ScriptedCrystal> {
  const crystal = new ScriptedCrystal(script);
  const app = createAcpAgent({
    cantrip: (onEvent) => agentCantrip({ systemPrompt: 'be brief', maxTurns: 4, root: undefined }, crystal, { onEvent, redact: secretRedactor([]) }),
    redact: secretRedactor([]),
  });
  const updates: SessionNotification[] = [];
  await client({ name: 'in-process test' })
    .onNotification(methods.client.session.update, ({ params }) => {
      updates.push(params);
    })
    .connectWith(app, async (context) => {
      await context.request(methods.agent.initialize, { protocolVersion: PROTOCOL_VERSION, clientCapabilities: {} });
      await op(context, updates);
    });
  return crystal;
}

/** A prompt request with any params, as a client that does not follow the schema might send it. */
const rawPrompt = (context: ClientContext, params: Record<string, unknown>) => context.request<PromptResponse>(methods.agent.session.prompt as string, params);

describe('the ACP agent, in-process', () => {
  it('PROD-6: a prompt under content, as a single block or as a bare string, is taken as the intent', async () => {
    const crystal = await withAgent([{ content: 'one' }, { content: 'two' }, { content: 'three' }], async (context) => {
      const { sessionId } = await context.request(methods.agent.session.new, { cwd: '/', mcpServers: [] });
      expect(await rawPrompt(context, { sessionId, content: [{ type: 'text', text: 'from content' }] })).toMatchObject({ stopReason: 'end_turn' });
      expect(await rawPrompt(context, { sessionId, prompt: { type: 'text', text: 'a single block' } })).toMatchObject({ stopReason: 'end_turn' });
      expect(await rawPrompt(context, { sessionId, prompt: 'a bare string' })).toMatchObject({ stopReason: 'end_turn' });
    });
    expect(crystal.requests.map((request) => request.messages.at(-1)!.content)).toEqual(['from content', 'a single block', 'a bare string']);
  });

  it('PROD-6: text blocks and resources become one intent, in order', async () => {
    const crystal = await withAgent([{ content: 'ok' }], async (context) => {
      const { sessionId } = await context.request(methods.agent.session.new, { cwd: '/', mcpServers: [] });
      await context.request(methods.agent.session.prompt, {
        sessionId,
        prompt: [
          { type: 'text', text: 'compare' },
          { type: 'resource_link', uri: 'file:///a.txt', name: 'a.txt' },
          { type: 'resource', resource: { uri: 'file:///b.txt', text: 'bee' } },
        ],
      });
    });
    expect(crystal.requests[0]!.messages.at(-1)!.content).toBe('compare\nfile:///a.txt\nfile:///b.txt\nbee');
  });

  it('PROD-6: an unknown session and a prompt without text are refused with JSON-RPC errors, and the session still works', async () => {
    await withAgent([{ content: 'fine' }], async (context) => {
      await expect(context.request(methods.agent.session.prompt, { sessionId: 'entity_nope', prompt: [{ type: 'text', text: 'hi' }] })).rejects.toMatchObject({ code: -32002 });
      const { sessionId } = await context.request(methods.agent.session.new, { cwd: '/', mcpServers: [] });
      await expect(rawPrompt(context, { sessionId, prompt: [] })).rejects.toMatchObject({ code: -32602 });
      await expect(rawPrompt(context, { sessionId, prompt: 'a', content: 'b' })).rejects.toMatchObject({ code: -32602 });
      expect(await rawPrompt(context, { sessionId, prompt: 'now properly' })).toMatchObject({ stopReason: 'end_turn' });
    });
  });

  it('PROD-6: a cast that ends with done streams the gate call, its result and the answer, and ends the turn', async () => {
    await withAgent([{ tool_calls: [gateCall('done', { answer: { total: 3 } }, 'call_done')] }], async (context, updates) => {
      const { sessionId } = await context.request(methods.agent.session.new, { cwd: '/', mcpServers: [] });
      expect(await context.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text: 'sum' }] })).toMatchObject({ stopReason: 'end_turn' });
      expect(updates.map((notification) => notification.sessionId)).toEqual(updates.map(() => sessionId));
      expect(updates.map((notification) => notification.update)).toEqual([
        expect.objectContaining({ sessionUpdate: 'tool_call', toolCallId: 'call_done', title: 'done', rawInput: { answer: { total: 3 } } }),
        expect.objectContaining({ sessionUpdate: 'tool_call_update', toolCallId: 'call_done', status: 'completed', rawOutput: { total: 3 } }),
        { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: '{"total":3}' } },
      ]);
    });
  });

  it('a crystal failure answers the prompt with an internal error naming the cause, and the session goes on', async () => {
    await withAgent([{ throws: new Error('provider down') }, { content: 'back' }], async (context) => {
      const { sessionId } = await context.request(methods.agent.session.new, { cwd: '/', mcpServers: [] });
      await expect(context.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text: 'first' }] })).rejects.toMatchObject({
        code: -32603,
        data: { cantrip: { status: 'truncated', truncationCause: 'crystal_error' } },
      });
      expect(await context.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text: 'again' }] })).toMatchObject({ stopReason: 'end_turn' });
    });
  });
});

describe('the prompt params and the command line', () => {
  it('a prompt refusal names the field at fault', () => {
    expect(() => parsePromptIntent({ prompt: 'x' })).toThrow(expect.objectContaining({ code: -32602, data: expect.objectContaining({ field: 'sessionId' }) }));
    expect(() => parsePromptIntent({ sessionId: 's', prompt: [{ type: 'text', text: 'a' }, { type: 'video' }] })).toThrow(
      expect.objectContaining({ data: expect.objectContaining({ field: 'prompt[1].type' }) }),
    );
  });

  it('options come from the command line first, then the environment; bad ones are refused naming the option', () => {
    expect(parseAgentOptions(['--crystal', 'local:http://h/v1#m', '--max-turns=3'], { CANTRIP_ACP_MAX_TURNS: '9' })).toMatchObject({ crystal: 'local:http://h/v1#m', maxTurns: 3 });
    expect(parseAgentOptions([], { CANTRIP_ACP_CRYSTAL: 'openai:gpt-4o-mini', CANTRIP_ACP_ROOT: '/srv' })).toMatchObject({ crystal: 'openai:gpt-4o-mini', root: '/srv', maxTurns: 10 });
    expect(parseAgentOptions(['--crystal', 'x:y', '--no-system'], {}).systemPrompt).toBeNull();
    expect(() => parseAgentOptions([], {})).toThrow(/--crystal/);
    expect(() => parseAgentOptions(['--crystal', 'x:y', '--max-turns', '0'], {})).toThrow(/--max-turns/);
    expect(() => parseAgentOptions(['--crystal', 'x:y', '--verbose'], {})).toThrow(/--verbose/);
  });
});
