/** @module Writes the CLI's one JSON document and exits once stdout has drained. */

/** Prints `doc` as 2-space-indented JSON on stdout. */
export function printJson(doc: unknown): Promise<void> {
  return new Promise((resolve) =>
    process.stdout.write(`${JSON.stringify(doc, null, 2)}\n`, () => resolve()),
  );
}

/** A usage problem: a line on stderr and the refusal envelope on stdout. */
export async function printUsageError(code: string, message: string): Promise<void> {
  process.stderr.write(`codemux: ${message}\n`);
  await printJson({ ok: false, error: { code, message } });
}
