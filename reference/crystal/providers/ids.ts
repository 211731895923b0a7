import { randomUUID } from 'node:crypto';

/** Makes a fresh gate-call id, for providers that send none (Gemini) or send blanks (some local servers). */
export type IdMaker = () => string;

/** CRYSTAL-4: a synthesized id is random, so it is unique within the response and across turns. */
export const randomCallId: IdMaker = () => `call_${randomUUID().replace(/-/g, '').slice(0, 24)}`;
