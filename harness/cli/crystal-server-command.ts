/**
 * `cantrip-conformance crystal-server --case <id> [--transport openai] [--cases <tests.yaml>]`: serves one
 * case's scripted crystals in a provider's wire format until interrupted, for debugging an
 * implementation's provider code by hand (issue 13). It prints the base URL, the model names (the
 * case's crystal names) and the per-run key, then one line per exchange (request summary → reply) with
 * the wire problems found. `--done-argument` names the done tool's answer argument where its definition
 * leaves that open (what describe().builtins says in a run). Ctrl-C closes the server (exit 0). The key is printed once, for the person
 * running the command; the exchange lines never carry it.
 */
import { isAbsolute, join, relative, resolve } from 'node:path';
import { CRYSTAL_TRANSPORTS, type CrystalTransport } from '../../schemas/adapter.ts';
import type { CrystalReply } from '../../schemas/adapter.ts';
import type { CrystalRequest } from '../../schemas/records.ts';
import { formatProblems, startCrystalServer, summarizeExchange, type Exchange, type WireFormat } from '../crystal-server/index.ts';
import type { CliIo } from './io.ts';
import { parseCommandLine, type OptionTable } from './arguments.ts';
import { CaseFileError, loadCaseFile } from '../case-file/index.ts';
import { MockCrystals } from '../drive/index.ts';
import { OutcomeWatch, watchedCase } from '../drive/index.ts';
import { prepareSetup } from '../drive/index.ts';

export const CRYSTAL_SERVER_USAGE =
  'usage: cantrip-conformance crystal-server --case <id> [--transport openai|openai-stream|anthropic|anthropic-stream|gemini|gemini-stream] [--cases <tests.yaml>] [--done-argument <name>]';

const WIRE_TRANSPORTS = CRYSTAL_TRANSPORTS.filter((t) => t !== 'callback');

/** What `crystal-server --help` prints: what the command does, then its options with their defaults. */
export const CRYSTAL_SERVER_HELP = `${CRYSTAL_SERVER_USAGE}

Serves one case's scripted crystals over HTTP in a provider's wire format until Ctrl-C, to debug an
implementation's provider code by hand (docs/crystal-server.md). Prints the base URL, the model names
(the case's crystal names) and a key made for this run, then one line per exchange with the wire
problems found.

options (defaults in brackets):
  --case <id>              the case whose crystals are served (required)
  --transport <format>     ${WIRE_TRANSPORTS.join(' | ')} [openai]
  --cases <file>           the case file [the kit's tests.yaml]
  --done-argument <name>   the done tool's answer argument, where its definition leaves it open
                           (what describe().builtins.done.argument says in a run) [read from the done
                           tool each request presents: its only argument, or its only required one]
  --help, -h               this text

Options take their value as --name value or --name=value. Exit 0 when closed with Ctrl-C, 2 for bad usage.`;

/** How a client of each format sends the key. */
const KEY_HEADER: Record<WireFormat, string> = {
  openai: 'Authorization: Bearer <key>',
  anthropic: 'x-api-key: <key> (with anthropic-version: 2023-06-01)',
  gemini: 'x-goog-api-key: <key>, or ?key=<key>',
};

interface Options {
  caseId: string;
  transport: Exclude<CrystalTransport, 'callback'>;
  cases: string;
  /** What describe().builtins.done.argument would say, where the done tool's definition leaves it open. */
  doneArgument?: string;
}

export const CRYSTAL_SERVER_OPTIONS = { case: { type: 'string' }, transport: { type: 'string' }, cases: { type: 'string' }, 'done-argument': { type: 'string' } } as const satisfies OptionTable;

/** The options, or undefined for `--help`; throws on bad usage. */
function parse(args: string[], kitRoot: string): Options | undefined {
  const { values } = parseCommandLine(args, CRYSTAL_SERVER_OPTIONS);
  if (values['help'] === true) return undefined;
  const caseId = values['case'] as string | undefined;
  const transport = (values['transport'] as string | undefined) ?? 'openai';
  const doneArgument = values['done-argument'] as string | undefined;
  if (!(WIRE_TRANSPORTS as readonly string[]).includes(transport)) throw new Error(`--transport is one of ${WIRE_TRANSPORTS.join(', ')}, got '${transport}'`);
  if (caseId === undefined) throw new Error('--case <id> is required');
  return { caseId, transport: transport as Options['transport'], cases: (values['cases'] as string | undefined) ?? join(kitRoot, 'tests.yaml'), ...(doneArgument !== undefined && { doneArgument }) };
}

