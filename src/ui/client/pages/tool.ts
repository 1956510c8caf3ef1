/**
 * @module One tool (GET /api/v1/tools/{server}/{tool}): its description, policy verdict and
 * annotations, TypeScript signature, input schema, and a Try form generated from the schema.
 * Try runs `call_tool` in a program (POST /api/v1/code/exec), so the call meets tool_policy,
 * approvals, held tools and disabled servers, and is recorded, as any program's call is.
 */
import { type ApiAnswer, api, errorText, seg } from '../api.ts';
import { badge, byId, h, say } from '../dom.ts';
import { outputBlock } from '../output.ts';
import { howToDecide, watchPendingApprovals } from '../pending-approvals.ts';
import { runProgram } from '../run-program.ts';
import { type Outcome, onSubmitOnce, programOutcome, showRun } from '../run-result.ts';
import { schemaForm } from '../schema-form.ts';
import { annotationsCell } from './servers.ts';

interface ToolDetail {
  server: string;
  tool: string;
  description: string;
  input_schema: Record<string, unknown>;
  output_schema?: Record<string, unknown>;
  annotations?: Record<string, unknown>;
  held?: boolean;
  signature: string;
  policy: { action: 'allow' | 'ask' | 'deny'; reason: string };
}

/** The program Try runs: one call, its envelope as the value. */
export const TRY_PROGRAM = 'return await call_tool(input.server, input.tool, input.args);';
/** The call's own outcome: its result, or its error (POLICY_DENIED, TOOL_ERROR...) clearly. */
function callOutcome(answer: ApiAnswer): Outcome {
  const body = answer.json;
  if (!body.ok) return programOutcome(answer);
  const envelope = body.value;
  if (envelope?.ok) return { ok: true, title: 'Result', value: envelope.result };
  const error = envelope?.error ?? {};
  return {
    ok: false,
    title: `Error ${error.code ?? 'unknown'}: ${error.message ?? 'the call failed'}`,
    value: envelope,
  };
}

function waitingNote(): HTMLElement {
  return h(
    'p',
    { class: 'waiting' },
    'Waiting for approval… tool_policy holds this call; ',
    ...howToDecide(undefined),
  );
}

/**
 * Until the returned stop is called, looks for a pending approval of `server`.`tool` and calls
 * `onPending` once it sees one (the policy may have changed since the page was loaded).
 */
function watchApprovals(server: string, tool: string, onPending: () => void): () => void {
  return watchPendingApprovals((items) => {
    if (!items.some((a) => a.server === server && a.tool === tool)) return false;
    onPending();
    return true;
  });
}

function facts(d: ToolDetail): HTMLElement[] {
  const row = (term: string, ...value: Array<Node | string>) => [
    h('dt', {}, term),
    h('dd', {}, ...value),
  ];
  const tags = annotationsCell(d.annotations);
  return [
    ...row('Policy', badge(d.policy.action), ` ${d.policy.reason}`),
    ...row('Annotations', ...tags.childNodes),
    ...(d.held ? row('Held', badge('held'), ' until an administrator approves it (Servers)') : []),
  ];
}

export async function toolPage(main: HTMLElement): Promise<void> {
  const server = main.dataset.server ?? '';
  const tool = main.dataset.tool ?? '';
  const answer = await api('GET', `/tools/${seg(server)}/${seg(tool)}`);
  if (answer.status !== 200) return say(errorText(answer), true);
  const d = answer.json as ToolDetail;
  byId('description').textContent = d.description || '(no description)';
  byId('facts').replaceChildren(...facts(d));
  byId('signature').replaceChildren(outputBlock(d.signature, 'Signature'));
  byId('schema').replaceChildren(outputBlock(d.input_schema, 'Input schema'));
  const form = schemaForm(d.input_schema, 'arg');
  byId('try-fields').replaceChildren(...form.fields);
  const result = byId('result');
  onSubmitOnce(byId<HTMLFormElement>('try-form'), result, async () => {
    const read = form.read();
    if (!read.ok) {
      result.replaceChildren(h('p', { class: 'error' }, read.message));
      return;
    }
    const waiting = () => {
      result.replaceChildren(waitingNote());
      say('Waiting for approval…');
    };
    if (d.policy.action === 'ask') waiting();
    else result.replaceChildren(h('p', {}, 'Running…'));
    const stop = watchApprovals(server, tool, waiting);
    let run: ApiAnswer;
    try {
      run = await runProgram({ code: TRY_PROGRAM, input: { server, tool, args: read.args } });
    } finally {
      stop();
    }
    showRun(result, run, callOutcome(run));
    say(
      run.json.ok && run.json.value?.ok ? `${server}.${tool} answered` : `${server}.${tool} failed`,
      !(run.json.ok && run.json.value?.ok),
    );
  });
}
