/**
 * @module A program run from the dashboard (Playground, a script, a tool's Try): `POST
 * /api/v1/code/exec`, and while the run answers running (past code_execution_yield_ms, a call
 * held for a decision), `GET /api/v1/executions/{id}` until its end, so the page shows the
 * final answer as it did before runs could yield.
 */
import { type ApiAnswer, api, seg } from './api.ts';

/** The playground's surface: the final answer carries `tool_calls` and `stats` for the timeline. */
const UI = { 'x-codemux-surface': 'ui' };

const running = (answer: ApiAnswer): boolean =>
  answer.status === 200 &&
  answer.json?.status === 'running' &&
  typeof answer.json.execution_id === 'string';

/** Runs `body` (the code_execution arguments, `dry_run` too) to its final answer. */
export async function runProgram(body: Record<string, unknown>): Promise<ApiAnswer> {
  let answer = await api('POST', '/code/exec', body, UI);
  while (running(answer)) {
    answer = await api('GET', `/executions/${seg(answer.json.execution_id)}`, undefined, UI);
  }
  return answer;
}
