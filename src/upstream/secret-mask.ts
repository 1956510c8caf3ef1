/**
 * @module The one masker of a server's credentials: every value codemux sends it (its
 * `headers`, its OAuth tokens and client secret, the secret-looking or long values of its
 * `env`) is replaced by "[redacted]" wherever text that came from the server is shown, and
 * that text is cut to a bounded excerpt after it is masked (so no part of a secret stays).
 * A tool's result is masked of the credentials alone (credentialValues): a long plain `env`
 * value (a path) is ordinary data there.
 */
import type { ServerConfig } from '../config/index.ts';

export const MASK = '[redacted]';
/** Shorter values are never masked (`1`, `on`, `dev`): masking them would mangle every word holding them. */
export const MIN_SECRET_CHARS = 4;
/** An `env` value under a plain key (`MODE=crash`) is masked only from this length: short words stay readable. */
export const MIN_PLAIN_SECRET_CHARS = 16;
/** Keys whose values are secrets at any length from MIN_SECRET_CHARS (`*KEY*`, `*TOKEN*`, `*PASSWORD*`...). */
const SECRET_KEY = /token|secret|key|pass|auth|cred|cookie|session|private/i;
/** OAuth tokens remembered per server (an access and a refresh token per refresh): older ones are long expired. */
const MAX_SENT_CREDENTIALS = 32;
const CUT_MARK = '…[cut]';

/** A header value and, for `Bearer xyz`-style values, the credential alone (an echo may quote either). */
function headerSecrets(value: string): string[] {
  const credential = /^\s*\S+\s+(\S+)\s*$/.exec(value)?.[1];
  return credential && credential.length >= MIN_SECRET_CHARS ? [value, credential] : [value];
}

type SecretSources = Pick<ServerConfig, 'env' | 'headers' | 'args' | 'url' | 'oauth'>;

/**
 * The credentials codemux sends a server: its `headers` values under secret-looking names (or
 * of MIN_PLAIN_SECRET_CHARS or more), its `env` values under
 * secret-looking keys, its OAuth client secret, and the values of secret-looking variables of
 * codemux's own environment that its `args` or `url` hold (a `${GITHUB_TOKEN}` expanded there).
 * These are masked everywhere, a tool's result included.
 */
export function credentialValues(
  config: SecretSources,
  environment: NodeJS.ProcessEnv = process.env,
): string[] {
  const values: string[] = [];
  for (const [key, value] of Object.entries(config.env ?? {})) {
    if (SECRET_KEY.test(key)) values.push(value);
  }
  // A header under a plain name with a short value (`X-Team: blue`) is not a credential:
  // masking it in results would mangle every word that holds it.
  for (const [name, value] of Object.entries(config.headers ?? {})) {
    if (SECRET_KEY.test(name) || value.length >= MIN_PLAIN_SECRET_CHARS)
      values.push(...headerSecrets(value));
  }
  const places = [...(config.args ?? []), config.url ?? ''].join('\n');
  for (const [key, value] of Object.entries(environment)) {
    if (value && SECRET_KEY.test(key) && places.includes(value)) values.push(value);
  }
  if (config.oauth?.clientSecret) values.push(config.oauth.clientSecret);
  return values.filter((value) => value.length >= MIN_SECRET_CHARS);
}

/**
 * The values a server's own text (stderr, errors, logs) must never show: its credentials, and
 * its `env` values of MIN_PLAIN_SECRET_CHARS or more under any key (a secret under a plain name).
 */
export function secretValues(
  config: SecretSources,
  environment: NodeJS.ProcessEnv = process.env,
): string[] {
  const long = Object.values(config.env ?? {}).filter(
    (value) => value.length >= MIN_PLAIN_SECRET_CHARS,
  );
  // Every header value stays out of the server's own text, as it always did.
  const headers = Object.values(config.headers ?? {})
    .flatMap(headerSecrets)
    .filter((value) => value.length >= MIN_SECRET_CHARS);
  return [...new Set([...credentialValues(config, environment), ...long, ...headers])];
}

/** `text` with every one of `secrets` replaced by the mask (give the longest first); `text` itself when none is in it. */
export function maskSecrets(text: string, secrets: readonly string[]): string {
  let masked = text;
  for (const secret of secrets) {
    if (masked.includes(secret)) masked = masked.split(secret).join(MASK);
  }
  return masked;
}

/** `text` cut to at most `maxBytes` UTF-8 bytes (and a mark saying so), never inside a character. */
export function excerpt(text: string, maxBytes: number): string {
  if (Buffer.byteLength(text) <= maxBytes) return text;
  const cut = Buffer.from(text)
    .subarray(0, maxBytes)
    .toString('utf8')
    .replace(/\uFFFD$/, '');
  return `${cut}${CUT_MARK}`;
}

/** One server's secrets over its life: every config it had, and the OAuth tokens sent to it. */
export class SecretMask {
  private readonly configured = new Set<string>();
  private readonly configuredCredentials = new Set<string>();
  private readonly sent: string[] = [];
  private ordered: string[] = [];
  private orderedCredentials: string[] = [];

  /** Adds `config`'s secrets (an old process may still print an old config's, so none is forgotten). */
  configure(config: ServerConfig): this {
    for (const secret of secretValues(config)) this.configured.add(secret);
    for (const credential of credentialValues(config)) this.configuredCredentials.add(credential);
    return this.order();
  }

  /** A credential just sent to the server, or on its behalf (an OAuth access or refresh token). */
  credentialSent(credential: string): void {
    if (credential.length < MIN_SECRET_CHARS || this.sent.includes(credential)) return;
    this.sent.push(credential);
    if (this.sent.length > MAX_SENT_CREDENTIALS) this.sent.shift();
    this.order();
  }

  /** `text` with every secret masked. */
  mask(text: string): string {
    return maskSecrets(text, this.ordered);
  }

  /** Whether the server has any credential (without one, its results are passed on untouched). */
  get hasCredentials(): boolean {
    return this.orderedCredentials.length > 0;
  }

  /** `text` with the credentials masked (not the long plain `env` values): for a tool's result. */
  maskCredentials(text: string): string {
    return maskSecrets(text, this.orderedCredentials);
  }

  /** `text` masked, then cut to `maxBytes`. */
  excerpt(text: string, maxBytes: number): string {
    return excerpt(this.mask(text), maxBytes);
  }

  private order(): this {
    // Longest first, so a secret that contains another is masked whole.
    const longestFirst = (values: Iterable<string>) =>
      [...new Set(values)].sort((a, b) => b.length - a.length);
    this.ordered = longestFirst([...this.configured, ...this.sent]);
    this.orderedCredentials = longestFirst([...this.configuredCredentials, ...this.sent]);
    return this;
  }
}
