/**
 * Case files for the harness's own tests against fixtures/adapters/broken-peer.mjs: one case per intent,
 * whose cast intent tells the peer which fault to show (see the peer's header for the list).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** What the harness's side of a peer case can vary. */
export interface PeerCaseOptions {
  /** How long the harness's crystal takes to answer the peer's query. */
  crystalDelayMs?: number;
}

/** A case whose cast intent tells broken-peer.mjs which fault to show; its id is `<intent>-<index>`. */
export function peerCase(intent: string, index: number, options: PeerCaseOptions = {}): string {
  const delay = options.crystalDelayMs === undefined ? '' : `, delay_ms: ${options.crystalDelayMs}`;
  return `  - id: ${intent}-${index}
    rules: [PROD-1]
    level: MUST
    requires: []
    description: broken-peer does '${intent}' during a cast
    setup:
      crystal: main
      call: {}
      circle: { medium: conversation, gates: [done], wards: { max_turns: 2 } }
    crystals:
      main: { script: [{ content: "fine"${delay} }] }
    act:
      - cast: { intent: "${intent}", as: first }
    expect:
      - { path: outcomes.first.status, equals: terminated }
`;
}

/** Writes a case file with one case per intent, in order, to a fresh temporary directory; returns its path. */
export function peerCaseFile(intents: string[], options: PeerCaseOptions = {}): string {
  const dir = mkdtempSync(join(tmpdir(), 'cantrip-peer-'));
  const file = join(dir, 'tests.yaml');
  writeFileSync(file, `format_version: 1\nspec_version: 0.1.0-draft\ncases:\n${intents.map((intent, i) => peerCase(intent, i, options)).join('')}`);
  return file;
}
