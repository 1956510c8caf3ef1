import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveConfig } from '../src/config/index.ts';
import { createRuntime, type Runtime } from '../src/execution/index.ts';
import { describeCodeExecution, visibleServers } from '../src/mcp/index.ts';
import { silentLogger } from '../src/util/logger.ts';
import { FIXTURE_SERVER, ROOT, SERVERS, settle } from './helpers.ts';

const MANY = path.join(ROOT, 'test', 'fixtures', 'many-tools-server.mjs');
let runtime: Runtime;

beforeAll(async () => {
  const config = resolveConfig(
    {
      toolkits: [
        {
          name: 'echoes',
          description: 'Echo things',
          instructions: 'Use echo for everything.',
          tools: ['fixture.echo', 'everything.echo'],
        },
        {
          name: 'dangling',
          description: 'A member is missing',
          instructions: '',
          tools: ['fixture.nope'],
        },
      ],
      mcpServers: [
        SERVERS.fixture,
        SERVERS.everything,
        { name: 'many', command: process.execPath, args: [MANY, '300'] },
        { name: 'locked', command: process.execPath, args: [FIXTURE_SERVER], quarantined: true },
      ],
    },
    { baseDir: ROOT },
  );
  runtime = createRuntime(config, silentLogger(), { live: true, warmWorkers: 2 });
  await runtime.start();
  await settle(
    async () => runtime.registry.status(),
    (all) => !all.some((s) => s.state === 'connecting' || s.state === 'idle'),
    10_000,
    50,
  );
}, 30_000);

afterAll(async () => {
  await runtime.stop();
});

async function value(code: string, options?: Record<string, unknown>) {
  const result = await runtime.service.execute({ code, ...(options ? { options } : {}) });
  if (!result.envelope.ok) throw new Error(JSON.stringify(result.envelope.error));
  // biome-ignore lint/suspicious/noExplicitAny: guest values
  return result.envelope.value as any;
}

describe('catalog.* from code', () => {
  it('lists namespaces the caller may use (never a quarantined server)', async () => {
    const data = (await value('(await catalog.namespaces.list()).data')) as {
      items: Array<{ namespace: string; toolCount: number }>;
    };
    expect(data.items.map((i) => i.namespace)).toEqual(['everything', 'fixture', 'many']);
    expect(data.items.find((i) => i.namespace === 'many')!.toolCount).toBe(300);
  });

  it.each([
    ['create a calendar event', 'many.create_calendar_event'],
    ['create a new text translation', 'many.create_translation'],
    ['get the weather forecast for a city', 'many.get_weather_forecast'],
    ['delete a DNS record', 'many.delete_dns_record'],
    ['archive old wiki documentation page', 'many.archive_wiki_page'],
    ['stock quote ticker', 'many.get_stock_quote'],
    ['echo the arguments back', 'fixture.echo'],
  ])('search "%s" finds %s first among 300+ tools', async (query, expected) => {
    const items = (await value(
      `(await catalog.tools.search({query: ${JSON.stringify(query)}})).data.items`,
    )) as Array<{ qualifiedName: string }>;
    expect(items[0]!.qualifiedName).toBe(expected);
    expect(items.length).toBeLessThanOrEqual(5);
  });

  it('respects allowed_servers in search, list and describe', async () => {
    const options = { allowed_servers: ['fixture'] };
    const items = (await value(
      "(await catalog.tools.search({query: 'calendar event'})).data.items",
      options,
    )) as unknown[];
    expect(items.every((i) => (i as { namespace: string }).namespace === 'fixture')).toBe(true);
    expect(
      await value(
        "(await catalog.tools.describe({namespace: 'many', name: 'create_calendar_event'})).error.code",
        options,
      ),
    ).toBe('not_found');
    expect(await value('(await catalog.toolkits.list()).data.total', options)).toBe(0);
  });

  it('describes a real tool with its schemas and a TypeScript signature', async () => {
    const data = await value(
      "(await catalog.tools.describe({namespace: 'everything', name: 'get-structured-content'})).data",
    );
    expect(data.inputSchema.properties.location.enum).toEqual([
      'New York',
      'Chicago',
      'Los Angeles',
    ]);
    expect(data.typescript).toContain(
      'args: { /** Choose city */ location: "New York" | "Chicago" | "Los Angeles" }',
    );
    expect(data.typescript).toContain('Promise<ToolEnvelope<{');
  });

  it('lists tools of a namespace sorted, paged', async () => {
    const data = await value(
      "(await catalog.tools.list({namespace: 'many', limit: 3, offset: 3})).data",
    );
    expect(data).toMatchObject({ total: 300, limit: 3, offset: 3, hasMore: true, nextOffset: 6 });
    expect(data.items).toHaveLength(3);
  });

  it('shows a toolkit only when all its tools exist, with their invocations', async () => {
    expect(await value('(await catalog.toolkits.list()).data.items.map(k => k.name)')).toEqual([
      'echoes',
    ]);
    const content = (await value(
      "(await catalog.toolkits.get({name: 'echoes'})).data.content",
    )) as string;
    expect(content).toContain('Use echo for everything.');
    expect(content).toContain('Invocation: await tools["everything.echo"](args)');
    expect(await value("(await catalog.toolkits.get({name: 'dangling'})).error.code")).toBe(
      'not_found',
    );
  });

  it('answers invalid_input for malformed catalog calls', async () => {
    expect(await value("(await catalog.tools.search({query: ''})).error")).toEqual({
      code: 'invalid_input',
      message: 'query must be a non-empty string',
      retryable: false,
    });
  });
});

describe('tools.* input validation', () => {
  it('checks arguments against the input schema before dispatch', async () => {
    const error = await value(
      "(await tools.everything['get-structured-content']({location: 'Mars'})).error",
    );
    expect(error.code).toBe('invalid_input');
    expect(error.message).toContain(
      'everything.get-structured-content: args.location must be equal to one of the allowed values',
    );
    expect(
      await value("(await tools.everything['get-structured-content']({location: 'Chicago'})).ok"),
    ).toBe(true);
  });
});

describe('progressive disclosure in the code_execution description', () => {
  const tokens = (text: string) => Math.round(text.length / 4);

  it('lists every tool while it fits the budget, else servers with counts and catalog search', () => {
    const caller = { kind: 'admin' as const };
    const servers = visibleServers(runtime, caller);
    const small = describeCodeExecution(
      servers
        .filter((s) => s.name === 'fixture')
        .map((s) => ({ ...s, tools: s.tools.slice(0, 1) })),
      1000,
    );
    const all = describeCodeExecution(servers, 1000);
    expect(small).toContain('- fixture: echo');
    expect(tokens(all)).toBeLessThanOrEqual(1000);
    expect(all).toContain('catalog.tools.search');
    expect(all).toMatch(
      /\d+ tools on 3 servers: fixture \(\d+\), everything \(\d+\), many \(300\)/,
    );
    // The measured surface for 1, 45 and 300 upstream tools, reported in docs/catalog.md.
    const many = servers.find((s) => s.name === 'many')!;
    const figures = [1, 45, 300].map((n) => {
      const text = describeCodeExecution([{ name: 'many', tools: many.tools.slice(0, n) }], 1000);
      return `${n} tools -> ${tokens(text)} tokens${text.includes('Servers and tools:') ? ' (listed)' : ' (counts + catalog)'}`;
    });
    expect(figures[0]).toContain('(listed)');
    expect(figures[2]).toContain('(counts + catalog)');
    process.stdout.write(`description: ${figures.join('; ')}\n`);
  });
});
