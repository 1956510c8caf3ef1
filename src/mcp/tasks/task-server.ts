/**
 * @module The 2.x SDK's Server, able to answer a tools/call with a task: the SDK (2.4.0) has no
 * tasks of its own and checks every tools/call result against CallToolResult, which refuses a
 * CreateTaskResult (2025-11-25 `{task}`; 2026-07-28 `resultType: "task"`). Its protected
 * `_wrapHandler` hook (meant for subclasses) is where that check runs: a task passes it untouched,
 * every other result is checked as before.
 */
import { Server } from '@modelcontextprotocol/server';

/** Carries a task past the SDK's tools/call result check. */
class TaskAnswer {
  constructor(readonly result: Record<string, unknown>) {}
}

/** True for a CreateTaskResult of either revision. */
function isTaskResult(result: unknown): result is Record<string, unknown> {
  if (typeof result !== 'object' || result === null) return false;
  const value = result as Record<string, unknown>;
  return value.resultType === 'task' || (typeof value.task === 'object' && !('content' in value));
}

export class TaskServer extends Server {
  protected override _wrapHandler(
    method: string,
    handler: Parameters<Server['_wrapHandler']>[1],
  ): ReturnType<Server['_wrapHandler']> {
    if (method !== 'tools/call') return super._wrapHandler(method, handler);
    const checked = super._wrapHandler(method, async (request, ctx) => {
      const result = await handler(request, ctx);
      if (isTaskResult(result)) throw new TaskAnswer(result);
      return result;
    });
    return async (request, ctx) => {
      try {
        return await checked(request, ctx);
      } catch (error) {
        if (error instanceof TaskAnswer) return error.result as never;
        throw error;
      }
    };
  }
}
