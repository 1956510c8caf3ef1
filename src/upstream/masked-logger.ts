/**
 * @module A server's logger that masks its credentials (secret-mask.ts) out of every line it
 * writes: the connection logs what the server said (a dropped connection's reason, a failed
 * relist), and a server may quote back what codemux sent it.
 */
import type { Logger } from '../util/logger.ts';
import type { SecretMask } from './secret-mask.ts';

const LEVELS = new Set(['trace', 'debug', 'info', 'warn', 'error', 'fatal']);

function maskValue(value: unknown, secrets: Pick<SecretMask, 'mask'>): unknown {
  if (typeof value === 'string') return secrets.mask(value);
  if (value instanceof Error) return secrets.mask(value.message);
  if (typeof value !== 'object' || value === null) return value;
  // Log fields are flat ({reason, err}); one level is what the connection writes.
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [k, typeof v === 'string' ? secrets.mask(v) : v]),
  );
}

/** `logger` (and its children) with `secrets` masked out of messages and fields. */
export function maskedLogger(logger: Logger, secrets: Pick<SecretMask, 'mask'>): Logger {
  return new Proxy(logger, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (property === 'child') {
        return (bindings: Record<string, unknown>) => maskedLogger(target.child(bindings), secrets);
      }
      if (typeof property === 'string' && LEVELS.has(property) && typeof value === 'function') {
        return (...args: unknown[]) =>
          (value as (...a: unknown[]) => void).apply(
            target,
            args.map((a) => maskValue(a, secrets)),
          );
      }
      return value;
    },
  });
}
