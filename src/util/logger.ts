/** @module The process logger: pino, always to stderr (stdout belongs to MCP stdio and CLI output). */
import pino from 'pino';

export type Logger = pino.Logger;

export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'silent'] as const;

/** A logger writing JSON lines to stderr at `level`. */
export function createLogger(level: string): Logger {
  return pino({ level, base: undefined }, pino.destination({ fd: 2, sync: true }));
}

/** A logger that drops everything (tests, embedding). */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
