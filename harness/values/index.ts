/** Plain-data helpers every stage may use: JSON equality and the cause a message states. */
export { normaliseText } from './cause-text.ts';
export { deepEqual, isType, jsonCopy, jsonType, like } from './equality.ts';
export { asSeen, sameAsSeen } from './seen-as.ts';
export { batchShows, type BatchExpectation, type BatchSlot } from './batch-slots.ts';
export { pathsShowing } from './text-search.ts';
export { loadFactor, stretchedForLoad } from './machine-load.ts';
export { environmentSecrets, knownSecrets, rememberMadeUpSecret, SCRUBBED, scrubSecrets, scrubSecretsDeep } from './secrets.ts';
