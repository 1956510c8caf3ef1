/**
 * MCP tasks, protocol revision 2025-11-25 (issue 35): the official 1.x SDK client's
 * task-augmented tools/call (`client.experimental.tasks.callToolStream`) against a real
 * `codemux serve` over Streamable HTTP and `codemux stdio`. The task is the run: its id is the
 * execution id, tasks/result answers what the call would have answered, a run held on an
 * approval shows input_required and completes once approved over REST, tasks/cancel stops it
 * (the held call is never sent), and another token sees none of it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  CallToolResultSchema,
  CreateTaskResultSchema,
  type Task,
  TaskStatusNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningGateway, startGateway, waitUntilReady } from './gateway.ts';
import { BIN, settle, writeConfig } from './helpers.ts';
import { ANNOTATED_TOOLS, MUTABLE } from './policy-fixtures.ts';

// biome-ignore lint/suspicious/noExplicitAny: JSON bodies
type Json = any;

let g: RunningGateway;
let arrivals: string;

beforeAll(async () => {
  const configFile = writeConfig({});
  const dir = path.dirname(configFile);
  const toolsFile = path.join(dir, 'tools.json');
  arrivals = path.join(dir, 'arrivals.txt');
  fs.writeFileSync(toolsFile, JSON.stringify(ANNOTATED_TOOLS));
  fs.writeFileSync(arrivals, '');
  fs.writeFileSync(
    configFile,
    JSON.stringify({
      tool_pinning: 'off',
      tool_policy: { approval_timeout_ms: 600_000 },
      mcpServers: [
        {
          name: 'mut',
          command: process.execPath,
          args: [MUTABLE],
          env: { MUTABLE_TOOLS_FILE: toolsFile, MUTABLE_ARRIVALS_FILE: arrivals },
        },
      ],
    }),
  );
  g = await startGateway(configFile);
  await waitUntilReady(g);
}, 60_000);

afterAll(async () => {
  await g?.stop();
});

const arrived = (): string[] =>
  fs
    .readFileSync(arrivals, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => line.split(' ')[0]!);

const until = <T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> =>
  settle(read, done, 20_000, 50);

const approvalsFor = async (marker: string): Promise<Json[]> =>
  (await g.rest('GET', '/api/v1/approvals')).json.items.filter(
    (a: Json) => a.args?.path === marker,
  );

const TRANSPORTS: Array<[string, () => Transport]> = [
  [
    'Streamable HTTP',
    () =>
      new StreamableHTTPClientTransport(new URL(`${g.url}/mcp`), {
        requestInit: { headers: { 'x-api-key': g.key } },
      }),
  ],
  [
    'stdio',
    () =>
      new StdioClientTransport({
        command: process.execPath,
        args: [BIN, 'stdio', '--config', g.configFile],
        stderr: 'ignore',
      }),
  ],
];

/** A connected 1.x client that records notifications/tasks/status. */
async function connect(transport: Transport): Promise<{ client: Client; statuses: Task[] }> {
  const client = new Client({ name: 'tasks-test', version: '1' });
  const statuses: Task[] = [];
  client.setNotificationHandler(TaskStatusNotificationSchema, (n) => {
    statuses.push(n.params as Task);
  });
  await client.connect(transport);
  return { client, statuses };
}

/** A task-augmented call through the SDK's own task API: every message it yields, in order. */
async function callAsTask(client: Client, name: string, args: Record<string, unknown>) {
  const messages: Json[] = [];
  const stream = client.experimental.tasks.callToolStream(
    { name, arguments: args },
    CallToolResultSchema,
    { task: { ttl: 60_000 } },
  );
  for await (const message of stream) messages.push(message);
  return messages;
}

