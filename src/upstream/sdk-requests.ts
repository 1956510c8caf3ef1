/**
 * @module The requests an upstream connection makes through the 2.x SDK client in its own way:
 * every page of tools/list, tools/call's result parsed without losing a `__proto__` key, and
 * closing a connect attempt whole.
 */
import type { Client, Transport } from '@modelcontextprotocol/client';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { SdkModules } from './sdk-modules.ts';
import type { ToolInfo } from './types.ts';

/** Every page of tools/list (read page by page: no page cap, no response cache). */
export async function listAllTools(client: Client, timeoutMs: number): Promise<ToolInfo[]> {
  const tools: ToolInfo[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.request(
      { method: 'tools/list', params: cursor ? { cursor } : {} },
      { timeout: timeoutMs },
    );
    for (const t of page.tools) {
      tools.push({
        name: t.name,
        ...(t.title === undefined ? {} : { title: t.title }),
        description: t.description,
        // Already bounded one tool at a time by the transport guard (guarded-transport.ts).
        inputSchema: t.inputSchema as Record<string, unknown>,
        outputSchema: t.outputSchema as Record<string, unknown> | undefined,
        ...(t.annotations === undefined
          ? {}
          : { annotations: t.annotations as Record<string, unknown> }),
      });
    }
    cursor = page.nextCursor;
  } while (cursor);
  return tools;
}

/** Closes a connect attempt's client and its transport (the SDK may hold it mid-probe). */
export async function closeBoth(attempt: { client: Client; transport: Transport } | undefined) {
  if (!attempt) return;
  await Promise.all([
    attempt.client.close().catch(() => {}),
    attempt.transport.close().catch(() => {}),
  ]);
}

/**
 * Checks a result's shape with the SDK's schema but returns the upstream's own object:
 * zod drops (or turns into a prototype) a `__proto__` key, which must reach the guest as
 * the plain data key JSON.parse made of it.
 */
export function rawResultSchema(schema: SdkModules['CallToolResultSchema']) {
  return {
    '~standard': {
      version: 1,
      vendor: 'codemux',
      validate(data: unknown) {
        const parsed = schema['~standard'].validate(data);
        if (parsed.issues) return parsed;
        const raw = data as CallToolResult;
        return { value: Array.isArray(raw.content) ? raw : { ...raw, content: [] } };
      },
    },
  } as const;
}
