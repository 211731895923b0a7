/**
 * The reference as an ACP agent, driven over a child process's stdio by a real ACP client: the SDK's
 * own client side (PROD-6). The agent's crystal is an OpenAI-compatible server stubbed in this file
 * (the reference never imports the harness), so the test sees every request the agent's loop
 * assembled, and with it whether a follow-up prompt carries the session's first exchange (PROD-7).
 *
 * Bounds: every wait is bounded by {@link within} (a hang fails with what was awaited, never a
 * verdict on speed), and the child is killed and the stub closed after every test.
 */
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Readable, Writable, type Readable as NodeReadable, type Writable as NodeWritable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { client, methods, ndJsonStream, PROTOCOL_VERSION, type ActiveSession, type ClientContext, type SessionUpdate } from '@agentclientprotocol/sdk';
import { afterEach, describe, expect, it } from 'vitest';

const PACKAGE_ROOT = resolve(fileURLToPath(new URL('.', import.meta.url)), '../..');
const AGENT = 'reference/acp/stdio-agent.ts';
/**
 * Generous: a child that boots tsx on a busy 2-core machine can take seconds; only a hang reaches it.
 * Stretched by the load per core when the file starts, as the harness's own bounds are (the reference
 * does not import the harness).
 */
const BOUND_MS = Math.ceil(30_000 * Math.max(1, loadavg()[0]! / Math.max(1, cpus().length)));
const API_KEY = 'sk-acp-test-4f9a1c7e2b';

/** Fails with `what` if `work` has not settled within {@link BOUND_MS}. */
async function within<T>(work: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no ${what} within ${BOUND_MS} ms`)), BOUND_MS);
  });
  try {
    return await Promise.race([work, bound]);
  } finally {
    clearTimeout(timer);
  }
}

/** One scripted Chat Completions reply; `hang` leaves the request unanswered (until the client gives up). */
type StubReply = { content?: string; toolCalls?: { id: string; name: string; args: Record<string, unknown> }[] } | 'hang';

/** A minimal OpenAI-compatible endpoint: answers each POST with the next reply and keeps what it was sent. */
class CrystalStub {
  readonly requests: { authorization: string | undefined; body: { messages: { role: string; content: unknown; tool_calls?: unknown[] }[] } }[] = [];
  private readonly waiting: (() => void)[] = [];
  private readonly server: Server;
  private next = 0;

  constructor(private readonly replies: StubReply[]) {
    this.server = createServer((request, response) => void this.answer(request, response));
  }

  async start(): Promise<string> {
    await new Promise<void>((done) => this.server.listen(0, '127.0.0.1', done));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1`;
  }

  /** Resolves once `count` requests have arrived. */
  received(count: number): Promise<void> {
    if (this.requests.length >= count) return Promise.resolve();
    return new Promise((done) => this.waiting.push(() => this.requests.length >= count && done()));
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((done) => this.server.close(() => done()));
  }

  private async answer(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    this.requests.push({ authorization: request.headers.authorization, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) });
    for (const wake of this.waiting) wake();
    const reply = this.replies[this.next++];
    if (reply === 'hang') return;
    if (reply === undefined) {
      response.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'stub script exhausted' } }));
      return;
    }
    const toolCalls = (reply.toolCalls ?? []).map((call) => ({ id: call.id, type: 'function', function: { name: call.name, arguments: JSON.stringify(call.args) } }));
    const message = { role: 'assistant', content: reply.content ?? null, ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}) };
    const body = {
      id: `chatcmpl-${this.next}`,
      object: 'chat.completion',
      model: 'stub-model',
      choices: [{ index: 0, message, finish_reason: toolCalls.length > 0 ? 'tool_calls' : 'stop' }],
      usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
    };
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  }
}

