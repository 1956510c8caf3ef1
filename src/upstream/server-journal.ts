/**
 * @module What the dashboard shows of one server's life: its state history (connected,
 * failed, restarted... with times) and the last lines it wrote to stderr, with the values of
 * its configured environment masked. Kept across reconnects, restarts and config edits.
 */
import type { ServerConfig } from '../config/index.ts';

/** Events kept per server, and stderr lines. */
export const JOURNAL_EVENTS = 100;
export const STDERR_LINES = 200;
/** One stderr line is cut beyond this many characters. */
const STDERR_LINE_CHARS = 2_000;
/** Environment values shorter than this are not masked (`1`, `on`): keys that look secret always are. */
const MIN_MASKED_CHARS = 4;
const SECRET_KEY = /token|secret|key|pass|auth|cred|cookie|session|private/i;
export const MASK = '[redacted]';

/** One entry of a server's history, oldest first. */
export interface JournalEvent {
  at: string;
  /** A state (`ready`, `failed`, ...) or an action (`restarted`, `config_changed`). */
  event: string;
  detail?: string;
}

/**
 * The values a server's output must never show: its `env` and `headers` values, its OAuth
 * client secret, and the values of secret-looking variables of codemux's own environment that
 * its `args` or `url` hold (a `${GITHUB_TOKEN}` expanded there).
 */
export function secretValues(
  config: ServerConfig,
  environment: NodeJS.ProcessEnv = process.env,
): string[] {
  const named = { ...config.env, ...config.headers };
  const places = [...config.args, config.url ?? ''].join('\n');
  for (const [key, value] of Object.entries(environment)) {
    if (value && SECRET_KEY.test(key) && places.includes(value)) named[key] = value;
  }
  const values = Object.entries(named)
    .filter(([key, value]) => value.length >= MIN_MASKED_CHARS || (value && SECRET_KEY.test(key)))
    .map(([, value]) => value);
  if (config.oauth?.clientSecret) values.push(config.oauth.clientSecret);
  return values;
}

/** `text` with every one of `secrets` replaced by the mask. */
export function maskSecrets(text: string, secrets: readonly string[]): string {
  let masked = text;
  for (const secret of secrets) masked = masked.split(secret).join(MASK);
  return masked;
}

export class ServerJournal {
  private readonly events: JournalEvent[] = [];
  private readonly lines: string[] = [];
  /** Every secret of every config the server had: an old process may still print an old one. */
  private readonly secrets = new Set<string>();
  private ordered: string[] = [];

  constructor(config: ServerConfig) {
    this.configure(config);
  }

  /** The config whose environment values are masked from now on. */
  configure(config: ServerConfig): this {
    for (const secret of secretValues(config)) this.secrets.add(secret);
    // Longest first, so a secret that contains another is masked whole.
    this.ordered = [...this.secrets].sort((a, b) => b.length - a.length);
    return this;
  }

  record(event: string, detail?: string): void {
    this.events.push({
      at: new Date().toISOString(),
      event,
      ...(detail ? { detail: this.mask(detail) } : {}),
    });
    if (this.events.length > JOURNAL_EVENTS) this.events.shift();
  }

  /** Keeps `line`, masked (before it is cut, so no part of a secret stays); answers it so. */
  stderr(line: string): string {
    const masked = this.mask(line);
    const cut =
      masked.length > STDERR_LINE_CHARS ? `${masked.slice(0, STDERR_LINE_CHARS)}…[cut]` : masked;
    this.lines.push(cut);
    if (this.lines.length > STDERR_LINES) this.lines.shift();
    return cut;
  }

  /** Text that may hold the server's environment values, masked. */
  mask(text: string): string {
    return maskSecrets(text, this.ordered);
  }

  history(): JournalEvent[] {
    return [...this.events];
  }

  stderrLines(): string[] {
    return [...this.lines];
  }
}
