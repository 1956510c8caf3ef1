/**
 * @module Input requests: an upstream that asks its client for input during a call (MCP
 * elicitation) is answered like an approval is decided, by whichever channel answers first:
 * the calling client's own elicitation, REST, the dashboard, the CLI; or it expires at
 * tool_policy.approval_timeout_ms. Kept on the instance that holds the call (the answer goes
 * straight to the waiting call and is never written anywhere: values are not kept).
 */
import { EventEmitter } from 'node:events';
import { MAX_PENDING_APPROVALS } from '../../config/defaults.ts';
import type { InputAsk, InputReply } from '../../upstream/index.ts';
import type { Logger } from '../../util/logger.ts';
import { sortableId } from '../../util/sortable-id.ts';
import { cutText } from '../activity/cut.ts';
import { checkAnswer, formFields } from './input-form.ts';

/** Where an input request stands. */
export const INPUT_STATUSES = ['pending', 'answered', 'declined', 'expired'] as const;
export type InputStatus = (typeof INPUT_STATUSES)[number];

/** One request for input, as the desk lists it (never with the answer's values). */
export interface InputRecord {
  id: string;
  status: InputStatus;
  server: string;
  /** The call that asked; null when the server asked while several of its calls were in flight. */
  tool: string | null;
  /** The server's question. */
  message: string;
  /** The form, as the server sent it. */
  requested_schema: Record<string, unknown>;
  /** `admin` or `token:<name>` of the call's execution; null when no call can be named. */
  caller: string | null;
  activity_id: string | null;
  created_at: string;
  expires_at: string;
  /** Who answered or declined; `timeout` or `cancelled` once expired. */
  answered_by: string | null;
  answered_at: string | null;
  instance_id: string;
}

/** Most records the desk keeps (newest; pending ones are never dropped). */
const MAX_KEPT = 500;
/** The most of the server's question a record keeps, in bytes. */
const MESSAGE_MAX_BYTES = 4096;

/** One request to put to a person. */
export interface InputHold {
  server: string;
  tool: string | null;
  ask: InputAsk;
  caller: string | null;
  activityId: string | null;
  timeoutMs: number;
}

/** The calling client's own way to answer (MCP elicitation); undefined: it cannot. */
export type InputChannel = (
  record: InputRecord,
  signal: AbortSignal,
) => Promise<{ reply: InputReply; by: string } | undefined>;

/** Why an answer was not taken, with the HTTP status REST answers it with. */
export interface AnswerRefusal {
  ok: false;
  status: 400 | 404 | 409 | 410;
  code: 'INPUT_NOT_FOUND' | 'INPUT_ANSWERED' | 'INPUT_EXPIRED' | 'INVALID_INPUT';
  message: string;
  input?: InputRecord;
}

export type AnswerOutcome = { ok: true; input: InputRecord } | AnswerRefusal;

const answerCommand = (id: string) => `codemux input answer ${id}`;

export class InputRequests {
  private readonly records = new Map<string, InputRecord>();
  private readonly waiters = new Map<string, (reply: InputReply) => void>();
  private readonly events = new EventEmitter();

  constructor(
    private readonly instanceId: () => string,
    private readonly logger: Logger,
  ) {
    this.events.setMaxListeners(0);
  }

  get pendingCount(): number {
    return this.waiters.size;
  }

  /** Newest first; only `status` when given. */
  list(status?: InputStatus): InputRecord[] {
    const all = [...this.records.values()].reverse();
    return status ? all.filter((r) => r.status === status) : all;
  }

  get(id: string): InputRecord | undefined {
    return this.records.get(id);
  }

  /** Calls `listener` on every change (asked, answered, declined, expired). */
  subscribe(listener: (input: InputRecord) => void): () => void {
    this.events.on('input', listener);
    return () => this.events.off('input', listener);
  }

  /**
   * Answers pending request `id`: accepted with `content` (checked against its form) or
   * declined. The first answer wins; `by` names who answered.
   */
  answer(id: string, reply: InputReply, by: string): AnswerOutcome {
    const record = this.records.get(id);
    if (!record)
      return refusal(
        404,
        'INPUT_NOT_FOUND',
        `no input request ${id} (codemux input list shows them)`,
      );
    if (record.status !== 'pending') {
      return record.status === 'expired'
        ? refusal(
            410,
            'INPUT_EXPIRED',
            `input request ${id} expired (${record.answered_by}) at ${record.answered_at}`,
            record,
          )
        : refusal(
            409,
            'INPUT_ANSWERED',
            `input request ${id} was already ${record.status} by ${record.answered_by} at ${record.answered_at}`,
            record,
          );
    }
    let sent = reply;
    if (reply.action === 'accept') {
      const checked = checkAnswer(record.requested_schema, reply.content);
      if (!checked.ok)
        return refusal(400, 'INVALID_INPUT', `${checked.message}; nothing was sent`, record);
      sent = { action: 'accept', content: checked.content };
    }
    // A client's cancel (its user dismissed the form) is a decline too; the server hears cancel.
    const status = sent.action === 'accept' ? 'answered' : 'declined';
    const done = this.finish(record, status, by);
    this.waiters.get(id)?.(sent);
    return { ok: true, input: done };
  }

