/**
 * @module `codemux executions list|wait|cancel` at work, through the running gateway (a run that
 * yielded lives there; the CLI's standalone runs never yield).
 */
import type { RunSnapshot } from '../execution/index.ts';
import { EXIT_OK } from './exit-codes.ts';
import { gatewayCall, requireGateway } from './gateway-command.ts';
import type { GatewayFlags } from './options.ts';
import { printJson } from './output.ts';
import { exitCodeOfAnswer, followRun, readRun } from './run-follow.ts';
import { renderTable } from './table.ts';

interface Flags extends GatewayFlags {
  config?: string;
  output?: string;
  json?: boolean;
  status?: string;
}

const reachGateway = (flags: Flags) =>
  requireGateway(flags, 'runs that outlive their request live in the running gateway');

/** The KIND column: which tool started the run (a code tool by its name). */
const kindOf = (run: RunSnapshot) =>
  run.kind === 'code_tool' ? `code tool ${run.tool}` : run.kind;

/** The last column: the approvals awaited, else the last console line. */
function standing(run: RunSnapshot): string {
  if (run.waiting_for.length > 0) {
    return run.waiting_for
      .map((a) => `approval ${a.approval_id} of ${a.server}.${a.tool}`)
      .join(', ');
  }
  return run.logs.at(-1) ?? '';
}

export async function list(flags: Flags): Promise<void> {
  const gateway = await reachGateway(flags);
  if (!gateway) return;
  const query = flags.status ? `?status=${encodeURIComponent(flags.status)}` : '';
  const body = await gatewayCall(gateway, 'GET', `/api/v1/executions${query}`);
  const items = (body.items ?? []) as RunSnapshot[];
  if (flags.json || flags.output === 'json') {
    await printJson({ items });
    return;
  }
  if (items.length === 0) {
    process.stdout.write(flags.status ? `no ${flags.status} executions\n` : 'no executions\n');
    return;
  }
  process.stdout.write(
    renderTable(
      ['ID', 'STATUS', 'KIND', 'CALLER', 'STARTED', 'ELAPSED', 'WAITING FOR / LAST LOG'],
      items.map((run) => [
        run.execution_id,
        run.status,
        kindOf(run),
        run.caller,
        run.started_at,
        `${Math.round(run.elapsed_ms / 1000)} s`,
        standing(run),
      ]),
    ),
  );
}

/** Waits for run `id`'s end (saying at each yield what it waits for) and prints its final answer. */
export async function wait(id: string, flags: Flags): Promise<void> {
  const gateway = await reachGateway(flags);
  if (!gateway) return;
  // Answered at once: the first line on stderr says where the run stands before the wait.
  const first = await readRun(gateway, id, 0);
  const { request_id: _requestId, ...answer } = await followRun(gateway, first, process.stderr);
  await printJson(answer);
  process.exitCode = exitCodeOfAnswer(answer);
}

/** Cancels run `id` and prints its final (CANCELLED) answer; exit 0 once the gateway took it. */
export async function cancel(id: string, flags: Flags): Promise<void> {
  const gateway = await reachGateway(flags);
  if (!gateway) return;
  const { request_id: _requestId, ...answer } = await gatewayCall(
    gateway,
    'POST',
    `/api/v1/executions/${encodeURIComponent(id)}/cancel`,
  );
  await printJson(answer);
  process.exitCode = EXIT_OK;
}
