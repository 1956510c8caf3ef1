/**
 * @module `codemux activity list|show` at work: the history, through the running gateway when one
 * answers, else straight from the database in the config's data dir.
 */
import type { ResolvedConfig } from '../config/index.ts';
import {
  type ActivityPage,
  type ActivityWithChildren,
  parseActivityQuery,
} from '../execution/index.ts';
import type { ActivityRecord } from '../store/index.ts';
import { CliError } from './cli-error.ts';
import { EXIT_FAILED } from './exit-codes.ts';
import { type FoundGateway, findGateway, gatewayRequest } from './gateway-client.ts';
import { loadConfigOrExit } from './load-config.ts';
import type { GatewayFlags } from './options.ts';
import { printJson } from './output.ts';
import { renderTable } from './table.ts';

interface ListFlags extends GatewayFlags {
  config?: string;
  output?: string;
  limit?: string;
  offset?: string;
  status?: string;
  server?: string;
  kind?: string;
  parentId?: string;
  since?: string;
  until?: string;
  surface?: string;
  caller?: string;
  tool?: string;
  search?: string;
}

const REQUEST_TIMEOUT_MS = 10_000;

/** The gateway's answer, or its refusal as a CliError (exit 2 for a bad filter). */
async function fromGateway(gateway: FoundGateway, path: string): Promise<Record<string, unknown>> {
  const { status, body } = await gatewayRequest(gateway, 'GET', path, {
    timeoutMs: REQUEST_TIMEOUT_MS,
  });
  if (status >= 400) {
    const error = body.error as { message?: string } | undefined;
    throw new CliError(
      error?.message ?? `the gateway answered ${status}`,
      status === 404 ? EXIT_FAILED : undefined,
    );
  }
  return body;
}

/** Runs `read` on the data dir's database (SQLite opens only here, when no gateway answers). */
async function fromDatabase<T>(
  config: ResolvedConfig,
  read: (store: import('../store/index.ts').Store) => Promise<T>,
): Promise<T> {
  const { openStoreOrExit } = await import('./open-store.ts');
  const store = await openStoreOrExit(config);
  try {
    return await read(store);
  } finally {
    await store.close();
  }
}

const short = (text: string | null, width: number) =>
  text === null ? '' : text.length > width ? `${text.slice(0, width - 1)}…` : text;

function what(r: ActivityRecord): string {
  if (r.kind === 'tool_call') return `${r.server}.${r.tool}`;
  if (r.tool) return `code tool ${r.tool}`;
  if (r.script) return `script ${r.script}`;
  return short((r.code ?? '').replace(/\s+/g, ' '), 40);
}

function table(records: readonly ActivityRecord[]): string {
  return renderTable(
    ['ID', 'STARTED', 'KIND', 'SURFACE', 'CALLER', 'STATUS', 'MS', 'WHAT', 'ERROR'],
    records.map((r) => [
      r.id,
      r.started_at,
      r.kind,
      r.surface,
      r.caller,
      r.status,
      String(Math.round(r.duration_ms)),
      what(r),
      r.error ? short(`${r.error.code}: ${r.error.message}`, 60) : '',
    ]),
  );
}

export async function list(flags: ListFlags): Promise<void> {
  const config = loadConfigOrExit(flags);
  if (!config) return;
  const params = {
    limit: flags.limit,
    offset: flags.offset,
    status: flags.status,
    server: flags.server,
    kind: flags.kind,
    parent_id: flags.parentId,
    since: flags.since,
    until: flags.until,
    surface: flags.surface,
    caller: flags.caller,
    tool: flags.tool,
    search: flags.search,
  };
  const parsed = parseActivityQuery(params);
  if (!parsed.ok)
    throw new CliError(parsed.message.replace(/^(\w+)/, (m) => `--${m.replace('_', '-')}`));
  const gateway = await findGateway(config, flags);
  let page: ActivityPage;
  if (gateway) {
    const query = new URLSearchParams(
      Object.entries(params).filter((e): e is [string, string] => e[1] !== undefined),
    );
    page = (await fromGateway(gateway, `/api/v1/activity?${query}`)) as unknown as ActivityPage;
  } else {
    const { items, total } = await fromDatabase(config, (store) =>
      store.activity.list(parsed.query),
    );
    page = { items, total, limit: parsed.query.limit, offset: parsed.query.offset };
  }
  if (flags.output === 'json') {
    await printJson(page);
    return;
  }
  process.stdout.write(table(page.items));
  process.stdout.write(
    `${page.items.length} of ${page.total} records${page.offset ? ` from ${page.offset}` : ''}\n`,
  );
}

export async function show(id: string, flags: ListFlags): Promise<void> {
  const config = loadConfigOrExit(flags);
  if (!config) return;
  const gateway = await findGateway(config, flags);
  let record: ActivityWithChildren | undefined;
  if (gateway) {
    record = (await fromGateway(
      gateway,
      `/api/v1/activity/${encodeURIComponent(id)}`,
    )) as unknown as ActivityWithChildren;
  } else {
    record = await fromDatabase(config, async (store) => {
      const found = await store.activity.get(id);
      return found ? { ...found, children: await store.activity.children(id) } : undefined;
    });
  }
  if (!record) throw new CliError(`no activity record "${id}"`, EXIT_FAILED);
  if (flags.output === 'json') {
    await printJson(record);
    return;
  }
  const { children, ...parent } = record;
  const lines = [
    `${parent.id}  ${parent.kind}  ${parent.status}  ${parent.surface}  ${parent.caller}  ${parent.started_at}  ${parent.duration_ms} ms`,
    ...(parent.error ? [`error: ${parent.error.code}: ${parent.error.message}`] : []),
    ...(parent.code ? ['code:', parent.code] : []),
    ...(parent.logs.length ? ['logs:', ...parent.logs.map((l) => `  ${l}`)] : []),
    `response: ${JSON.stringify(parent.response)}`,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  if (children.length > 0) process.stdout.write(`calls (${children.length}):\n${table(children)}`);
}
