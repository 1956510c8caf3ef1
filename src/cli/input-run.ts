/**
 * @module `codemux input list|answer|decline` at work, through the running gateway (the call
 * that asked waits there; an answer anywhere else would not reach it).
 */
import type { InputRecord } from '../execution/index.ts';
import { formFields } from '../execution/policy/input-form.ts';
import { CliError } from './cli-error.ts';
import { EXIT_USAGE } from './exit-codes.ts';
import { gatewayCall, requireGateway } from './gateway-command.ts';
import type { GatewayFlags } from './options.ts';
import { printJson } from './output.ts';
import { renderTable } from './table.ts';

interface Flags extends GatewayFlags {
  config?: string;
  output?: string;
  status?: string;
  set?: string[];
  json?: string;
}

const reachGateway = (flags: Flags) =>
  requireGateway(flags, 'input requests wait in the running gateway, with the call that asked');

const asked = (i: InputRecord) => (i.tool === null ? i.server : `${i.server}.${i.tool}`);

export async function list(flags: Flags): Promise<void> {
  const gateway = await reachGateway(flags);
  if (!gateway) return;
  const query = flags.status ? `?status=${encodeURIComponent(flags.status)}` : '';
  const body = await gatewayCall(gateway, 'GET', `/api/v1/inputs${query}`);
  const items = (body.items ?? []) as InputRecord[];
  if (flags.output === 'json') {
    await printJson({ items });
    return;
  }
  if (items.length === 0) {
    process.stdout.write(
      flags.status ? `no ${flags.status} input requests\n` : 'no input requests\n',
    );
    return;
  }
  process.stdout.write(
    renderTable(
      ['ID', 'STATUS', 'ASKED BY', 'FIELDS', 'CALLER', 'CREATED', 'EXPIRES / ANSWERED BY'],
      items.map((i) => [
        i.id,
        i.status,
        asked(i),
        Object.keys(formFields(i.requested_schema)).join(', '),
        i.caller ?? '',
        i.created_at,
        i.status === 'pending' ? `expires ${i.expires_at}` : (i.answered_by ?? ''),
      ]),
    ),
  );
  for (const i of items.filter((r) => r.status === 'pending'))
    process.stdout.write(`${i.id} asks: ${i.message.replace(/\s+/g, ' ')}\n`);
  const pending = items.filter((i) => i.status === 'pending').length;
  if (pending > 0) {
    process.stdout.write(
      `${pending} pending; answer with \`codemux input answer ID --set NAME=VALUE\` or \`codemux input decline ID\`\n`,
    );
  }
}

/** A --set value typed by its field: numbers, booleans and comma-separated lists as the form declares. */
function typed(field: { type?: unknown } | undefined, text: string): unknown {
  switch (field?.type) {
    case 'number':
    case 'integer': {
      const n = Number(text);
      if (text.trim() === '' || !Number.isFinite(n))
        throw new CliError(`"${text}" is not a number`, EXIT_USAGE);
      return n;
    }
    case 'boolean':
      if (text !== 'true' && text !== 'false')
        throw new CliError(`"${text}" is not true or false`, EXIT_USAGE);
      return text === 'true';
    case 'array':
      return text === '' ? [] : text.split(',');
    default:
      return text;
  }
}

/** The answer's fields from --json and --set (a --set wins over the same field in --json). */
function contentOf(flags: Flags, input: InputRecord): Record<string, unknown> {
  let content: Record<string, unknown> = {};
  if (flags.json !== undefined) {
    try {
      content = JSON.parse(flags.json);
    } catch {
      throw new CliError('--json must be a JSON object, e.g. {"name":"Ada"}', EXIT_USAGE);
    }
  }
  const fields = formFields(input.requested_schema);
  for (const pair of flags.set ?? []) {
    const at = pair.indexOf('=');
    if (at <= 0) throw new CliError(`--set takes NAME=VALUE (got "${pair}")`, EXIT_USAGE);
    const name = pair.slice(0, at);
    content[name] = typed(fields[name], pair.slice(at + 1));
  }
  return content;
}

async function send(id: string, flags: Flags, action: 'answer' | 'decline'): Promise<void> {
  const gateway = await reachGateway(flags);
  if (!gateway) return;
  const path = `/api/v1/inputs/${encodeURIComponent(id)}`;
  let content: Record<string, unknown> | undefined;
  if (action === 'answer') {
    const input = (await gatewayCall(gateway, 'GET', path)) as unknown as InputRecord;
    content = contentOf(flags, input);
  }
  const { request_id: _requestId, ...body } = await gatewayCall(
    gateway,
    'POST',
    `${path}/${action}`,
    undefined,
    content === undefined ? undefined : { content },
  );
  if (flags.output === 'json') {
    await printJson(body);
    return;
  }
  const i = body.input as InputRecord;
  process.stdout.write(`${i.status} ${i.id}: asked by ${asked(i)} (by ${i.answered_by})\n`);
}

export const answer = (id: string, flags: Flags) => send(id, flags, 'answer');
export const decline = (id: string, flags: Flags) => send(id, flags, 'decline');
