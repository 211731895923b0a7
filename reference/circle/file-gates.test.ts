import { mkdtemp, mkdir, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gateCall } from '../crystal/scripted.ts';
import { scriptedCantrip } from '../testing/kit.ts';
import { doneGate } from './done.ts';
import { listDirGate, readGate } from './file-gates.ts';
import { secretRedactor } from '../production/redaction.ts';
import type { GateContext } from './gate.ts';
import { Loom } from '../loom/loom.ts';

let dir = '';
const context: GateContext = { entityId: 'e', toolCallId: 't', signal: new AbortController().signal, turnId: 'turn' };

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cantrip-files-'));
  await mkdir(join(dir, 'data', 'sub'), { recursive: true });
  await writeFile(join(dir, 'data', 'a.txt'), 'alpha beta');
  await writeFile(join(dir, 'data', 'sub', 'b.txt'), 'gamma');
  await writeFile(join(dir, 'secret.txt'), 'sk-live-123456');
  await symlink('../secret.txt', join(dir, 'data', 'escape'));
  await symlink('sub/b.txt', join(dir, 'data', 'inner-link'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('file gates confined to a root (§4.3, §4.4)', () => {
  it('CIRCLE-10: the root is bound at construction; relative and absolute-inside paths are read from it', async () => {
    const read = readGate({ root: join(dir, 'data') });
    await expect(read.execute({ path: 'a.txt' }, context)).resolves.toBe('alpha beta');
    await expect(read.execute({ path: join(dir, 'data', 'sub', 'b.txt') }, context)).resolves.toBe('gamma');
    await expect(read.execute({ path: 'inner-link' }, context)).resolves.toBe('gamma');
    expect(read.definition.parameters).not.toHaveProperty('properties.root');
  });

  it('CIRCLE-6: .. tricks, absolute paths outside and symlinks that leave the root are refused with path_outside_root', async () => {
    const read = readGate({ root: join(dir, 'data') });
    for (const path of ['../secret.txt', 'sub/../../secret.txt', join(dir, 'secret.txt'), '/etc/passwd', 'escape']) {
      await expect(read.execute({ path }, context), path).rejects.toMatchObject({ code: 'path_outside_root' });
    }
  });

  it('CIRCLE-5: a missing file is an error the entity sees, named NotFound', async () => {
    const { cantrip } = scriptedCantrip([{ tool_calls: [gateCall('read', { path: 'nope.txt' })] }, { tool_calls: [gateCall('done', { answer: 1 })] }], {
      gates: [doneGate(), readGate({ root: join(dir, 'data') })],
    });
    const result = await cantrip.cast('read it');
    expect(result.turns[0]!.gate_calls[0]).toMatchObject({ ok: false, error: { name: 'NotFound' } });
  });

  it('CIRCLE-10: list_dir lists sorted names under the root and refuses to climb out', async () => {
    const list = listDirGate({ root: join(dir, 'data') });
    await expect(list.execute({}, context)).resolves.toEqual(['a.txt', 'escape', 'inner-link', 'sub']);
    await expect(list.execute({ path: '..' }, context)).rejects.toMatchObject({ code: 'path_outside_root' });
  });

  it('redaction: configured secrets are scrubbed from what the entity observes and from loom exports', async () => {
    const redact = secretRedactor(['sk-live-123456']);
    const leaky = readGate({ root: dir });
    const { crystal, cantrip } = scriptedCantrip([{ tool_calls: [gateCall('read', { path: 'secret.txt' })] }, { tool_calls: [gateCall('done', { answer: 1 })] }], {
      gates: [doneGate(), leaky],
      loom: new Loom(undefined, { redact }),
      extra: { redact },
    });
    const result = await cantrip.cast('read the secret');
    expect(JSON.stringify(crystal.requests[1]!.messages)).not.toContain('sk-live-123456');
    expect(result.turns[0]!.observation).not.toContain('sk-live-123456');
    expect(JSON.stringify(crystal.requests[1]!.messages)).toContain('[REDACTED]');
    const exported = cantrip.loom.exportThread(result.turns.at(-1)!.id);
    expect(exported).not.toContain('sk-live-123456');
    // The record is stored scrubbed too (PROD-8 at 0.3.1; reference/drafts: the reference scrubs at every draft).
    expect(JSON.stringify(cantrip.loom.get(result.turns[0]!.id).gate_calls[0])).not.toContain('sk-live-123456');
  });
});