describe.each(TRANSPORTS)('MCP tasks over %s (2025-11-25, 1.x SDK client)', (label, transport) => {
  it('code_execution declares taskSupport optional; a task-augmented call is its run, with the answer a plain call gives', async () => {
    const { client } = await connect(transport());
    try {
      const { tools } = await client.listTools();
      expect(tools.find((t) => t.name === 'code_execution')?.execution).toEqual({
        taskSupport: 'optional',
      });
      const code = "console.log('hi'); 6 * 7";
      const messages = await callAsTask(client, 'code_execution', { code });
      const created = messages.find((m) => m.type === 'taskCreated');
      const result = messages.at(-1);
      expect(created.task).toMatchObject({ status: 'working', pollInterval: 1000 });
      expect(created.task.ttl).toBeGreaterThan(0);
      expect(result.type, JSON.stringify(messages)).toBe('result');
      const taskId: string = created.task.taskId;
      // The task is the run: its id is the execution id (the activity record's id).
      expect(result.result.structuredContent).toMatchObject({
        ok: true,
        value: 42,
        logs: ['hi'],
        activity_id: taskId,
      });
      expect(result.result._meta?.['io.modelcontextprotocol/related-task']).toEqual({ taskId });
      const plain = await client.callTool({ name: 'code_execution', arguments: { code } });
      const { activity_id: _a, ...plainRest } = plain.structuredContent as Json;
      const { activity_id: _b, ...taskRest } = result.result.structuredContent;
      expect(taskRest).toEqual({ ...plainRest, stats: taskRest.stats });
      // Kept: tasks/get, tasks/result and tasks/list read it again, unchanged.
      const task = await client.experimental.tasks.getTask(taskId);
      expect(task).toMatchObject({ taskId, status: 'completed' });
      const again = await client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema);
      expect(again.structuredContent).toEqual(result.result.structuredContent);
      const { tasks } = await client.experimental.tasks.listTasks();
      expect(tasks.map((t) => t.taskId)).toContain(taskId);
      // A finished task cannot be cancelled (2025-11-25: InvalidParams).
      await expect(client.experimental.tasks.cancelTask(taskId)).rejects.toThrow(/-32602|already/);
    } finally {
      await client.close();
    }
  });

  it('tasks/cancel stops a held run: cancelled, its held call never sent', async () => {
    const marker = `/task-cancel-${label}`;
    const before = arrived().length;
    const { client } = await connect(transport());
    try {
      const created = await client.request(
        {
          method: 'tools/call',
          params: {
            name: 'code_execution',
            arguments: {
              code: `call_tool('mut','wipe',{path:'${marker}'}); call_tool('mut','write',{path:'${marker}'}); 'done'`,
            },
            task: {},
          },
        },
        CreateTaskResultSchema,
      );
      const taskId = created.task.taskId;
      await until(
        () => approvalsFor(marker),
        (items) => items.length > 0,
      );
      const cancelled = await client.experimental.tasks.cancelTask(taskId);
      expect(cancelled).toMatchObject({ taskId, status: 'cancelled' });
      const [approval] = await until(
        () => approvalsFor(marker),
        (items) => items[0]?.status === 'expired',
      );
      expect(approval.status).toBe('expired');
      const result = await client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema);
      expect(result.structuredContent).toMatchObject({ ok: false, error: { code: 'CANCELLED' } });
      expect(arrived().slice(before)).toEqual([]);
    } finally {
      await client.close();
    }
  });
});

describe('every run tool is a task (Streamable HTTP)', () => {
  it('execute on /mcp/codemode and a code tool answer through their task what their call answers', async () => {
    const codemode = new Client({ name: 'tasks-codemode', version: '1' });
    await codemode.connect(
      new StreamableHTTPClientTransport(new URL(`${g.url}/mcp/codemode`), {
        requestInit: { headers: { 'x-api-key': g.key } },
      }),
    );
    try {
      const { tools } = await codemode.listTools();
      expect(tools[0]?.execution).toEqual({ taskSupport: 'optional' });
      const messages = await callAsTask(codemode, 'execute', { code: 'return 6 * 7;' });
      const result = messages.at(-1);
      expect(result.type, JSON.stringify(messages)).toBe('result');
      expect(JSON.parse(result.result.content[0].text)).toMatchObject({
        status: 'completed',
        result: 42,
      });
      // A call code mode refuses with a JSON-RPC error: the task fails, tasks/result answers that error.
      const refused = await codemode.request(
        { method: 'tools/call', params: { name: 'execute', arguments: {}, task: {} } },
        CreateTaskResultSchema,
      );
      const taskId = refused.task.taskId;
      const plain = await codemode.callTool({ name: 'execute', arguments: {} }).catch((e) => e);
      expect(typeof plain.code, String(plain)).toBe('number');
      await expect(
        codemode.experimental.tasks.getTaskResult(taskId, CallToolResultSchema),
      ).rejects.toMatchObject({ code: plain.code, message: plain.message });
      const failed = await codemode.experimental.tasks.getTask(taskId);
      expect(failed).toMatchObject({ status: 'failed', statusMessage: expect.any(String) });
    } finally {
      await codemode.close();
    }
    expect((await g.rest('POST', '/api/v1/code-tools', { name: 'task_tool' })).status).toBe(201);
    await g.rest('PUT', '/api/v1/code-tools/task_tool', { code: "'from a code tool'" });
    const { client } = await connect(TRANSPORTS[0]![1]());
    try {
      const { tools } = await client.listTools();
      expect(tools.find((t) => t.name === 'task_tool')?.execution).toEqual({
        taskSupport: 'optional',
      });
      const messages = await callAsTask(client, 'task_tool', {});
      const created = messages.find((m) => m.type === 'taskCreated');
      const plain = await client.callTool({ name: 'task_tool', arguments: {} });
      expect(messages.at(-1).result.content).toEqual(plain.content);
      expect((await client.experimental.tasks.getTask(created.task.taskId)).status).toBe(
        'completed',
      );
    } finally {
      await client.close();
      await g.rest('DELETE', '/api/v1/code-tools/task_tool');
    }
  });
});