/** Short, one-line text. */
function clip(text: string, max = 80): string {
  const flat = text.replace(/\s+/g, ' ');
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** What the request asked: its size, its last message, the tools offered and the tool choice. */
export function requestSummary(request: CrystalRequest | undefined): string {
  if (!request) return 'unreadable request';
  const last = request.messages[request.messages.length - 1];
  const said = last ? `last ${last.role}${last.role === 'tool' ? ` (${last.tool_call_id ?? '?'})` : ''}: ${JSON.stringify(clip(last.content ?? (last.tool_calls ?? []).map((c) => c.gate).join(', '), 60))}` : 'no messages';
  const tools = request.tools?.length ? `; tools ${request.tools.map((t) => t.name).join(', ')}` : '';
  return `${request.messages.length} messages, ${said}${tools}${request.tool_choice ? `; tool_choice ${request.tool_choice}` : ''}`;
}

/** What was answered: text and tool calls, or the failure. */
export function replySummary(reply: CrystalReply | undefined): string {
  if (!reply) return 'no reply';
  if (!reply.ok) return `failure${reply.error.status !== undefined ? ` ${reply.error.status}` : ''}${reply.error.code ? ` ${reply.error.code}` : ''}: ${clip(reply.error.message)}`;
  const r = reply.response;
  const parts: string[] = [];
  if (typeof r.content === 'string') parts.push(JSON.stringify(clip(r.content, 60)));
  for (const c of Array.isArray(r.tool_calls) ? r.tool_calls : []) parts.push(`${c.gate}(${clip(c.arguments, 50)}) [${c.id}]`);
  return parts.length > 0 ? parts.join(', ') : 'an empty response';
}

function exchangeLines(e: Exchange): string[] {
  const lines = [`${summarizeExchange(e)} | ${requestSummary(e.request)} → ${replySummary(e.reply)}`];
  if (e.problems.length > 0) lines.push(formatProblems(e.problems));
  return lines;
}

export async function runCrystalServer(args: string[], io: CliIo, kitRoot: string): Promise<number> {
  let options: Options | undefined;
  try {
    options = parse(args, kitRoot);
  } catch (error) {
    io.err(`${(error as Error).message}\n${CRYSTAL_SERVER_USAGE}`);
    return 2;
  }
  if (!options) {
    io.out(CRYSTAL_SERVER_HELP);
    return 0;
  }
  if (!io.interrupt) {
    io.err('crystal-server runs until interrupted, and this caller gives no interrupt signal');
    return 2;
  }
  const path = resolve(io.cwd, options.cases);
  let found;
  try {
    const shown = relative(io.cwd, path);
    const file = loadCaseFile(path, shown && !shown.startsWith('..') && !isAbsolute(shown) ? shown : path);
    found = file.cases.find((c) => c.id === options.caseId);
    if (!found) {
      const near = file.cases.filter((c) => c.id.includes(options.caseId) || options.caseId.includes(c.id)).slice(0, 5).map((c) => c.id);
      io.err(`no case '${options.caseId}' in ${file.file}${near.length > 0 ? ` (did you mean ${near.join(', ')}?)` : ''}`);
      return 2;
    }
  } catch (error) {
    io.err(error instanceof CaseFileError ? `the case file does not load:\n${error.message}` : `cannot read ${path}: ${(error as Error).message}`);
    return 2;
  }
  const c = found;
  const names = Object.keys(c.crystals ?? {});
  if (names.length === 0) {
    io.err(`case '${c.id}' scripts no crystal: there is nothing to serve`);
    return 2;
  }
  const format: WireFormat = options.transport.startsWith('anthropic') ? 'anthropic' : options.transport.startsWith('gemini') ? 'gemini' : 'openai';
  const stream = options.transport.endsWith('-stream');
  const started = performance.now();
  const watch = new OutcomeWatch(watchedCase(c, prepareSetup(c).childCrystals), () => performance.now() - started);
  // No implementation describes itself here: built-in calls are translated from the tools each request presents.
  const builtins = options.doneArgument !== undefined ? { done: { argument: options.doneArgument } } : undefined;
  const crystals = new MockCrystals(c.crystals ?? {}, builtins ? { builtins } : {}, (ms) => new Promise((r) => setTimeout(r, ms)), watch);
  crystals.beginAction(0);
  const server = await startCrystalServer({
    answer: (crystal, request) => crystals.serve(crystal, request),
    crystals: names,
    onExchange: (e) => {
      for (const line of exchangeLines(e)) io.out(line);
    },
  });
  const intents = c.act.flatMap((a) => Object.values(a as Record<string, { intent?: unknown }>)).map((b) => b?.intent).filter((i): i is string => typeof i === 'string');
  io.out(`crystal server for case ${c.id} (${c.rules.join(', ')}), ${options.transport}: ${c.description}`);
  io.out(`  base URL  ${server.baseUrl(format)}`);
  io.out(`  models    ${names.join(', ')}${stream ? ' (ask for streamed replies)' : ''}`);
  io.out(`  API key   ${server.apiKey}   (${KEY_HEADER[format]})`);
  if (intents.length > 0) io.out(`  intents   ${intents.map((i) => JSON.stringify(i)).join(', ')}`);
  io.out('Ctrl-C to stop.');
  await new Promise<void>((resolveStop) => {
    if (io.interrupt!.aborted) resolveStop();
    else io.interrupt!.addEventListener('abort', () => resolveStop(), { once: true });
  });
  await server.close();
  const left = names.filter((n) => (c.crystals?.[n]?.script?.length ?? 0) > 0).map((n) => `${n}: ${crystals.queries.filter((q) => q.crystal === n).length} of ${c.crystals![n]!.script!.length} scripted replies asked for`);
  io.out(`closed after ${server.exchanges.length} exchanges${left.length > 0 ? ` (${left.join('; ')})` : ''}`);
  for (const f of crystals.faults) io.out(`  ${f.kind}: ${f.message}`);
  return 0;
}
