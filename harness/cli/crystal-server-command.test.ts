/**
 * `cantrip-conformance crystal-server --case <id>` (issue 13): the process prints the base URL, the
 * model names and the key; a request made by hand gets the case's scripted reply in the chosen format
 * and is printed as an exchange (without the key); Ctrl-C closes the server and its port; bad usage
 * exits 2.
 */
import { describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { connect } from 'node:net';
import { join } from 'node:path';
import { PACKAGE_ROOT } from './main.ts';
import { hangBound } from '../testing/hang-bound.ts';

const BIN = join(PACKAGE_ROOT, 'bin', 'cantrip-conformance.mjs');
/** Start-up (tsx loading the sources) is slow on a loaded machine; the bound only keeps a broken start from hanging. */
const START_MS = hangBound(90_000);

function start(args: string[]): { child: ChildProcess; out: () => string; err: () => string; waitFor: (pattern: RegExp) => Promise<RegExpMatchArray>; exited: Promise<number | null> } {
  const child = spawn(process.execPath, [BIN, 'crystal-server', ...args], { cwd: PACKAGE_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  const listeners = new Set<() => void>();
  child.stdout!.on('data', (d: Buffer) => {
    out += d.toString('utf8');
    for (const l of listeners) l();
  });
  child.stderr!.on('data', (d: Buffer) => (err += d.toString('utf8')));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const waitFor = (pattern: RegExp): Promise<RegExpMatchArray> =>
    new Promise((resolve, reject) => {
      const check = (): void => {
        const m = pattern.exec(out);
        if (m) {
          listeners.delete(check);
          clearTimeout(timer);
          resolve(m);
        }
      };
      const timer = setTimeout(() => {
        listeners.delete(check);
        reject(new Error(`no ${pattern} within ${START_MS} ms; stdout:\n${out}\nstderr:\n${err}`));
      }, START_MS);
      listeners.add(check);
      check();
    });
  return { child, out: () => out, err: () => err, waitFor, exited };
}

function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ port, host: '127.0.0.1' });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

describe('cantrip-conformance crystal-server', () => {
  it('serves the case in the chosen format, prints each exchange without the key, and Ctrl-C closes the port', async () => {
    const run = start(['--case', 'done-ends-cast-with-answer', '--transport', 'openai']);
    try {
      await run.waitFor(/Ctrl-C to stop\./);
      const base = /base URL\s+(\S+)/.exec(run.out())![1]!;
      const key = /API key\s+(\S+)/.exec(run.out())![1]!;
      expect(run.out()).toMatch(/models\s+parent/);
      expect(base).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
      const port = Number(new URL(base).port);

      const tools = ['done', 'echo'].map((name) => ({ type: 'function', function: { name, parameters: { type: 'object', properties: {} } } }));
      const res = await fetch(`${base}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
        body: JSON.stringify({ model: 'parent', messages: [{ role: 'user', content: 'Find the answer' }], tools, tool_choice: 'auto' }),
      });
      expect(res.status).toBe(200);
      const body = (await res.json()) as { choices: Array<{ message: { tool_calls: Array<{ id: string; function: { name: string; arguments: string } }> } }> };
      expect(body.choices[0]!.message.tool_calls.map((c) => [c.function.name, JSON.parse(c.function.arguments)])).toEqual([['echo', { text: 'before' }]]);
      // The exchange is printed: the request's last message, and the reply.
      const line = (await run.waitFor(/#0 .*openai parent.*→ 200.*/))[0];
      expect(line).toContain('"Find the answer"');
      expect(line).toContain('echo({"text":"before"})');
      // A wrong key is refused, and printed as such.
      const wrong = await fetch(`${base}/chat/completions`, { method: 'POST', headers: { authorization: 'Bearer nope' }, body: '{}' });
      expect(wrong.status).toBe(401);
      await run.waitFor(/#1 .*\(key wrong\).*→ 401/);
      // The key appears once, in the header lines, never in an exchange line.
      expect(run.out().split(key).length - 1).toBe(1);

      expect(await canConnect(port)).toBe(true);
      run.child.kill('SIGINT');
      expect(await run.exited).toBe(0);
      expect(run.out()).toMatch(/closed after 2 exchanges/);
      expect(await canConnect(port)).toBe(false);
    } finally {
      if (run.child.exitCode === null) run.child.kill('SIGKILL');
    }
  }, hangBound(180_000));

  it('gemini: prints the v1beta base URL and serves generateContent', async () => {
    const run = start(['--case', 'done-ends-cast-with-answer', '--transport', 'gemini']);
    try {
      await run.waitFor(/Ctrl-C to stop\./);
      const base = /base URL\s+(\S+)/.exec(run.out())![1]!;
      const key = /API key\s+(\S+)/.exec(run.out())![1]!;
      expect(base).toMatch(/\/v1beta$/);
      const res = await fetch(`${base}/models/parent:generateContent`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-goog-api-key': key },
        body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'Find the answer' }] }], tools: [{ functionDeclarations: [{ name: 'done' }, { name: 'echo' }] }] }),
      });
      expect(res.status).toBe(200);
      const body = (await res.json()) as { candidates: Array<{ content: { parts: unknown[] } }> };
      expect(body.candidates[0]!.content.parts).toEqual([{ functionCall: { id: 'tc1', name: 'echo', args: { text: 'before' } } }]);
      run.child.kill('SIGINT');
      expect(await run.exited).toBe(0);
    } finally {
      if (run.child.exitCode === null) run.child.kill('SIGKILL');
    }
  }, hangBound(180_000));

  it('bad usage exits 2 with the usage line: no --case, an unknown case, the callback transport', async () => {
    for (const args of [[], ['--case', 'no-such-case'], ['--case', 'done-ends-cast-with-answer', '--transport', 'callback']]) {
      const run = start(args);
      expect(await run.exited, args.join(' ')).toBe(2);
      expect(run.err().length).toBeGreaterThan(0);
    }
  }, hangBound(180_000));
});
