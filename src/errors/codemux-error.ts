/** @module The one exceptional error class; expected failures are values, not throws. */

/** An exceptional failure with a string code, turned into a wire response in one place per surface. */
export class CodemuxError extends Error {
  override readonly name = 'CodemuxError';
  constructor(
    readonly code: string,
    message: string,
    readonly field?: string,
  ) {
    super(message);
  }
}

/**
 * A config file that cannot be used; the CLI exits 2 with its message, after `warnings`
 * (the file's unknown keys, found before the error, which may well be its cause).
 */
export class ConfigError extends CodemuxError {
  constructor(
    message: string,
    field?: string,
    readonly warnings: readonly string[] = [],
  ) {
    super('INVALID_CONFIG', message, field);
  }
}