  private finish(record: InputRecord, status: InputStatus, by: string): InputRecord {
    const done = { ...record, status, answered_by: by, answered_at: new Date().toISOString() };
    this.records.set(record.id, done);
    this.events.emit('input', done);
    // Named, never with a value.
    this.logger.info(
      { input: record.id, server: record.server, tool: record.tool },
      `input request ${record.id} ${status} (${by})`,
    );
    return done;
  }

  private keep(record: InputRecord): void {
    this.records.set(record.id, record);
    for (const [id, kept] of this.records) {
      if (this.records.size <= MAX_KEPT) break;
      if (kept.status !== 'pending') this.records.delete(id);
    }
  }

  /**
   * Puts `hold` to a person and waits for the first answer, until it expires or `signal` aborts
   * (the server or the call gave up: cancelled). Never throws. The record says how it ended.
   */
  async ask(
    hold: InputHold,
    signal: AbortSignal,
    channel?: InputChannel,
  ): Promise<{ reply: InputReply; record: InputRecord }> {
    const name = hold.tool === null ? hold.server : `${hold.server}.${hold.tool}`;
    const created = Date.now();
    const record: InputRecord = {
      id: sortableId(created),
      status: 'pending',
      server: hold.server,
      tool: hold.tool,
      message: cutText(hold.ask.message, MESSAGE_MAX_BYTES),
      requested_schema: hold.ask.requestedSchema,
      caller: hold.caller,
      activity_id: hold.activityId,
      created_at: new Date(created).toISOString(),
      expires_at: new Date(created + hold.timeoutMs).toISOString(),
      answered_by: null,
      answered_at: null,
      instance_id: this.instanceId(),
    };
    if (this.waiters.size >= MAX_PENDING_APPROVALS) {
      this.logger.warn(
        { server: hold.server },
        `${name} asked for input, but ${MAX_PENDING_APPROVALS} input requests are already pending: declined`,
      );
      return {
        reply: { action: 'decline' },
        record: { ...record, status: 'declined', answered_by: 'full' },
      };
    }
    let settle!: (reply: InputReply) => void;
    const answered = new Promise<InputReply>((resolve) => {
      settle = resolve;
    });
    this.waiters.set(record.id, settle);
    this.keep(record);
    this.events.emit('input', record);
    const fields = Object.keys(formFields(record.requested_schema));
    this.logger.warn(
      { input: record.id, server: hold.server, tool: hold.tool, caller: hold.caller },
      `${name} asks for input ${record.id} (fields: ${fields.join(', ') || 'none'}): answer with \`${answerCommand(record.id)}\`, decline with \`codemux input decline ${record.id}\`, or on the dashboard's Approvals page`,
    );
    const expire = (by: string) => {
      const now = this.records.get(record.id);
      if (now?.status !== 'pending') return;
      this.finish(now, 'expired', by);
      settle({ action: 'cancel' });
    };
    const onAbort = () => expire('cancelled');
    const timer = setTimeout(() => expire('timeout'), hold.timeoutMs);
    const asking = new AbortController();
    if (signal.aborted) onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    if (channel) void this.askChannel(channel, record, asking.signal);
    try {
      const reply = await answered;
      return { reply, record: this.records.get(record.id) ?? record };
    } finally {
      clearTimeout(timer);
      asking.abort();
      signal.removeEventListener('abort', onAbort);
      this.waiters.delete(record.id);
    }
  }

  /** Asks the caller's own client; its answer is one among the others. */
  private async askChannel(channel: InputChannel, record: InputRecord, signal: AbortSignal) {
    try {
      const answer = await channel(record, signal);
      if (!answer || signal.aborted) return;
      const taken = this.answer(record.id, answer.reply, answer.by);
      if (!taken.ok && taken.code === 'INVALID_INPUT') {
        this.logger.info(
          { input: record.id },
          `the client's answer did not fit the form (${taken.message}); another channel answers`,
        );
      }
    } catch (error) {
      if (!signal.aborted) {
        this.logger.info(
          { err: (error as Error).message, input: record.id },
          'the caller was not asked for input; another channel answers',
        );
      }
    }
  }
}

function refusal(
  status: AnswerRefusal['status'],
  code: AnswerRefusal['code'],
  message: string,
  input?: InputRecord,
): AnswerRefusal {
  return { ok: false, status, code, message, ...(input ? { input } : {}) };
}

/** A line for the history of the call that asked: what was asked and how it ended, never a value. */
export function inputNote(record: InputRecord, timeoutMs: number): string {
  const fields = Object.keys(formFields(record.requested_schema)).join(', ') || 'none';
  const asked = `input ${record.id} asked by ${record.tool === null ? record.server : `${record.server}.${record.tool}`} (fields: ${fields})`;
  switch (record.status) {
    case 'answered':
      return `${asked}: answered by ${record.answered_by}`;
    case 'declined':
      return `${asked}: declined by ${record.answered_by}`;
    case 'expired':
      return record.answered_by === 'timeout'
        ? `${asked}: nobody answered within ${timeoutMs} ms (tool_policy.approval_timeout_ms); the server was told cancel`
        : `${asked}: cancelled (the call or the server stopped waiting)`;
    default:
      return asked;
  }
}
