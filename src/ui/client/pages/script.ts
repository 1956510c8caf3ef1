/**
 * @module One stored script (GET /api/v1/code/scripts/{name}): its source highlighted, read
 * only, and Run with an Input (POST /api/v1/code/exec with `script`); the Result region.
 */
import { api, errorText, seg } from '../api.ts';
import { byId, h, say } from '../dom.ts';
import { codeEditor } from '../editor.ts';
import { runProgram } from '../run-program.ts';
import { onSubmitOnce, parseJsonField, showRun } from '../run-result.ts';

export async function scriptPage(main: HTMLElement): Promise<void> {
  const name = main.dataset.name ?? '';
  const answer = await api('GET', `/code/scripts/${seg(name)}`);
  if (!answer.json.success) {
    // Nothing to run: the form goes, the reason stays.
    byId('run-form').hidden = true;
    return say(errorText(answer), true);
  }
  const script = answer.json.data as { language: string; path: string; source: string };
  byId('script-file').textContent = `${script.path} (${script.language})`;
  codeEditor(byId('source-editor'), script.source, {
    typescript: script.language === 'typescript',
    readOnly: true,
  });
  const result = byId('result');
  onSubmitOnce(byId<HTMLFormElement>('run-form'), result, async () => {
    const input = parseJsonField('Input', byId<HTMLTextAreaElement>('input').value);
    if (!input.ok) {
      result.replaceChildren(h('p', { class: 'error' }, input.message));
      return;
    }
    result.replaceChildren(h('p', {}, 'Running…'));
    const run = await runProgram({ script: name, input: input.value });
    showRun(result, run);
    const ok = run.json.ok === true;
    say(ok ? `${name} ran` : `${name} failed`, !ok);
  });
}
