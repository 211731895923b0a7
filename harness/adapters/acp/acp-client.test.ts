/**
 * The kit's ACP client on its own: the launch's placeholders, the shape check of session updates, the
 * answers a conformance client gives to an agent's requests, and the bounds on an agent that never
 * answers or leaves. Agents here are real processes (the small agent of fixtures/acp/, or a bare node).
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { validate } from '../../../schemas/loader.ts';
import { hangBound } from '../../testing/hang-bound.ts';
import { startCrystalServer, type CrystalServer } from '../../crystal-server/index.ts';
import { AcpAgentUnanswered, AcpClient, type AcpClientBounds } from './acp-client.ts';
import { fillLaunch } from './launch.ts';
import { sessionUpdateProblems } from './update-shape.ts';

const ROOT = resolve(import.meta.dirname, '../../..');
const SMALL_AGENT = resolve(ROOT, 'fixtures/acp/small-agent.ts');
/** Generous bounds for a tsx start on a busy machine; only a hang reaches them. */
const BOUNDS: AcpClientBounds = { startupMs: 30_000, requestMs: 20_000, stopMs: 2_000 };

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function started(client: AcpClient): AcpClient {
  cleanups.push(() => client.close());
  return client;
}

describe('fillLaunch', () => {
  it('writes the endpoint into every placeholder of the command and the environment, and nothing else', () => {
    const filled = fillLaunch(
      { command: ['agent', '--crystal', 'openai:{base_url}#{model}', '{literal}'], env: { KEY: '{api_key}', OTHER: 'x{model}y' }, cwd: '/srv', crystal: 'openai' },
      { base_url: 'http://127.0.0.1:9/v1', model: 'agent', api_key: 'k-1' },
      { PATH: '/bin' },
    );
    expect(filled.commandLine).toEqual({ command: 'agent', args: ['--crystal', 'openai:http://127.0.0.1:9/v1#agent', '{literal}'] });
    expect(filled.env).toEqual({ PATH: '/bin', KEY: 'k-1', OTHER: 'xagenty' });
    expect(filled.cwd).toBe('/srv');
  });

  it('refuses a command whose program is empty', () => {
    expect(() => fillLaunch({ command: [''], crystal: 'openai' }, { base_url: 'u', model: 'm', api_key: 'k' })).toThrow(/acp\.command/);
  });
});

describe('sessionUpdateProblems (the SDK schema of session/update)', () => {
  it('accepts an agent message chunk and a tool call of the protocol', () => {
    expect(sessionUpdateProblems({ sessionId: 's', update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'hi' } } })).toEqual([]);
    expect(sessionUpdateProblems({ sessionId: 's', update: { sessionUpdate: 'tool_call', toolCallId: 't1', title: 'read' } })).toEqual([]);
  });

  it('describes an update of no known kind, one without its content, and one without a session', () => {
    expect(sessionUpdateProblems({ sessionId: 's', update: { sessionUpdate: 'progress', text: 'hi' } })).not.toEqual([]);
    expect(sessionUpdateProblems({ sessionId: 's', update: { sessionUpdate: 'agent_message_chunk' } })).not.toEqual([]);
    expect(sessionUpdateProblems({ update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'hi' } } })).not.toEqual([]);
  });
});

