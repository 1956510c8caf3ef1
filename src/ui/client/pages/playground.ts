/** @module Playground: code, input, language and the dry-run switch -> POST /api/v1/code/exec; the Result region. */
import { api, errorText, seg } from '../api.ts';
import { byId, h, say } from '../dom.ts';
import { codeEditor } from '../editor.ts';
import { howToDecide, watchPendingApprovals } from '../pending-approvals.ts';
import { runProgram } from '../run-program.ts';
import { parseJsonField, showRun } from '../run-result.ts';

const SAMPLE = `// Upstream tools: call_tool(server, tool, args), or await tools.<server>.<tool>(args)
console.log('input is', JSON.stringify(input));
return { hello: input.name ?? 'world' };
`;

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

/**
 * Until the returned stop is called, shows in `result` each approval the admin's runs started
 * since now wait on, with a link to its row on the Approvals page: a held call never looks like a hang.
 */
function watchHeld(result: HTMLElement): () => void {
  const since = new Date().toISOString();
  const shown = new Set<string>();
  return watchPendingApprovals((items) => {
    for (const a of items) {
      if (a.caller !== 'admin' || a.created_at < since || shown.has(a.id)) continue;
      shown.add(a.id);
      result.append(
        h(
          'p',
          { class: 'waiting' },
          `Waiting for approval ${a.id} of ${a.server}.${a.tool}: `,
          ...howToDecide(a.id),
        ),
      );
      say(`Waiting for approval of ${a.server}.${a.tool}…`);
    }
    return false;
  });
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
    const input = parseJsonField('Input', byId<HTMLTextAreaElement>('input').value);
    if (!input.ok) {
      result.replaceChildren(h('p', { class: 'error' }, input.message));
      return;
    }
    const dryRun = byId<HTMLInputElement>('dry-run').checked;
    result.replaceChildren(h('p', {}, 'Running…'));
    // A dry run never asks; a real run may hold a call for a person's decision.
    const stop = dryRun ? () => {} : watchHeld(result);
    let answer: Awaited<ReturnType<typeof api>>;
    try {
      answer = await runProgram({
        code: editor.get(),
        input: input.value,
        language: byId<HTMLSelectElement>('language').value,
        ...(dryRun ? { dry_run: true } : {}),
      });
    } finally {
      stop();
    }
    showRun(
      result,
      answer,
      undefined,
      dryRun ? ' (dry run: upstream calls were answered with stubs)' : '',
    );
  });
}
