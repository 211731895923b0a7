/**
 * The ACP verbs of a case (feature `acp`, PROD-6, PROD-7): `acp_session` opens a session of the
 * implementation's ACP agent, `acp_prompt` sends one prompt in a session opened earlier.
 *
 * At the case's first ACP action the kit serves the case's crystal (`setup.crystal`) over HTTP in the
 * wire format the implementation declares (describe().acp.crystal), starts the agent with that endpoint
 * written into its command, and sends `initialize`. The agent's requests are answered from the case's
 * script by a mock crystal of their own: they are the agent's cantrip's, not the adapter's `main`, so
 * the ambient checks of the adapter's requests do not judge them; each prompt keeps the requests made
 * while it ran (`acp_prompts.<as>.requests`). When the actions are over, {@link endAcp} stops the agent
 * and closes the server; the runner's closers do the same for a case cut off by its time limit.
 */
import { tmpdir } from 'node:os';
import type { AcpAgentLaunch } from '../../schemas/adapter.ts';
import { AcpClient, fillLaunch, MAX_CLIENT_REQUESTS_KEPT, MAX_INBOUND_KEPT, MAX_UPDATES_KEPT, type AcpClientBounds, type FilledLaunch, type PromptForm, type ReceivedUpdate } from '../adapters/index.ts';
import { startCrystalServer, type CrystalServer } from '../crystal-server/index.ts';
import { jsonCopy } from '../values/index.ts';
import { realWait } from './case-waits.ts';
import { Stop, type DriveState } from './drive-state.ts';
import { noteServerLimits } from './wire.ts';
import { EntityLanes } from './entity-lanes.ts';
import { MockCrystals } from './mock-crystal.ts';
import { OutcomeWatch } from './outcome-watch.ts';
import type { ActionTrace } from './run-record.ts';
import { stretchedForLoad } from '../values/index.ts';

/**
 * Bounds on the agent. Start-up includes booting a runtime (tsx compiling TypeScript takes seconds on a
 * busy two-core machine); a prompt is a whole turn of the agent's loop against a local crystal. Only a
 * hang reaches them, and reaching one errors the case instead of failing it. They equal the longest
 * time limit a case may set, so inside a run the case's own limit is reached first; they bound a drive
 * run outside the runner.
 */
export const ACP_BOUNDS: AcpClientBounds = { startupMs: 60_000, requestMs: 60_000, stopMs: 2_000 };

/** The agent, its crystal and the mock crystal answering it, for one case. */
interface AcpDrive {
  client: AcpClient;
  server: CrystalServer;
  crystals: MockCrystals;
}

const drives = new WeakMap<DriveState, Promise<AcpDrive>>();
/** Closes what an ACP drive started; kept apart so the runner can close a case it stopped waiting for. */
const closings = new WeakMap<DriveState, () => Promise<void>>();

interface AcpStep {
  state: DriveState;
  body: Record<string, unknown>;
  trace: ActionTrace;
}

/** `acp_session: { as, cwd? }`: `session/new`; the id in `acp_sessions.<as>.session_id`, a refusal in `.error`. */
export async function acpSession({ state, body, trace }: AcpStep): Promise<void> {
  const drive = await acpDrive(state);
  drive.crystals.beginAction(trace.index);
  const answer = await drive.client.newSession(typeof body.cwd === 'string' ? body.cwd : tmpdir());
  state.record.acp_sessions[trace.name] = answer.ok
    ? { ...(typeof answer.value.sessionId === 'string' && { session_id: answer.value.sessionId }), response: jsonCopy(answer.value) }
    : { error: answer.error };
  noteOutside(state, drive, trace.name);
}

