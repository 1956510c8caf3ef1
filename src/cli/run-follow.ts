/**
 * @module Follows a run on the gateway that answered `running` until its end, for `code exec`
 * and `executions wait`: at each yield one stderr line says what it waits for (the approval, or
 * its last console line), then `GET /api/v1/executions/{id}?wait_ms=` waits again.
 */
import { MAX_WAIT_MS } from '../config/defaults.ts';
import type { AwaitedApproval, AwaitedInput, Envelope } from '../execution/index.ts';
import { CliError } from './cli-error.ts';
import { EXIT_FAILED, EXIT_OK, exitCodeFor } from './exit-codes.ts';
import { CLIENT_GRACE_MS, type FoundGateway, gatewayRequest } from './gateway-client.ts';

/** A REST answer body. */
type Body = Record<string, unknown>;

/** True when a REST body is the running answer of a run that yielded. */
export function isRunning(body: Body): boolean {
  return body.ok === true && body.status === 'running' && typeof body.execution_id === 'string';
}

/** The longest console line quoted in the still-running line. */
const LOG_LINE_CHARS = 200;

/** A console line as one stderr line: newlines folded, cut to LOG_LINE_CHARS. */
function oneLine(text: string): string {
  const line = text.replace(/\s*\n\s*/g, ' ');
  return line.length > LOG_LINE_CHARS ? `${line.slice(0, LOG_LINE_CHARS - 1)}…` : line;
}

/** What a running answer waits for: its approvals, else its last console line, else its time. */
function waitingOn(body: Body): string {
  const approvals = (body.waiting_for as AwaitedApproval[] | undefined) ?? [];
  if (approvals.length > 0) {
    return approvals
      .map((a) => `waiting for approval ${a.approval_id} of ${a.server}.${a.tool}`)
      .join(', ');
  }
  const inputs = (body.waiting_for_input as AwaitedInput[] | undefined) ?? [];
  if (inputs.length > 0) {
    return inputs
      .map(
        (i) =>
          `waiting for input ${i.input_id} asked by ${i.tool === null ? i.server : `${i.server}.${i.tool}`}`,
      )
      .join(', ');
  }
  const logs = (body.logs as string[] | undefined) ?? [];
  const last = logs.at(-1);
  if (last !== undefined) return oneLine(last);
  return `${Math.round(Number(body.elapsed_ms ?? 0) / 1000)} s so far, no console line yet`;
}

/** The stderr line at each yield: `still running (execution ID): waiting for approval A of server.tool`. */
export function stillRunningLine(body: Body): string {
  return `codemux: still running (execution ${String(body.execution_id)}): ${waitingOn(body)}\n`;
}

/** The line after the first yield: the run goes on without this command. */
const leftRunningLine = (id: string) =>
  `codemux: the run goes on in the gateway if this command stops: \`codemux executions wait ${id}\` waits for it again, \`codemux executions cancel ${id}\` stops it\n`;

/**
 * Waits on the running answer `body` until the run ends; returns its final answer (the body
 * `POST /api/v1/code/exec` gives a run that never yielded). `waitMs` is each wait's
 * `wait_ms` (undefined: the gateway's code_execution_yield_ms). A refusal (the run is gone) is
 * a CliError with the gateway's message, exit 1.
 */
export async function followRun(
  gateway: FoundGateway,
  body: Body,
  err: NodeJS.WritableStream,
  waitMs?: number,
): Promise<Body> {
  const id = String(body.execution_id);
  let answer = body;
  let first = true;
  while (isRunning(answer)) {
    err.write(stillRunningLine(answer));
    if (first) err.write(leftRunningLine(id));
    first = false;
    answer = await readRun(gateway, id, waitMs);
  }
  return answer;
}

/**
 * `GET /api/v1/executions/{id}?wait_ms=`: the run's answer once it ends or `waitMs` pass
 * (undefined: the gateway's code_execution_yield_ms). An id the gateway does not know for this
 * key is a CliError with its message (it names the id), exit 1.
 */
export async function readRun(gateway: FoundGateway, id: string, waitMs?: number): Promise<Body> {
  const query = waitMs === undefined ? '' : `?wait_ms=${waitMs}`;
  const reply = await gatewayRequest(
    gateway,
    'GET',
    `/api/v1/executions/${encodeURIComponent(id)}${query}`,
    { timeoutMs: (waitMs ?? MAX_WAIT_MS) + CLIENT_GRACE_MS },
  );
  if (reply.status === 404) {
    const error = reply.body.error as { message?: string } | undefined;
    throw new CliError(error?.message ?? `no execution ${id} on the gateway`, EXIT_FAILED);
  }
  return reply.body;
}

/**
 * The exit code of a final answer: a code_execution answer's as `code exec` gives it (0, 1,
 * or 2 for a refused request); a run of code mode's `execute` 0 when it completed, else 1.
 */
export function exitCodeOfAnswer(body: Body): number {
  if (typeof body.ok === 'boolean') return exitCodeFor(body as unknown as Envelope);
  return body.status === 'completed' ? EXIT_OK : EXIT_FAILED;
}
