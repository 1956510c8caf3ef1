/** @module Playground: code, input, language and the dry-run switch -> POST /api/v1/code/exec; the Result region. */
import { api, errorText, seg } from '../api.ts';
import { byId, h, say } from '../dom.ts';
import { codeEditor } from '../editor.ts';
import { outputBlock } from '../output.ts';

const SAMPLE = `// Upstream tools: call_tool(server, tool, args), or await tools.<server>.<tool>(args)
console.log('input is', JSON.stringify(input));
return { hello: input.name ?? 'world' };
`;

interface ToolCall {
  server: string;
  tool: string;
  ok: boolean;
  duration_ms: number;
  code?: string;
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
          `${call.duration_ms} ms${call.ok ? '' : ` ${call.code ?? 'failed'}`}`,
        ),
      );
    }),
  );
}

/**
 * `?from=ID`: the program of an activity record (its code, input and language), to run again
 * from the Activity page's "Re-run in Playground".
 */
async function loadRecord(id: string, editor: { set(code: string): void }): Promise<void> {
  const answer = await api('GET', `/activity/${seg(id)}`);
  if (answer.status !== 200) return say(errorText(answer), true);
  const record = answer.json as { code?: unknown; input?: unknown; language?: unknown };
  if (typeof record.code !== 'string') {
    return say(`Activity record ${id} has no program to run.`, true);
  }
  editor.set(record.code);
  byId<HTMLTextAreaElement>('input').value = JSON.stringify(record.input ?? {}, null, 2);
  if (record.language === 'javascript' || record.language === 'typescript') {
    byId<HTMLSelectElement>('language').value = record.language;
  }
  say(`Loaded the program of activity record ${id}; Run runs it again.`);
}

export function playgroundPage(): void {
  const editor = codeEditor(byId('code-editor'), SAMPLE);
  const from = new URLSearchParams(location.search).get('from');
  if (from) void loadRecord(from, editor);
  const form = byId<HTMLFormElement>('play-form');
  const result = byId('result');
  const dryRunSwitch = byId<HTMLInputElement>('dry-run');
  dryRunSwitch.addEventListener('change', () =>
    dryRunSwitch.setAttribute('aria-checked', String(dryRunSwitch.checked)),
  );
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    let input: unknown;
    try {
      input = JSON.parse(byId<HTMLTextAreaElement>('input').value || '{}');
    } catch (error) {
      result.replaceChildren(
        h('p', { class: 'error' }, `Input is not valid JSON: ${(error as Error).message}`),
      );
      return;
    }
    const dryRun = byId<HTMLInputElement>('dry-run').checked;
    result.replaceChildren(h('p', {}, 'Running…'));
    const answer = await api(
      'POST',
      '/code/exec',
      {
        code: editor.get(),
        input,
        language: byId<HTMLSelectElement>('language').value,
        ...(dryRun ? { dry_run: true } : {}),
      },
      { 'x-codemux-surface': 'ui' },
    );
    const body = answer.json;
    const calls = (body.tool_calls ?? []) as ToolCall[];
    const record = body.activity_id
      ? [
          h(
            'p',
            {},
            h(
              'a',
              { href: `/ui/activity/${encodeURIComponent(body.activity_id)}` },
              'Activity record',
            ),
          ),
        ]
      : [];
    result.replaceChildren(
      h(
        'p',
        { class: body.ok ? 'ok' : 'error' },
        body.ok ? 'Value' : `Error ${body.error?.code ?? answer.status}`,
        dryRun ? ' (dry run: upstream calls were answered with stubs)' : '',
        body.stats ? ` · ${ms(body.stats.duration_ms)}` : '',
      ),
      outputBlock(body.ok ? body.value : (body.error ?? body), body.ok ? 'Value' : 'Error'),
      h('h2', {}, 'Logs'),
      body.logs?.length
        ? outputBlock(body.logs.join('\n'), 'Logs')
        : h('p', { class: 'hint' }, 'No logs.'),
      h('h2', {}, 'Tool calls'),
      calls.length ? timeline(calls) : h('p', { class: 'hint' }, 'No tool calls.'),
      ...record,
    );
  });
}
