/**
 * A request the kit's own crystal server refused for its size (HTTP 413) is the kit's limit, not the
 * implementation's fault (issue 32, item 6): the drive errors the case (not judged) instead of letting
 * "no crystal was queried" fail it under the case's rules.
 */
import { describe, it, expect, afterAll } from 'vitest';
import { startCrystalServer, type CrystalServer } from '../crystal-server/index.ts';
import { refusedByKit } from './wire.ts';

const servers: CrystalServer[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

async function post(server: CrystalServer, bytes: number): Promise<number> {
  const body = JSON.stringify({ model: 'main', messages: [{ role: 'user', content: 'x'.repeat(bytes) }] });
  const response = await fetch(`${server.baseUrl('openai')}/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${server.apiKey}` }, body });
  await response.text();
  return response.status;
}

describe('a request larger than the kit reads', () => {
  it('is marked as refused by the kit, and the drive names it as the reason the case is not judged', async () => {
    const server = await startCrystalServer({ answer: async () => ({ ok: true, response: { content: 'fine', usage: { prompt: 1, completion: 1, cached: 0 } } }), crystals: ['main'], maxBodyBytes: 2_000 });
    servers.push(server);
    expect(await post(server, 10)).toBe(200);
    expect(refusedByKit(server.exchanges)).toBeUndefined();
    expect(await post(server, 10_000)).toBe(413);
    expect(server.exchanges.map((e) => e.refused_by_kit)).toEqual([undefined, 'body-too-large']);
    expect(refusedByKit(server.exchanges)).toContain(`seq ${server.exchanges[1]!.seq})`);
  });
});
