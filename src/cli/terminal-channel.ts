/**
 * @module Standalone `code exec`'s caller channel: a call under `tool_policy` "ask" is put to
 * the person at the terminal (on stderr, so stdout keeps its one JSON document). Without a
 * terminal nobody could answer: the call is denied at once, saying how to get it approved.
 */
import { createInterface, type Interface } from 'node:readline';
import type { CallerChannel, Decision, InputChannel, InputRecord } from '../execution/index.ts';
import { formFields } from '../execution/policy/input-form.ts';
import type { ApprovalRecord } from '../store/index.ts';
import type { InputReply } from '../upstream/index.ts';

/** `decided_by` of an answer typed at the terminal. */
export const TERMINAL_DECIDER = 'terminal';

/** `decided_by` when stdin is not a terminal: the denial's message says how to approve instead. */
export const NOT_A_TERMINAL_DECIDER =
  'code exec (stdin is not a terminal: run it on a terminal to be asked, or run it through `codemux serve` and decide with `codemux approvals approve ID`)';

export interface TerminalOptions {
  input: NodeJS.ReadableStream;
  output: NodeJS.WritableStream;
  /** True when a person can answer on `input` (stdin is a TTY). */
  interactive: boolean;
  /** Why the terminal may not decide (tool_policy.approval_channels leaves out "cli"), read at each ask. */
  closed?: () => string | undefined;
}

/** `decided_by` when tool_policy.approval_channels leaves out "cli": nobody can decide here. */
export const CLI_CLOSED_DECIDER =
  'code exec (tool_policy.approval_channels leaves out "cli": run it through `codemux serve` and decide through a channel it lists)';

/** Who answered an upstream's form at the terminal, as the input request records it. */
const TERMINAL_ANSWERER = 'terminal';

/** A field's answer typed at the terminal, as its type says; undefined for an empty line (its default applies). */
function fieldValue(type: unknown, line: string): unknown {
  if (line === '') return undefined;
  if (type === 'number' || type === 'integer') return Number(line);
  if (type === 'boolean') return /^\s*(y|yes|true)\s*$/i.test(line);
  if (type === 'array') return line.split(',').map((v) => v.trim());
  return line;
}

/** y or yes approves; anything else (an empty line, the end of input) denies. */
export const decisionOf = (line: string | undefined): Decision =>
  /^\s*(y|yes)\s*$/i.test(line ?? '') ? 'approve' : 'deny';

/** A CallerChannel that asks on a terminal, one approval at a time; `close()` releases stdin. */
export class TerminalChannel implements CallerChannel {
  private reader?: Interface;
  private readonly lines: string[] = [];
  private waiting?: (line: string | undefined) => void;
  private ended = false;
  /** Calls held together (call_tools) are asked one after the other. */
  private turn: Promise<unknown> = Promise.resolve();

  constructor(private readonly options: TerminalOptions) {}

  ask(
    approval: ApprovalRecord,
    signal: AbortSignal,
  ): Promise<{ decision: Decision; by: string } | undefined> {
    const name = `${approval.server}.${approval.tool}`;
    const closed = this.options.closed?.();
    if (closed) {
      this.say(`codemux: ${name} needs approval (${approval.reason}): denied; ${closed}\n`);
      return Promise.resolve({ decision: 'deny', by: CLI_CLOSED_DECIDER });
    }
    if (!this.options.interactive) {
      this.say(
        `codemux: ${name} needs approval (${approval.reason}) and stdin is not a terminal: denied\n`,
      );
      return Promise.resolve({ decision: 'deny', by: NOT_A_TERMINAL_DECIDER });
    }
    const mine = this.turn.then(() => this.prompt(approval, name, signal));
    this.turn = mine.catch(() => undefined);
    return mine;
  }

