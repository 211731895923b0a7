/**
 * Keeps API keys out of everything a provider produces: error messages, events, metadata. Provider
 * error bodies sometimes echo the key (or its first characters) back, so every provider-supplied text
 * passes through {@link redact} before it reaches a {@link CrystalError}.
 */

/** Replaces the key, and its leading characters when long enough to identify it, with `[redacted]`. */
export function redact(text: string, secret: string | undefined): string {
  if (!secret) return text;
  let out = text.split(secret).join('[redacted]');
  // Some providers echo a masked key such as `sk-abc12***wxyz`; the prefix alone identifies it.
  if (secret.length >= 16) out = out.split(secret.slice(0, 8)).join('[redacted]');
  return out;
}
