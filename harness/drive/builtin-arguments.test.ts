/**
 * The child options the medium cases script (`medium`, COMP-7 from 0.2.0; `eval_timeout_ms`, a medium
 * ward WARD-2 composes) reach an implementation only where it takes them: from its `call_entity` tool
 * definition (top level or nested in an object) or its `describe().builtins` map. An implementation that
 * takes neither gets a refusal with a reason, which makes the case skipped, never failed (WARD-2's case
 * is no failure for an implementation without the option).
 */
import { describe, expect, it } from 'vitest';
import type { ToolDefinition } from '../../schemas/records.ts';
import { translateBuiltinCall } from './builtin-arguments.ts';

const callEntity = (properties: Record<string, unknown>): ToolDefinition => ({ name: 'call_entity', description: 'Delegate.', parameters: { type: 'object', properties, required: ['intent'] } });
const ASKED = { intent: 'loose-child', medium: 'code', eval_timeout_ms: 600000 };

describe('the medium child options of a scripted call_entity', () => {
  it('go to top-level properties of the same names when the definition has them', () => {
    const tools = [callEntity({ intent: { type: 'string' }, medium: { type: 'string' }, eval_timeout_ms: { type: 'integer' } })];
    expect(translateBuiltinCall('call_entity', ASKED, tools, undefined)).toEqual({ ok: true, args: ASKED });
  });

  it('go inside an object-typed property that holds them, or where describe().builtins maps them', () => {
    const nested = [callEntity({ intent: { type: 'string' }, config: { type: 'object', properties: { medium: { type: 'string' }, eval_timeout_ms: { type: 'integer' } } } })];
    expect(translateBuiltinCall('call_entity', ASKED, nested, undefined)).toEqual({ ok: true, args: { intent: 'loose-child', config: { medium: 'code', eval_timeout_ms: 600000 } } });
    const mapped = translateBuiltinCall('call_entity', ASKED, [callEntity({ intent: { type: 'string' } })], { call_entity: { arguments: { medium: 'substrate', eval_timeout_ms: 'wards.max_eval_ms' } } });
    expect(mapped).toEqual({ ok: true, args: { intent: 'loose-child', substrate: 'code', wards: { max_eval_ms: 600000 } } });
  });

  it('an implementation that takes no eval_timeout_ms gets a refusal naming the option (the case is skipped)', () => {
    const result = translateBuiltinCall('call_entity', ASKED, [callEntity({ intent: { type: 'string' }, medium: { type: 'string' } })], undefined);
    expect(result.ok).toBe(false);
    expect(result.ok ? undefined : result.reason).toContain("'eval_timeout_ms'");
  });
});
