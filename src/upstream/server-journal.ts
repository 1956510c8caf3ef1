/**
 * @module What the dashboard shows of one server's life: its state history (connected,
 * failed, restarted... with times) and the last lines it wrote to stderr, with its credentials
 * masked (secret-mask.ts). Kept across reconnects, restarts and config edits.
 */
import type { ServerConfig } from '../config/index.ts';
import { SecretMask } from './secret-mask.ts';

export { MASK } from './secret-mask.ts';

/** Events kept per server, and stderr lines. */
export const JOURNAL_EVENTS = 100;
export const STDERR_LINES = 200;
/** One stderr line is cut beyond this many characters. */
const STDERR_LINE_CHARS = 2_000;

/** One entry of a server's history, oldest first. */
export interface JournalEvent {
  at: string;
  /** A state (`ready`, `failed`, ...) or an action (`restarted`, `config_changed`). */
  event: string;
  detail?: string;
}

export class ServerJournal {
  private readonly events: JournalEvent[] = [];
  private readonly lines: string[] = [];
  /** Every secret of every config the server had (an old process may still print an old one), and its OAuth tokens. */
  readonly secrets = new SecretMask();

  constructor(config: ServerConfig) {
    this.configure(config);
  }

  /** The config whose credentials are masked from now on. */
  configure(config: ServerConfig): this {
    this.secrets.configure(config);
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

  /** Text that came from the server (or may quote its credentials), masked. */
  mask(text: string): string {
    return this.secrets.mask(text);
  }

  history(): JournalEvent[] {
    return [...this.events];
  }

  stderrLines(): string[] {
    return [...this.lines];
  }
}
