import type { CrystalRequest, CrystalResponse, ToolCall, Usage } from '../../schemas/index.ts';
import { CRYSTAL_CONTRACT_VERSION, type Crystal } from './contract.ts';
import { CantripError } from '../errors.ts';

/** One scripted reply: a response, or a failure to throw instead. */
export type ScriptStep = Partial<CrystalResponse> | { throws: Error };

/**
 * A crystal that replays a fixed script, for tests and examples, and records every request it was
 * sent so a test can check what the loop assembled (CALL-2, INTENT-2, CIRCLE-11). Each query takes
 * the next step; running out of steps is an error that says how many were scripted.
 */
export class ScriptedCrystal implements Crystal {
  readonly contractVersion = CRYSTAL_CONTRACT_VERSION;
  readonly requests: CrystalRequest[] = [];
  readonly contextWindow: number | undefined;
  private next = 0;

  constructor(
    private readonly script: readonly ScriptStep[],
    readonly name = 'scripted',
    options: { contextWindow?: number } = {},
  ) {
    this.contextWindow = options.contextWindow;
  }

  async query(request: CrystalRequest): Promise<CrystalResponse> {
    this.requests.push(snapshot(request));
    const step = this.script[this.next];
    if (step === undefined) {
      throw new CantripError('crystal_error', `${this.name}: script exhausted after ${this.script.length} responses`);
    }
    this.next += 1;
    if ('throws' in step) throw step.throws;
    return { content: null, usage: zeroUsage(), ...structuredClone(step) } as CrystalResponse;
  }
}

/** Zero token counts, for scripted replies that do not care about usage. */
export function zeroUsage(): Usage {
  return { prompt: 0, completion: 0, cached: 0 };
}

let scriptedIds = 0;

/** Shorthand for a scripted gate call: `call('echo', { text: 'hi' })`. Ids are unique per process. */
export function gateCall(gate: string, args: Record<string, unknown> = {}, id?: string): ToolCall {
  scriptedIds += 1;
  return { id: id ?? `call_${scriptedIds}`, gate, arguments: JSON.stringify(args) };
}

/**
 * A deep, plain copy of a request, so nothing done to it later can rewrite the record. JSON, not
 * structuredClone: a request's context is a read-only view, which structuredClone cannot copy.
 */
export function snapshot(request: CrystalRequest): CrystalRequest {
  return JSON.parse(JSON.stringify(request)) as CrystalRequest;
}
