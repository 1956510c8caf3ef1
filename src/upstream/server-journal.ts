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

/** The values of `env` that must never be shown, longest first (so a longer one is masked whole). */
export function secretValues(env: Record<string, string>): string[] {
  return Object.entries(env)
    .filter(([key, value]) => value.length >= MIN_MASKED_CHARS || (value && SECRET_KEY.test(key)))
    .map(([, value]) => value)
    .sort((a, b) => b.length - a.length);
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
  private secrets: string[] = [];

  constructor(config: ServerConfig) {
    this.configure(config);
  }

  /** The config whose environment values are masked from now on. */
  configure(config: ServerConfig): this {
    this.secrets = secretValues(config.env);
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

  stderr(line: string): void {
    const cut =
      line.length > STDERR_LINE_CHARS ? `${line.slice(0, STDERR_LINE_CHARS)}…[cut]` : line;
    this.lines.push(this.mask(cut));
    if (this.lines.length > STDERR_LINES) this.lines.shift();
  }

  /** Text that may hold the server's environment values, masked. */
  mask(text: string): string {
    return maskSecrets(text, this.secrets);
  }

  history(): JournalEvent[] {
    return [...this.events];
  }

  stderrLines(): string[] {
    return [...this.lines];
  }
}
