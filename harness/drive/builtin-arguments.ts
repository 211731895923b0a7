/**
 * Cases script the built-in gates under one set of names: `done` with `{ answer }`, `call_entity` with
 * `{ intent, context?, system_prompt?, max_depth?, max_turns?, gates?, medium?, llm?, eval_timeout_ms? }`
 * (schemas/adapter.ts, CHILD_OPTIONS) and `call_entity_batch` with
 * `{ intents: [...] }`. The spec fixes the gates but not these names (CIRCLE-8 asks only for an answer
 * argument; spec 5.1 sketches `call_entity(intent, config?)`), so before a scripted call reaches an
 * implementation the mock crystal rewrites it into the names that implementation uses. It learns them
 * from the tool definitions the implementation presents in the very request being answered, and from
 * `describe().builtins` where those definitions leave a choice. In a code circle only the function
 * names can be learned (from `builtins`); the code's argument shapes follow the spec's examples in 5.3.
 */
import type { BuiltinSignatures, ChildOption } from '../../schemas/adapter.ts';
import { CHILD_OPTIONS } from '../../schemas/adapter.ts';
import type { ToolDefinition } from '../../schemas/records.ts';

/** The scripted call in the implementation's own names, or why it cannot be expressed there. */
export type Translation = { ok: true; args: unknown } | { ok: false; reason: string };

type Schema = { type?: unknown; properties?: Record<string, Schema>; required?: unknown; items?: Schema };

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const propertiesOf = (schema: Schema | undefined): Record<string, Schema> => (isObject(schema?.properties) ? (schema.properties as Record<string, Schema>) : {});
const typeIs = (schema: Schema | undefined, type: string): boolean => schema?.type === type || (Array.isArray(schema?.type) && schema.type.includes(type));

/** Rewrites the arguments of one scripted call of a built-in gate; other gates pass through unchanged. */
export function translateBuiltinCall(gate: string, args: unknown, tools: readonly ToolDefinition[] | undefined, builtins: BuiltinSignatures | undefined): Translation {
  const tool = tools?.find((t) => t.name === gate);
  const schema = tool?.parameters as Schema | undefined;
  switch (gate) {
    case 'done':
      return translateDone(args, schema, builtins?.done?.argument);
    case 'call_entity':
      return translateChildRequest(args, schema, builtins?.call_entity?.arguments);
    case 'call_entity_batch':
      return translateBatch(args, schema, tools, builtins);
    default:
      return { ok: true, args };
  }
}

/** CIRCLE-8: the answer goes into whichever argument the implementation's done takes it in. */
function translateDone(args: unknown, schema: Schema | undefined, declared: string | undefined): Translation {
  if (!isObject(args) || !Object.hasOwn(args, 'answer')) return { ok: true, args };
  const target = declared ?? answerArgument(schema);
  if (target === undefined) {
    // Two different situations, each said as it is: a done that declares it takes no argument, and one with several.
    const reason = Object.keys(propertiesOf(schema)).length === 0
      ? 'the done tool declares that it takes no argument, so the scripted answer has nowhere to go (CIRCLE-8 gives done an answer argument); declare describe().builtins.done.argument if it takes one anyway'
      : 'cannot tell which argument of the done tool carries the answer (it has several and none is the only required one); declare describe().builtins.done.argument';
    return { ok: false, reason };
  }
  const { answer, ...rest } = args;
  return { ok: true, args: { ...rest, [target]: answer } };
}

function answerArgument(schema: Schema | undefined): string | undefined {
  // Without a definition to learn from (a request without tools), keep the scripted name.
  if (schema === undefined) return 'answer';
  const names = Object.keys(propertiesOf(schema));
  if (names.includes('answer')) return 'answer';
  if (names.length === 1) return names[0];
  // A schema naming no argument says nothing about them unless it shuts every other out: keep the scripted name.
  if (names.length === 0) return (schema as Record<string, unknown>).additionalProperties === false ? undefined : 'answer';
  const required = Array.isArray(schema.required) ? schema.required.filter((r): r is string => typeof r === 'string') : [];
  return required.length === 1 ? required[0] : undefined;
}

