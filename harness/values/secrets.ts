/**
 * What must never reach the kit's outputs (report.json, report.md, report.html, junit.xml, summary.md,
 * the console): the credentials the kit makes up for a run (the crystal server's API key, the gates'
 * credential) and values of the environment that look like secrets. An implementation may print any of
 * them (on stderr, in an error, in a value); the kit copies what it shows into its reports, so every text
 * passes {@link scrubSecrets} once, where the report is built and where lines are printed.
 *
 * Judging is not touched: PROD-8 searches the run record for the gates' credential before any of this.
 */

/** What a scrubbed secret is replaced with. */
export const SCRUBBED = '[redacted]';

/** Shorter values are not treated as secrets: they would match ordinary text (`1`, `true`, a port). */
const MIN_SECRET_CHARS = 8;
/** Names of environment variables whose values are secrets by convention. */
const SECRET_NAME = /(^|_)(KEY|APIKEY|TOKEN|SECRET|PASSWORD|PASSWD|PASS|PWD|CREDENTIALS?|AUTH|PRIVATE|COOKIE|DSN)(_|$)|API_?KEY|SECRET|TOKEN|PASSWORD/i;
/** Names that match the pattern above but hold no secret. */
const NOT_SECRET_NAME = /^(PWD|OLDPWD|SSH_AUTH_SOCK|GPG_AGENT_INFO|\w*_PATH|\w*_FILE|\w*_DIR)$/i;
/** Values whose shape is a known kind of token, whatever their variable is called. */
const SECRET_SHAPE = /^(sk-[\w-]{16,}|sk-ant-[\w-]{16,}|gh[pousr]_\w{20,}|github_pat_\w{20,}|xox[abposr]-[\w-]{10,}|AKIA[0-9A-Z]{16}|AIza[\w-]{30,}|glpat-[\w-]{20,}|eyJ[\w-]{10,}\.[\w-]{10,}\.[\w-]{10,})$/;

/** Credentials the kit made up in this process (added as they are made; never removed: they stay secret). */
const madeUp = new Set<string>();

/** Records a credential the kit made up, so no output of the run shows it. */
export function rememberMadeUpSecret(value: string): void {
  if (value.length >= MIN_SECRET_CHARS) madeUp.add(value);
}

/** The values of `env` that look like secrets: by the variable's name, or by the value's shape. */
export function environmentSecrets(env: NodeJS.ProcessEnv = process.env): string[] {
  const found: string[] = [];
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || value.length < MIN_SECRET_CHARS) continue;
    if ((SECRET_NAME.test(name) && !NOT_SECRET_NAME.test(name)) || SECRET_SHAPE.test(value)) found.push(value);
  }
  return found;
}

/** Every secret to scrub now, longest first (so a secret that contains another is replaced whole). */
export function knownSecrets(env: NodeJS.ProcessEnv = process.env): string[] {
  return [...new Set([...madeUp, ...environmentSecrets(env)])].sort((a, b) => b.length - a.length);
}

/** `text` with every known secret replaced by {@link SCRUBBED}. */
export function scrubSecrets(text: string, secrets: readonly string[] = knownSecrets()): string {
  let out = text;
  for (const secret of secrets) if (out.includes(secret)) out = out.split(secret).join(SCRUBBED);
  return out;
}

/** A deep copy of a JSON-like value with every string (keys included) scrubbed; other values as they are. */
export function scrubSecretsDeep<T>(value: T, secrets: readonly string[] = knownSecrets()): T {
  if (secrets.length === 0) return value;
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return scrubSecrets(v, secrets);
    if (Array.isArray(v)) return v.map(walk);
    if (v !== null && typeof v === 'object') {
      const out: Record<string, unknown> = {};
      for (const [k, item] of Object.entries(v)) out[scrubSecrets(k, secrets)] = walk(item);
      return out;
    }
    return v;
  };
  return walk(value) as T;
}