/** `acp_prompt: { session, text, form?, as }`: `session/prompt` with the text in that form (default one text block under `prompt`); everything it brought in `acp_prompts.<as>`. */
export async function acpPrompt({ state, body, trace }: AcpStep): Promise<void> {
  const session = body.session as string;
  const sessionId = state.record.acp_sessions[session]?.session_id;
  if (sessionId === undefined) throw new Stop(`'${session}' opened no ACP session${state.record.acp_sessions[session]?.error ? ` (session/new was refused: ${state.record.acp_sessions[session]!.error!.message})` : ''}`);
  const drive = await acpDrive(state);
  drive.crystals.beginAction(trace.index);
  const text = body.text as string;
  const form = (body.form as PromptForm | undefined) ?? 'blocks';
  const { answer, updates, dropped } = await drive.client.prompt(sessionId, text, form);
  // A prompt judged on part of its updates would judge nothing reliably: kept bounded, and the case is not judged.
  if (dropped > 0) {
    state.faults.push({ kind: 'error', message: `the ACP agent sent ${updates.length + dropped} session updates during prompt '${trace.name}'; the kit keeps at most ${MAX_UPDATES_KEPT} per prompt (truncated after ${MAX_UPDATES_KEPT}, the first and last halves), so the case is not judged` });
    state.limits.push({ kind: 'acp_updates', bound: MAX_UPDATES_KEPT, seen: updates.length + dropped, judged: false });
  }
  for (const u of updates) if (u.problems.length > 0) state.record.acp.update_problems.push({ action: trace.name, problems: u.problems });
  const sent = updates.map(updateOf);
  state.record.acp_prompts[trace.name] = {
    session,
    session_id: sessionId,
    prompt: text,
    form,
    stop_reason: answer.ok && typeof answer.value.stopReason === 'string' ? answer.value.stopReason : null,
    response: answer.ok ? jsonCopy(answer.value as Record<string, unknown>) : null,
    error: answer.ok ? null : answer.error,
    updates: sent,
    kinds: sent.map((u) => (isRecord(u) && typeof u.sessionUpdate === 'string' ? u.sessionUpdate : '(none)')),
    texts: sent.flatMap((u) => (isRecord(u) && u.sessionUpdate === 'agent_message_chunk' && isRecord(u.content) && u.content.type === 'text' && typeof u.content.text === 'string' ? [u.content.text] : [])),
    requests: drive.crystals.queries.filter((q) => q.action === trace.index).map((q) => jsonCopy(q.request)),
  };
  noteOutside(state, drive, trace.name);
}

/** Stops the agent and closes its crystal, keeping stderr, wire problems and the mock crystal's faults. Bounded; safe to call twice. */
export async function endAcp(state: DriveState): Promise<void> {
  await closings.get(state)?.();
}

/** The case's ACP drive, started at its first ACP action. */
function acpDrive(state: DriveState): Promise<AcpDrive> {
  let drive = drives.get(state);
  if (!drive) {
    drive = startDrive(state);
    drives.set(state, drive);
  }
  return drive;
}

async function startDrive(state: DriveState): Promise<AcpDrive> {
  const launch = state.record.description.acp;
  // The plan runs ACP cases only for implementations declaring `acp`; one without a launch cannot be run at all.
  if (!launch) throw new Error("the implementation declares the 'acp' feature but its describe() gives no 'acp' launch (command, crystal): the kit cannot start its agent");
  const crystal = state.case.setup.crystal ?? Object.keys(state.case.crystals ?? {})[0];
  if (crystal === undefined) throw new Stop('an ACP case needs a crystal for the agent: declare one under crystals and name it in setup.crystal');
  const crystals = agentCrystals(state, crystal);
  const server = await startCrystalServer({ answer: (name, request) => crystals.serve(name, request), crystals: [crystal] });
  let filled: FilledLaunch;
  try {
    filled = fillLaunch(launch, { base_url: server.baseUrl(launch.crystal), model: crystal, api_key: server.apiKey });
  } catch (error) {
    await server.close();
    throw error;
  }
  // The key is a secret the kit hands the agent (PROD-8): the secret-kept-out check looks for it in all it sends.
  state.prepared.acp_api_key = server.apiKey;
  // The bounds hold on an idle machine; a loaded one stretches them, like the case limits.
  // Past its bound on kept messages, the client still keeps any that carries the key, for the secret search.
  const client = new AcpClient(filled, { startupMs: stretchedForLoad(ACP_BOUNDS.startupMs), requestMs: stretchedForLoad(ACP_BOUNDS.requestMs), stopMs: stretchedForLoad(ACP_BOUNDS.stopMs) }, [server.apiKey]);
  let closed: Promise<void> | undefined;
  const close = (): Promise<void> => (closed ??= closeDrive(state, { client, server, crystals }));
  closings.set(state, close);
  state.closers?.push(close);
  state.record.acp.launch = jsonCopy(launch) as AcpAgentLaunch;
  const initialized = await client.initialize();
  if (!initialized.ok) {
    state.record.acp.initialize_error = initialized.error;
    throw new Stop(`the ACP agent refused initialize (${initialized.error.code}: ${initialized.error.message})`);
  }
  state.record.acp.initialize = jsonCopy(initialized.value);
  return { client, server, crystals };
}

