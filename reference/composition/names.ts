/** The names of the composition gates (§5.1, §5.2). */
export const CALL_ENTITY = 'call_entity';
export const CALL_ENTITY_BATCH = 'call_entity_batch';
export const COMPOSITION_GATES: readonly string[] = [CALL_ENTITY, CALL_ENTITY_BATCH];