// Over Streamable HTTP: the approval is decided over REST of the gateway that holds the run
// (a `codemux stdio` process of its own learns of decisions made elsewhere only in a cluster).
describe('an MCP task held on an approval (Streamable HTTP)', () => {
  it('a run held on an approval shows input_required and completes once approved over REST', async () => {
    const marker = '/task-held';
    const before = arrived().length;
    const { client, statuses } = await connect(TRANSPORTS[0]![1]());
    try {
      const created = await client.request(
        {
          method: 'tools/call',
          params: {
            name: 'code_execution',
            arguments: { code: `call_tool('mut','wipe',{path:'${marker}'}); 'wiped'` },
            task: { ttl: 60_000 },
          },
        },
        CreateTaskResultSchema,
      );
      const taskId = created.task.taskId;
      const [approval] = await until(
        () => approvalsFor(marker),
        (items) => items.length > 0,
      );
      const held = await until(
        () => client.experimental.tasks.getTask(taskId),
        (t) => t.status === 'input_required',
      );
      expect(held.statusMessage).toContain(approval.id);
      expect(held.statusMessage).toContain('mut.wipe');
      // Continuing the run as a task answers at once with the same task.
      const continued = await client.request(
        {
          method: 'tools/call',
          params: { name: 'code_execution', arguments: { execution_id: taskId }, task: {} },
        },
        CreateTaskResultSchema,
      );
      expect(continued.task).toMatchObject({ taskId, status: 'input_required' });
      expect(arrived().slice(before)).toEqual([]);
      const approved = await g.rest('POST', `/api/v1/approvals/${approval.id}/approve`, {});
      expect(approved.status).toBe(200);
      const result = await client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema);
      expect(result.structuredContent).toMatchObject({ ok: true, value: 'wiped' });
      expect((await client.experimental.tasks.getTask(taskId)).status).toBe('completed');
      // notifications/tasks/status told of the hold and of the end.
      const seen = await until(
        async () => statuses.filter((s) => s.taskId === taskId).map((s) => s.status),
        (s) => s.includes('completed'),
      );
      // The hold shows in the task the call answered, or in a notification after it.
      expect([created.task.status, ...seen]).toContain('input_required');
    } finally {
      await client.close();
    }
  });
});

describe('MCP tasks are their owner’s', () => {
  it("another token's tasks/get, tasks/result and tasks/cancel answer InvalidParams; its list is empty", async () => {
    const admin = await connect(TRANSPORTS[0]![1]());
    const created = await g.rest('POST', '/api/v1/tokens', { name: 'other', servers: ['mut'] });
    const token = created.json.token ?? created.json.value?.token;
    const other = new Client({ name: 'other', version: '1' });
    await other.connect(
      new StreamableHTTPClientTransport(new URL(`${g.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    );
    try {
      const messages = await callAsTask(admin.client, 'code_execution', { code: "'mine'" });
      const taskId = messages.find((m) => m.type === 'taskCreated').task.taskId;
      const tasks = other.experimental.tasks;
      await expect(tasks.getTask(taskId)).rejects.toThrow(/EXECUTION_NOT_FOUND|names no run/);
      await expect(tasks.getTaskResult(taskId, CallToolResultSchema)).rejects.toThrow(
        /names no run/,
      );
      await expect(tasks.cancelTask(taskId)).rejects.toThrow(/names no run/);
      expect((await tasks.listTasks()).tasks).toEqual([]);
      expect((await admin.client.experimental.tasks.getTask(taskId)).status).toBe('completed');
    } finally {
      await other.close();
      await admin.client.close();
    }
  });
});
