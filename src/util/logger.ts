/** @module The process logger: pino, always to stderr (stdout belongs to MCP stdio and CLI output). */
import pino from 'pino';
import type { LogFormat } from './log-levels.ts';

export { LOG_FORMATS, LOG_LEVELS, type LogFormat } from './log-levels.ts';

export type Logger = pino.Logger;

const LEVEL_NAMES: Record<number, string> = {
  10: 'TRACE',
  20: 'DEBUG',
  30: 'INFO',
  40: 'WARN',
  50: 'ERROR',
  60: 'FATAL',
};

/** One readable line for a pino JSON record: `12:00:01 WARN  message key=value`. */
export function textLine(json: string): string {
  let record: Record<string, unknown>;
  try {
    record = JSON.parse(json) as Record<string, unknown>;
  } catch {
    return json;
  }
  const { level, time, msg, ...rest } = record;
  const clock = new Date(typeof time === 'number' ? time : Date.now()).toISOString().slice(11, 19);
  const fields = Object.entries(rest)
    .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`)
    .join(' ');
  const name = (LEVEL_NAMES[level as number] ?? String(level)).padEnd(5);
  return `${clock} ${name} ${msg ?? ''}${fields ? ` ${fields}` : ''}\n`;
}

/** Fields added to every log line when it is written (the active span's trace ids, say). */
export type LogMixin = () => Record<string, unknown>;

/**
 * A logger writing to stderr at `level`: JSON lines, or readable lines with format `text`;
 * `mixin`'s fields join each line (and its child loggers' lines).
 */
export function createLogger(level: string, format: LogFormat = 'json', mixin?: LogMixin): Logger {
  const options = { level, base: undefined, ...(mixin ? { mixin } : {}) };
  if (format === 'text') {
    const stream = { write: (line: string) => process.stderr.write(textLine(line)) };
    return pino(options, stream);
  }
  return pino(options, pino.destination({ fd: 2, sync: true }));
}

/** A logger that drops everything (tests, embedding). */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