/** Spec 5.1: a child request. Each scripted option goes where the implementation takes it, or the case cannot run. */
function translateChildRequest(args: unknown, schema: Schema | undefined, declared: Partial<Record<ChildOption, string>> | undefined): Translation {
  if (!isObject(args)) return { ok: true, args };
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(args)) {
    if (!(CHILD_OPTIONS as readonly string[]).includes(key)) {
      out[key] = value;
      continue;
    }
    const target = declared?.[key as ChildOption] ?? locate(schema, key);
    if (target === undefined) {
      return { ok: false, reason: `the implementation's call_entity takes no '${key}' option (not in its tool definition nor in describe().builtins.call_entity.arguments)` };
    }
    setPath(out, target, value);
  }
  return { ok: true, args: out };
}

/** A top-level property of that name, else one inside an object-typed property (`config.max_turns`). */
function locate(schema: Schema | undefined, key: string): string | undefined {
  if (schema === undefined) return key;
  const properties = propertiesOf(schema);
  if (Object.hasOwn(properties, key)) return key;
  for (const [name, inner] of Object.entries(properties)) {
    if (typeIs(inner, 'object') && Object.hasOwn(propertiesOf(inner), key)) return `${name}.${key}`;
  }
  return undefined;
}

function setPath(target: Record<string, unknown>, path: string, value: unknown): void {
  const parts = path.split('.');
  let at = target;
  for (const part of parts.slice(0, -1)) {
    const next = at[part];
    at = isObject(next) ? next : (at[part] = {});
  }
  at[parts.at(-1) as string] = value;
}

/** Spec 5.2: the list of child requests goes into the implementation's array argument; each entry is translated like call_entity's. */
function translateBatch(args: unknown, schema: Schema | undefined, tools: readonly ToolDefinition[] | undefined, builtins: BuiltinSignatures | undefined): Translation {
  if (!isObject(args) || !Array.isArray(args.intents)) return { ok: true, args };
  const target = builtins?.call_entity_batch?.argument ?? batchArgument(schema);
  if (target === undefined) return { ok: false, reason: 'cannot tell which argument of call_entity_batch holds the list of child requests; declare describe().builtins.call_entity_batch.argument' };
  const itemSchema = propertiesOf(schema)[target]?.items;
  const entrySchema = Object.keys(propertiesOf(itemSchema)).length > 0 ? itemSchema : (tools?.find((t) => t.name === 'call_entity')?.parameters as Schema | undefined);
  const entries: unknown[] = [];
  for (const entry of args.intents) {
    const translated = translateChildRequest(entry, entrySchema, builtins?.call_entity?.arguments);
    if (!translated.ok) return translated;
    entries.push(translated.args);
  }
  const { intents: _intents, ...rest } = args;
  return { ok: true, args: { ...rest, [target]: entries } };
}

function batchArgument(schema: Schema | undefined): string | undefined {
  if (schema === undefined) return 'intents';
  const properties = propertiesOf(schema);
  if (Object.hasOwn(properties, 'intents')) return 'intents';
  const arrays = Object.entries(properties).filter(([, p]) => typeIs(p, 'array'));
  return arrays.length === 1 ? arrays[0]?.[0] : undefined;
}

/** Renames calls of the built-in functions in scripted code to the names the implementation declares. */
export function translateCode(source: string, builtins: BuiltinSignatures | undefined): string {
  const renames: [string, string | undefined][] = [
    ['call_entity_batch', builtins?.call_entity_batch?.function],
    ['call_entity', builtins?.call_entity?.function],
    ['done', builtins?.done?.function],
  ];
  let out = source;
  for (const [from, to] of renames) {
    if (to === undefined || to === from) continue;
    out = out.replace(new RegExp(`\\b${from}\\b(?=\\s*\\()`, 'g'), to);
  }
  return out;
}