/**
 * A mock crystal of the agent's own over the case's script. Its wards are the agent's, which the kit
 * does not know, so it never decides an outcome early; its faults (a script run out) join the case's.
 */
function agentCrystals(state: DriveState, crystal: string): MockCrystals {
  const c = state.case;
  const watch = new OutcomeWatch({ crystal, wards: {}, childCrystals: new Set(), childTurnCaps: new Map() }, () => performance.now());
  return new MockCrystals(c.crystals ?? {}, state.record.description, realWait, watch, new EntityLanes({ crystals: c.crystals ?? {}, act: [] }));
}

async function closeDrive(state: DriveState, drive: AcpDrive): Promise<void> {
  await drive.client.close();
  await drive.server.close();
  const acp = state.record.acp;
  acp.stderr = drive.client.stderr();
  acp.client_requests = jsonCopy(drive.client.clientRequests);
  acp.inbound = jsonCopy(drive.client.inbound);
  // Kept in part and still judged: nothing judges these requests but their presence, and every message
  // carrying the key was kept for the secret search.
  const { clientRequestsNotKept, inboundNotKept } = drive.client;
  if (clientRequestsNotKept > 0) state.limits.push({ kind: 'acp_client_requests', bound: MAX_CLIENT_REQUESTS_KEPT, seen: drive.client.clientRequests.length + clientRequestsNotKept, judged: true });
  if (inboundNotKept > 0) state.limits.push({ kind: 'acp_inbound', bound: MAX_INBOUND_KEPT, seen: drive.client.inbound.length + inboundNotKept, judged: true });
  noteServerLimits(state, drive.server);
  acp.wire_problems = drive.server.exchanges.flatMap((e) => e.problems.map((p) => ({ seq: e.seq, ...p })));
  noteOutside(state, drive, '(outside prompts)');
  state.faults.push(...drive.crystals.faults);
  state.limits.push(...drive.crystals.limits);
}

/** Files the updates that came outside any prompt since the last look. */
function noteOutside(state: DriveState, drive: AcpDrive, action: string): void {
  const { updates: outside, dropped } = drive.client.outsidePrompts.take();
  if (dropped > 0) {
    state.faults.push({ kind: 'error', message: `the ACP agent sent ${outside.length + dropped} session updates outside any prompt; the kit keeps at most ${MAX_UPDATES_KEPT} (truncated after ${MAX_UPDATES_KEPT}), so the case is not judged` });
    state.limits.push({ kind: 'acp_updates', bound: MAX_UPDATES_KEPT, seen: outside.length + dropped, judged: false });
  }
  for (const u of outside) {
    state.record.acp.outside_prompts.push(jsonCopy(u.params));
    if (u.problems.length > 0) state.record.acp.update_problems.push({ action, problems: u.problems });
  }
}

/** The `update` member of a notification's params, or the params themselves when there is none. */
function updateOf(u: ReceivedUpdate): unknown {
  return jsonCopy(isRecord(u.params) && Object.hasOwn(u.params, 'update') ? u.params.update : u.params);
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

