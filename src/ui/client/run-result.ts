/**
 * @module The Result region of a run through POST /api/v1/code/exec (Playground, a script,
 * a tool's Try): the value or the error, the logs, the tool calls as a timeline, the record.
 */
import type { ApiAnswer } from './api.ts';
import { h, say } from './dom.ts';
import { outputBlock } from './output.ts';

interface ToolCall {
  server: string;
  tool: string;
  ok: boolean;
  duration_ms: number;
  code?: string;
}

/** What a run came to: its headline, whether it succeeded, and the value shown under it. */
export interface Outcome {
  ok: boolean;
  title: string;
  value: unknown;
}

/** A duration for people: a decimal below 10 ms, whole milliseconds above. */
export const ms = (value: number): string =>
  `${value < 10 ? value.toFixed(1) : Math.round(value)} ms`;

/** The tool calls as a timeline: one row each, its bar as long as its share of the slowest. */
function timeline(calls: ToolCall[]): HTMLElement {
  const longest = Math.max(1, ...calls.map((c) => c.duration_ms));
  return h(
    'ol',
    { class: 'timeline', 'aria-label': 'Tool calls' },
    ...calls.map((call) => {
      const bar = h('span', { class: `bar ${call.ok ? '' : 'failed'}` });
      bar.style.width = `${Math.max(2, (call.duration_ms / longest) * 100)}%`;
      return h(
        'li',
        {},
        h('span', { class: 'call' }, `${call.server}.${call.tool}`),
        h('span', { class: 'track' }, bar),
        h(
          'span',
          { class: `dur ${call.ok ? '' : 'error'}` },
          `${ms(call.duration_ms)}${call.ok ? '' : ` ${call.code ?? 'failed'}`}`,
        ),
      );
    }),
  );
}

/** The program's own outcome: its value, or its error. */
export function programOutcome(answer: ApiAnswer): Outcome {
  const body = answer.json;
  return body.ok
    ? { ok: true, title: 'Value', value: body.value }
    : { ok: false, title: `Error ${body.error?.code ?? answer.status}`, value: body.error ?? body };
}

/** Shows a run's answer in `region`, headed by `outcome`; `note` follows the headline. */
export function showRun(
  region: HTMLElement,
  answer: ApiAnswer,
  outcome: Outcome = programOutcome(answer),
  note = '',
): void {
  const body = answer.json;
  const calls = (body.tool_calls ?? []) as ToolCall[];
  region.replaceChildren(
    h(
      'p',
      { class: outcome.ok ? 'ok' : 'error' },
      outcome.title,
      note,
      body.stats ? ` · ${ms(body.stats.duration_ms)}` : '',
    ),
    outputBlock(outcome.value, outcome.ok ? 'Value' : 'Error'),
    h('h2', {}, 'Logs'),
    body.logs?.length
      ? outputBlock(body.logs.join('\n'), 'Logs')
      : h('p', { class: 'hint' }, 'No logs.'),
    h('h2', {}, 'Tool calls'),
    calls.length ? timeline(calls) : h('p', { class: 'hint' }, 'No tool calls.'),
    body.activity_id
      ? h(
          'p',
          {},
          h(
            'a',
            { href: `/ui/activity/${encodeURIComponent(body.activity_id)}` },
            'Activity record',
          ),
        )
      : '',
  );
}

/** Parses a JSON text field; the message for the Result region when it is not JSON. */
export function parseJsonField(
  label: string,
  text: string,
): { ok: true; value: unknown } | { ok: false; message: string } {
  try {
    return { ok: true, value: JSON.parse(text || '{}') };
  } catch (error) {
    return { ok: false, message: `${label} is not valid JSON: ${(error as Error).message}` };
  }
}

/**
 * Runs `work` on `form`'s submit, once at a time (its submit button is disabled meanwhile, so a
 * double click cannot send a call twice); a request that fails (the network) is said in
 * `result` and the status line instead of leaving "Running…".
 */
export function onSubmitOnce(
  form: HTMLFormElement,
  result: HTMLElement,
  work: () => Promise<void>,
): void {
  const button = form.querySelector<HTMLButtonElement>('button[type="submit"]');
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    if (button?.disabled) return;
    button?.setAttribute('disabled', '');
    try {
      await work();
    } catch (error) {
      const message = `The request failed: ${(error as Error).message}`;
      result.replaceChildren(h('p', { class: 'error' }, message));
      say(message, true);
    } finally {
      button?.removeAttribute('disabled');
    }
  });
}
