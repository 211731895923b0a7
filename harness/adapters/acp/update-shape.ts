/**
 * Whether a `session/update` notification has the shape ACP gives it (PROD-6 asks for updates
 * "shaped as ACP expects"), checked against the JSON Schema the protocol's SDK ships for protocol
 * version 1, not against our reading of it. The SDK's client would drop an ill-shaped update without a
 * word; the kit reads every message as it arrives, so it can say what was wrong with one.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';

const SCHEMA_ID = 'https://agentclientprotocol.com/schema/v1/schema.json';
let validator: ValidateFunction | undefined;

function notificationValidator(): ValidateFunction {
  if (validator) return validator;
  const file = createRequire(import.meta.url).resolve('@agentclientprotocol/sdk/schema/v1/schema.json');
  const schema = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  // The SDK's schema uses numeric formats (uint16, int64...) ajv does not know: formats are not checked.
  const ajv = new Ajv2020({ allErrors: true, strict: false, validateFormats: false });
  ajv.addSchema({ ...schema, $id: SCHEMA_ID });
  validator = ajv.getSchema(`${SCHEMA_ID}#/$defs/SessionNotification`);
  if (!validator) throw new Error(`${file}: no SessionNotification definition in the ACP schema`);
  return validator;
}

/** What is wrong with the params of a `session/update` notification, one line per problem; [] when none. */
export function sessionUpdateProblems(params: unknown): string[] {
  const validate = notificationValidator();
  if (validate(params)) return [];
  const errors = validate.errors ?? [];
  // A union (the update kinds) fails in every branch; the shortest pointers say the most.
  const lines = errors.map((e) => `${e.instancePath || '/'} ${e.message ?? e.keyword}`);
  return [...new Set(lines)].slice(0, 5);
}