  /**
   * An upstream's form, put to the person at the terminal field by field (an empty line leaves
   * a field to its default, `-` declines); without a terminal it is declined at once.
   */
  readonly askInput: InputChannel = (input, signal) => {
    const who = input.tool === null ? input.server : `${input.server}.${input.tool}`;
    if (!this.options.interactive) {
      this.say(`codemux: ${who} asks for input and stdin is not a terminal: declined\n`);
      return Promise.resolve({ reply: { action: 'decline' }, by: TERMINAL_ANSWERER });
    }
    const mine = this.turn.then(() => this.promptInput(input, who, signal));
    this.turn = mine.catch(() => undefined);
    return mine;
  };

  private async promptInput(
    input: InputRecord,
    who: string,
    signal: AbortSignal,
  ): Promise<{ reply: InputReply; by: string } | undefined> {
    if (signal.aborted) return undefined;
    this.say(
      `\ncodemux: ${who} asks for input (${input.id}); \`-\` declines\n  ${input.message}\n`,
    );
    const required = new Set(input.requested_schema.required as string[] | undefined);
    const content: Record<string, unknown> = {};
    for (const [name, field] of Object.entries(formFields(input.requested_schema))) {
      const hint = [
        field.type,
        required.has(name) ? 'required' : '',
        field.default === undefined ? '' : `default ${JSON.stringify(field.default)}`,
      ]
        .filter(Boolean)
        .join(', ');
      this.say(`${name} (${hint}): `);
      const line = await this.nextLine(signal);
      if (signal.aborted) return undefined;
      if (line === undefined || line.trim() === '-')
        return { reply: { action: 'decline' }, by: TERMINAL_ANSWERER };
      const value = fieldValue(field.type, line);
      if (value !== undefined) content[name] = value;
    }
    return { reply: { action: 'accept', content: content as never }, by: TERMINAL_ANSWERER };
  }

  /** Stops reading the terminal (the process can exit). Idempotent. */
  close(): void {
    this.reader?.close();
    this.reader = undefined;
  }

  private async prompt(
    approval: ApprovalRecord,
    name: string,
    signal: AbortSignal,
  ): Promise<{ decision: Decision; by: string } | undefined> {
    if (signal.aborted) return undefined;
    this.say(
      `\ncodemux: ${name} needs approval (tool_policy: ${approval.reason})\n` +
        `  approval   ${approval.id}\n` +
        `  arguments  ${JSON.stringify(approval.args)}\n` +
        // Never a silent cut: the keys left out (over 64 KiB) are named.
        (approval.args_truncated
          ? `  not shown  ${approval.args_cut_keys.join(', ')} (the arguments are over 64 KiB; the digest covers them all)\n`
          : '') +
        'Approve? [y/N] ',
    );
    const line = await this.nextLine(signal);
    if (signal.aborted) {
      this.say(
        `\ncodemux: approval ${approval.id} is no longer waiting (expired or the run ended)\n`,
      );
      return undefined;
    }
    return { decision: decisionOf(line), by: TERMINAL_DECIDER };
  }

  /** The next line typed; undefined at the end of input or when `signal` aborts. */
  private nextLine(signal: AbortSignal): Promise<string | undefined> {
    const buffered = this.lines.shift();
    if (buffered !== undefined) return Promise.resolve(buffered);
    if (this.ended) return Promise.resolve(undefined);
    this.open();
    return new Promise((resolve) => {
      const onAbort = () => finish(undefined);
      const finish = (line: string | undefined) => {
        signal.removeEventListener('abort', onAbort);
        this.waiting = undefined;
        resolve(line);
      };
      this.waiting = finish;
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  private open(): void {
    if (this.reader) return;
    // Not a readline "terminal": the TTY's own line discipline echoes and edits the answer.
    this.reader = createInterface({ input: this.options.input, terminal: false });
    this.reader.on('line', (line) => {
      if (this.waiting) this.waiting(line);
      else this.lines.push(line);
    });
    this.reader.on('close', () => {
      this.ended = true;
      this.waiting?.(undefined);
    });
  }

  private say(text: string): void {
    this.options.output.write(text);
  }
}
