/** Whether a record schema is installed yet, so checks that need it report "skipped", never "passed". */
import { schemaIds, SCHEMA_BASE } from '../schemas/loader.ts';

export function hasSchema(name: string): boolean {
  return schemaIds().includes(`${SCHEMA_BASE}${name}.schema.json`);
}
