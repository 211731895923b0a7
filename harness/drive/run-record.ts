/**
 * The run record: everything a case's expectations can address (docs/INTERPRETING.md, "Paths"), plus
 * what the invariants need to know about each action.
 */
import type { CastOutcome, CrystalReply, Description, LogOutput, LoomExport, StreamEvent } from '../../schemas/adapter.ts';
import { DEFAULT_FOLD_MARKER } from '../../schemas/adapter.ts';
import type { CodedError, CrystalRequest, ForkStrategy, Turn } from '../../schemas/records.ts';
import type { Verb } from '../case-file/index.ts';
import type { GateCallLog } from './test-gates.ts';
import type { WireProblem } from '../crystal-server/index.ts';
import type { CaseDirectoryFile } from './case-files.ts';
import type { BackpressureRecord } from './event-consumer.ts';
import type { CredentialRecord } from './gate-credential.ts';
import { emptyAcpRecord, type AcpPromptRecord, type AcpRecord, type AcpSessionRecord } from './acp-record.ts';

export interface RunRecord {
  description: Description;
  /** What the kit learned of the implementation's open choices, with the spec's examples as defaults. */
  conventions: { fold_marker: string };
  cantrips: Record<string, string>;
  outcomes: Record<string, CastOutcome>;
  errors: Record<string, CodedError>;
  entities: Record<string, string>;
  forks: Record<string, { entity: string; strategy: ForkStrategy }>;
  mutations: Record<string, Record<string, never>>;
  threads: Record<string, Turn[]>;
  snapshots: Record<string, Turn[]>;
  /** Feature loom-export (PROD-8): each `export_loom` action's default export of the loom, as the implementation wrote it. */
  exports: Record<string, LoomExport>;
  /** Feature log-output (PROD-8): each `logs` action's log text. */
  logs: Record<string, LogOutput>;
  /**
   * How each cast, send or fork that failed reported its failure: a refused operation's error, or the
   * `error` its outcome carried. The spec leaves the form open (docs/OPEN-CHOICES.md), so cases look here.
   */
  failures: Record<string, CodedError>;
  /** Each crystal's requests that were turns of a cast, in arrival order. */
  requests: Record<string, CrystalRequest[]>;
  replies: Record<string, CrystalReply[]>;
  /** Requests made after their cast's outcome was decided (a summary query, LOOP-4), answered without the script. */
  after_outcome: Record<string, CrystalRequest[]>;
  /** Over a wire transport: what the crystal server found wrong in the requests, in the provider's own format. */
  wire_problems: Array<WireProblem & { seq: number; crystal: string | null }>;
  /**
   * Over a wire transport, per crystal: before each request after the first, the milliseconds from the
   * moment the server finished answering the request before to the arrival of this one, as the server
   * measured them. How long an implementation that sleeps for real waited between retries (PROD-2).
   */
  wire_waits: Record<string, number[]>;
  /** The most queries each crystal had in flight at once. */
  concurrency: Record<string, number>;
  gates: Record<string, { calls: GateCallLog[] }>;
  gate_log: GateCallLog[];
  sleeps: number[];
  events: StreamEvent[];
  /** Feature bounded-events: how far the implementation ran ahead of the harness as event consumer. */
  backpressure: BackpressureRecord;
  /** The case directory's files after the actions (when the case gives `setup.files`), sorted by path. */
  files: CaseDirectoryFile[];
  loom: { turns: Turn[] };
  /** Feature acp: the implementation driven as an ACP agent (drive/acp-record.ts). */
  acp: AcpRecord;
  acp_sessions: Record<string, AcpSessionRecord>;
  acp_prompts: Record<string, AcpPromptRecord>;
  /** Feature gate-credentials (PROD-8): when a gate was built with a credential, which calls carried it and where it showed. */
  credential?: CredentialRecord;
}

/** What one action did, as the runner saw it. */
export interface ActionTrace {
  index: number;
  verb: Verb;
  name: string;
  /** The entity the action ran (cast, send, fork, invoke). */
  entity?: string;
  intent?: string | null;
  /** Turns the loom gained during the action; undefined when the loom could not be read. */
  appended?: Turn[];
  /** Why the action did not run: it needed a construct the case saw refused (drive/after-refusal.ts). */
  skipped?: string;
  /** When the action ended, by the kit's clock (performance.now(), ms). */
  ended_ms?: number;
}

export function emptyRecord(description: Description): RunRecord {
  return {
    description,
    conventions: { fold_marker: description.fold_marker ?? DEFAULT_FOLD_MARKER },
    cantrips: {},
    outcomes: {},
    errors: {},
    entities: {},
    forks: {},
    mutations: {},
    threads: {},
    snapshots: {},
    exports: {},
    logs: {},
    failures: {},
    requests: {},
    replies: {},
    after_outcome: {},
    wire_problems: [],
    wire_waits: {},
    concurrency: {},
    gates: {},
    gate_log: [],
    sleeps: [],
    events: [],
    backpressure: { bound: null, delivered: 0, peak_ahead: 0, overrun: null },
    files: [],
    loom: { turns: [] },
    acp: emptyAcpRecord(),
    acp_sessions: {},
    acp_prompts: {},
  };
}