type AgentProcess = ChildProcessByStdio<NodeWritable, NodeReadable, NodeReadable>;

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** Starts the stub and the agent process on it; both are torn down after the test. */
async function startAgent(replies: StubReply[], extraArgs: string[] = []): Promise<{ stub: CrystalStub; agent: AgentProcess; root: string; stderr: () => string }> {
  const stub = new CrystalStub(replies);
  const baseUrl = await stub.start();
  cleanups.push(() => stub.stop());
  const root = mkdtempSync(join(tmpdir(), 'cantrip-acp-'));
  cleanups.push(() => rmSync(root, { recursive: true, force: true }));
  const agent = spawn(process.execPath, ['--import', 'tsx', AGENT, '--crystal', `openai:${baseUrl}#stub-model`, '--root', root, ...extraArgs], {
    cwd: PACKAGE_ROOT,
    env: { ...process.env, OPENAI_API_KEY: API_KEY },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  agent.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  cleanups.push(() => {
    if (agent.exitCode === null && agent.signalCode === null) agent.kill('SIGKILL');
  });
  return { stub, agent, root, stderr: () => stderr };
}

/** The agent's exit code once it has exited and its output pipes are closed. */
function exited(agent: AgentProcess): Promise<number | null> {
  if (agent.exitCode !== null && agent.stdout.closed && agent.stderr.closed) return Promise.resolve(agent.exitCode);
  return new Promise((done) => agent.once('close', (code) => done(code)));
}

/** Runs `op` as the SDK's ACP client connected to the agent's stdio. */
function asClient<T>(agent: AgentProcess, op: (context: ClientContext) => Promise<T>): Promise<T> {
  const stream = ndJsonStream(Writable.toWeb(agent.stdin) as WritableStream<Uint8Array>, Readable.toWeb(agent.stdout) as ReadableStream<Uint8Array>);
  return client({ name: 'cantrip-acp-test' }).connectWith(stream, op);
}

/** Sends one prompt and collects the session's updates until its stop. */
async function promptTurn(session: ActiveSession, text: string): Promise<{ updates: SessionUpdate[]; stopReason: string; meta: unknown }> {
  const answered = session.prompt(text);
  const updates: SessionUpdate[] = [];
  for (;;) {
    const message = await within(session.nextUpdate(), `update or stop for the prompt '${text}'`);
    if (message.kind === 'stop') {
      const response = await within(answered, `response to the prompt '${text}'`);
      return { updates, stopReason: message.stopReason, meta: response._meta };
    }
    updates.push(message.update);
  }
}

const texts = (updates: SessionUpdate[]): string[] =>
  updates.flatMap((update) => (update.sessionUpdate === 'agent_message_chunk' && update.content.type === 'text' ? [update.content.text] : []));

describe('the reference as an ACP agent over stdio (PROD-6, PROD-7)', () => {
  it('PROD-6, PROD-7: initialize, a new session, two prompts; the second prompt runs with the first exchange in its context', { timeout: 4 * BOUND_MS }, async () => {
    const { stub, agent, root } = await startAgent([
      { content: 'Reading the note.', toolCalls: [{ id: 'call_read_1', name: 'read', args: { path: 'note.txt' } }] },
      { toolCalls: [{ id: 'call_done_1', name: 'done', args: { answer: 'The word is heliotrope.' } }] },
      { content: 'You asked me for the word in note.txt.' },
    ]);
    writeFileSync(join(root, 'note.txt'), 'the word is heliotrope');

    await asClient(agent, async (context) => {
      const initialized = await within(context.request(methods.agent.initialize, { protocolVersion: PROTOCOL_VERSION, clientCapabilities: {} }), 'initialize response');
      expect(initialized.protocolVersion).toBe(PROTOCOL_VERSION);
      expect(initialized.agentCapabilities?.promptCapabilities).toMatchObject({ embeddedContext: true });
      expect(initialized.agentInfo?.name).toBe('cantrip-reference');

      const session = await within(context.buildSession(root).start(), 'session/new response');
      expect(session.sessionId).toMatch(/^entity_/);
      try {
        const first = await promptTurn(session, 'What is the word in note.txt?');
        expect(first.stopReason).toBe('end_turn');
        expect(first.meta).toMatchObject({ cantrip: { entityId: session.sessionId, status: 'terminated' } });
        expect(texts(first.updates)).toContain('Reading the note.');
        expect(texts(first.updates)).toContain('The word is heliotrope.');
        const call = first.updates.findIndex((update) => update.sessionUpdate === 'tool_call' && update.toolCallId === 'call_read_1');
        expect(first.updates[call]).toMatchObject({ title: 'read', status: 'in_progress', rawInput: { path: 'note.txt' } });
        const result = first.updates.findIndex((update) => update.sessionUpdate === 'tool_call_update' && update.toolCallId === 'call_read_1');
        expect(result).toBeGreaterThan(call);
        expect(first.updates[result]).toMatchObject({
          status: 'completed',
          rawOutput: 'the word is heliotrope',
          content: [{ type: 'content', content: { type: 'text', text: 'the word is heliotrope' } }],
        });

        const second = await promptTurn(session, 'What did I ask you before?');
        expect(second.stopReason).toBe('end_turn');
        expect(texts(second.updates)).toEqual(['You asked me for the word in note.txt.']);
      } finally {
        session.dispose();
      }
    });

    // What the crystal was shown for the follow-up: the first intent, the gate's result and the answer, then the new intent.
    expect(stub.requests).toHaveLength(3);
    const followUp = stub.requests[2]!.body.messages;
    const users = followUp.filter((message) => message.role === 'user').map((message) => message.content);
    expect(users).toEqual(['What is the word in note.txt?', 'What did I ask you before?']);
    // How a result is rendered into a tool message is the circle's choice (here JSON text): look for the text in it.
    expect(followUp.some((message) => message.role === 'tool' && String(message.content).includes('the word is heliotrope'))).toBe(true);
    expect(JSON.stringify(followUp)).toContain('The word is heliotrope.');
    expect(followUp.at(-1)).toMatchObject({ role: 'user', content: 'What did I ask you before?' });
  });

  it('PROD-7: two sessions are two entities: a prompt in one does not see the other', { timeout: 4 * BOUND_MS }, async () => {
    const { stub, agent, root } = await startAgent([{ content: 'first session reply' }, { content: 'second session reply' }]);
    await asClient(agent, async (context) => {
      await within(context.request(methods.agent.initialize, { protocolVersion: PROTOCOL_VERSION, clientCapabilities: {} }), 'initialize response');
      const one = await within(context.buildSession(root).start(), 'first session/new');
      const two = await within(context.buildSession(root).start(), 'second session/new');
      expect(two.sessionId).not.toBe(one.sessionId);
      expect((await promptTurn(one, 'only in session one')).stopReason).toBe('end_turn');
      expect((await promptTurn(two, 'only in session two')).stopReason).toBe('end_turn');
      one.dispose();
      two.dispose();
    });
    const users = stub.requests[1]!.body.messages.filter((message) => message.role === 'user').map((message) => message.content);
    expect(users).toEqual(['only in session two']);
  });

  it('PROD-6: the stop reason follows the cast: the turn ward is max_turn_requests; a cancelled prompt is cancelled and the session goes on', { timeout: 4 * BOUND_MS }, async () => {
    const { stub, agent, root } = await startAgent(
      [
        { toolCalls: [{ id: 'call_list_1', name: 'list_dir', args: { path: '' } }] },
        'hang',
        { content: 'after the cancel' },
      ],
      ['--max-turns', '1'],
    );
    await asClient(agent, async (context) => {
      await within(context.request(methods.agent.initialize, { protocolVersion: PROTOCOL_VERSION, clientCapabilities: {} }), 'initialize response');
      const session = await within(context.buildSession(root).start(), 'session/new response');
      try {
        const capped = await promptTurn(session, 'list the root forever');
        expect(capped.stopReason).toBe('max_turn_requests');
        expect(capped.meta).toMatchObject({ cantrip: { status: 'truncated', truncationCause: 'max_turns' } });

        const cancelled = session.prompt('wait for a crystal that never answers');
        await within(stub.received(2), 'the crystal query of the prompt to cancel');
        await context.notify(methods.agent.session.cancel, { sessionId: session.sessionId });
        expect((await within(cancelled, 'response to the cancelled prompt')).stopReason).toBe('cancelled');
        // Drain the cancelled prompt's stop so the next prompt's updates start clean.
        while ((await within(session.nextUpdate(), 'stop of the cancelled prompt')).kind !== 'stop');

        const after = await promptTurn(session, 'are you still there?');
        expect(after.stopReason).toBe('end_turn');
        expect(texts(after.updates)).toEqual(['after the cancel']);
      } finally {
        session.dispose();
      }
    });
    const users = stub.requests[2]!.body.messages.filter((message) => message.role === 'user').map((message) => message.content);
    expect(users).toEqual(['list the root forever', 'wait for a crystal that never answers', 'are you still there?']);
  });

  it('PROD-8, PROD-9: the API key reaches the provider but never a session update, a response or the agent\'s stderr, even with --debug tracing every message there', { timeout: 4 * BOUND_MS }, async () => {
    const { stub, agent, root, stderr } = await startAgent([{ content: `Your key is ${API_KEY}, and here it is again: ${API_KEY}.` }], ['--debug']);
    const seen: unknown[] = [];
    await asClient(agent, async (context) => {
      seen.push(await within(context.request(methods.agent.initialize, { protocolVersion: PROTOCOL_VERSION, clientCapabilities: {} }), 'initialize response'));
      const session = await within(context.buildSession(root).start(), 'session/new response');
      const turn = await promptTurn(session, 'what is my key?');
      session.dispose();
      seen.push(turn);
      expect(texts(turn.updates).join('')).toContain('Your key is');
    });
    // PROD-9: the agent leaves when its stdin ends; by then everything it wrote to stderr has arrived.
    agent.stdin.end();
    expect(await within(exited(agent), 'agent exit after the client closed its stdin')).toBe(0);
    expect(stub.requests[0]!.authorization).toBe(`Bearer ${API_KEY}`);
    expect(JSON.stringify(seen)).not.toContain(API_KEY);
    expect(stderr()).toContain('"method":"session/prompt"');
    expect(stderr()).toContain('"sessionUpdate":"agent_message_chunk"');
    expect(stderr()).not.toContain(API_KEY);
  });
});
