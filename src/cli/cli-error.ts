/** @module The CLI's one exceptional error: a message for one stderr line and the exit code. */
import { EXIT_USAGE } from './exit-codes.ts';

/** Thrown by a command; main.ts prints `codemux: <message>` (no stack) and exits with `exitCode`. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number = EXIT_USAGE,
  ) {
    super(message);
  }
}
