/** @module What codemux's run tools declare of MCP tasks (`execution`): a client may ask for a task, or not. */
export const TASK_SUPPORT = { taskSupport: 'optional' } as const;