describe('AcpClient', () => {
  it('offers no client services, refuses the permission an agent asks for and answers its file read with method-not-found', { timeout: hangBound(60_000) }, async () => {
    const server: CrystalServer = await startCrystalServer({ answer: async () => ({ ok: true, response: { content: 'All done.', usage: { prompt: 1, completion: 1, cached: 0 } } }), crystals: ['small'] });
    cleanups.push(() => server.close());
    const launch = fillLaunch(
      { command: [process.execPath, '--import', 'tsx', SMALL_AGENT, '--base-url', '{base_url}', '--model', '{model}', '--asks'], env: { SMALL_AGENT_KEY: '{api_key}' }, cwd: ROOT, crystal: 'openai' },
      { base_url: server.baseUrl('openai'), model: 'small', api_key: server.apiKey },
    );
    const client = started(new AcpClient(launch, BOUNDS));
    expect(await client.initialize()).toMatchObject({ ok: true, value: { protocolVersion: 1 } });
    const session = await client.newSession(ROOT);
    if (!session.ok) throw new Error(`session/new refused: ${session.error.message}`);
    const { answer, updates } = await client.prompt(session.value.sessionId, 'Hello');
    expect(answer).toEqual({ ok: true, value: { stopReason: 'end_turn' } });
    // What the agent reports it got: the rejecting option, and -32601 for the file it was not offered.
    expect(updates.map((u) => (u.params as { update: { content: { text: string } } }).update.content.text)).toEqual(['permission: selected no; read: error -32601', 'All done.']);
    expect(updates.every((u) => u.problems.length === 0)).toBe(true);
    expect(client.clientRequests.map((r) => [r.method, r.answered])).toEqual([
      ['session/request_permission', 'refused-permission'],
      ['fs/read_text_file', 'method-not-found'],
    ]);
    await client.close();
    expect(client.process.running).toBe(false);
  });

  it('gives up on an agent that never answers initialize once its start-up bound passes, and ends its process', { timeout: hangBound(30_000) }, async () => {
    const client = started(new AcpClient({ commandLine: { command: process.execPath, args: ['-e', 'setInterval(() => {}, 1000)'] }, env: process.env }, { ...BOUNDS, startupMs: 300 }));
    await expect(client.initialize()).rejects.toBeInstanceOf(AcpAgentUnanswered);
    await client.close();
    expect(client.process.running).toBe(false);
  });

  it('an agent that answers initialize with a line that is not JSON and an answer with an id nobody asked for: the give-up says what came instead', { timeout: hangBound(30_000) }, async () => {
    const script = 'process.stdout.write("garbage here\\n" + JSON.stringify({ jsonrpc: "2.0", id: 999, result: {} }) + "\\n"); setInterval(() => {}, 1000)';
    const client = started(new AcpClient({ commandLine: { command: process.execPath, args: ['-e', script] }, env: process.env }, { ...BOUNDS, startupMs: 1_500 }));
    const failure = await client.initialize().then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(AcpAgentUnanswered);
    expect((failure as AcpAgentUnanswered).instead).toEqual({ unreadable_lines: 1, stray_answer_ids: [999] });
  });

  it('gives up on an agent that exits before answering, keeping what it wrote on stderr', { timeout: hangBound(30_000) }, async () => {
    const client = started(new AcpClient({ commandLine: { command: process.execPath, args: ['-e', 'console.error("no crystal configured"); process.exit(3)'] }, env: process.env }, BOUNDS));
    const failure = await client.initialize().then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(AcpAgentUnanswered);
    expect(client.stderr()).toBe('no crystal configured');
  });
});

describe('describe().acp in the adapter protocol', () => {
  it('the example of docs/adapter-protocol.md is a valid description, and a launch without its crystal format is not', () => {
    const doc = readFileSync(resolve(ROOT, 'docs/adapter-protocol.md'), 'utf8');
    const start = doc.indexOf('{"jsonrpc":"2.0","id":1,"result":{"name":"my-cantrip"');
    const text = doc.slice(start, doc.indexOf('```', start)).replace(/\n\s*/g, '');
    const result = (JSON.parse(text) as { result: Record<string, unknown> }).result;
    const schema = 'https://cantrip.dev/schemas/protocol/describe.schema.json#/$defs/result';
    expect(validate(schema, result)).toEqual({ ok: true });
    const { crystal: _format, ...withoutFormat } = result.acp as Record<string, unknown>;
    expect(validate(schema, { ...result, acp: withoutFormat }).ok).toBe(false);
  });
});
