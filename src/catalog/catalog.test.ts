import { describe, expect, it } from 'vitest';
import { Catalog } from './catalog.ts';
import type { ToolEntry } from './types.ts';

const tool = (
  namespace: string,
  name: string,
  description: string,
  params: string[] = [],
): ToolEntry => ({
  namespace,
  name,
  qualifiedName: `${namespace}.${name}`,
  description,
  inputSchema: {
    type: 'object',
    properties: Object.fromEntries(params.map((p) => [p, { type: 'string' }])),
  },
});

const entries = [
  tool('crm', 'find_customer', 'Find a customer by email', ['email']),
  tool('support', 'recent_tickets', 'Recent support tickets of a customer', ['customer_id']),
  tool('support', 'create_ticket', 'Open a new support ticket', ['title']),
  tool('billing', 'current_plan', 'The billing plan a customer is on', ['customer_id']),
];
const catalog = new Catalog({
  entries: () => entries,
  toolkits: () => [
    {
      name: 'triage',
      description: 'Support triage',
      instructions: 'Find the customer first.',
      tools: ['crm.find_customer', 'support.create_ticket'],
    },
    { name: 'broken', description: 'Names a missing tool', instructions: '', tools: ['crm.nope'] },
  ],
  version: () => 1,
  maxSearchResults: () => 5,
  unavailable: () => ['search'],
});
const all = () => true;

describe('catalog', () => {
  it('lists namespaces sorted, with tool counts, as a page', () => {
    expect(catalog.run('namespaces.list', {}, all)).toEqual({
      ok: true,
      data: {
        items: [
          { namespace: 'billing', toolCount: 1 },
          { namespace: 'crm', toolCount: 1 },
          { namespace: 'support', toolCount: 2 },
        ],
        total: 3,
        limit: 20,
        offset: 0,
        hasMore: false,
      },
    });
    expect(catalog.run('namespaces.list', { limit: 1, offset: 1 }, all)).toMatchObject({
      data: { items: [{ namespace: 'crm' }], hasMore: true, nextOffset: 2, limit: 1 },
    });
    expect(catalog.run('namespaces.list', { limit: 500 }, all)).toMatchObject({
      data: { limit: 100 },
    });
  });

  it('searches names, descriptions and parameter names, best first', () => {
    const result = catalog.run('tools.search', { query: 'open a support ticket' }, all) as {
      ok: true;
      data: { items: Array<{ qualifiedName: string }> };
    };
    expect(result.data.items[0]!.qualifiedName).toBe('support.create_ticket');
    const byParam = catalog.run('tools.search', { query: 'email' }, all) as {
      ok: true;
      data: { items: Array<{ qualifiedName: string }> };
    };
    expect(byParam.data.items[0]!.qualifiedName).toBe('crm.find_customer');
    const scoped = catalog.run(
      'tools.search',
      { query: 'customer', namespace: 'billing' },
      all,
    ) as { ok: true; data: { items: unknown[] } };
    expect(scoped.data.items).toEqual([
      {
        namespace: 'billing',
        name: 'current_plan',
        qualifiedName: 'billing.current_plan',
        description: 'The billing plan a customer is on',
      },
    ]);
  });

  it('counts, lists, searches and describes only what the caller may use', () => {
    const onlySupport = (ns: string) => ns === 'support';
    expect(catalog.run('namespaces.list', {}, onlySupport)).toMatchObject({ data: { total: 1 } });
    const search = catalog.run('tools.search', { query: 'customer' }, onlySupport) as {
      ok: true;
      data: { items: Array<{ namespace: string }> };
    };
    expect(search.data.items.every((i) => i.namespace === 'support')).toBe(true);
    expect(
      catalog.run('tools.describe', { namespace: 'crm', name: 'find_customer' }, onlySupport),
    ).toMatchObject({ ok: false, error: { code: 'not_found' } });
    expect(catalog.run('toolkits.list', {}, onlySupport)).toMatchObject({ data: { items: [] } });
  });

  it('describes a tool with schemas and a TypeScript signature', () => {
    const result = catalog.run(
      'tools.describe',
      { namespace: 'crm', name: 'find_customer' },
      all,
    ) as { ok: true; data: Record<string, unknown> };
    expect(result.data).toMatchObject({
      namespace: 'crm',
      name: 'find_customer',
      qualifiedName: 'crm.find_customer',
      outputSchema: null,
    });
    expect(result.data.typescript).toContain(
      'declare function crm_find_customer(args: { email?: string })',
    );
  });

  it('shows a toolkit only when every member exists and may be used', () => {
    expect(catalog.run('toolkits.list', {}, all)).toMatchObject({
      data: { items: [{ name: 'triage', description: 'Support triage', toolCount: 2 }], total: 1 },
    });
    const kit = catalog.run('toolkits.get', { name: 'triage' }, all) as {
      ok: true;
      data: { content: string };
    };
    expect(kit.data.content).toMatch(
      /^Find the customer first\.\n\n## crm\.find_customer\nInvocation: await tools\["crm\.find_customer"\]\(args\)/,
    );
    expect(catalog.run('toolkits.get', { name: 'broken' }, all)).toMatchObject({
      ok: false,
      error: { code: 'not_found', retryable: false },
    });
  });

  it.each([
    ['tools.search', { query: '' }],
    ['tools.search', { query: 'x', limit: 0 }],
    ['tools.list', {}],
    ['tools.describe', { namespace: 'crm' }],
    ['namespaces.list', { offset: -1 }],
    ['toolkits.get', {}],
    ['tools.search', 'not an object'],
  ])('refuses %s %j with invalid_input', (op, params) => {
    expect(catalog.run(op, params, all)).toMatchObject({
      ok: false,
      error: { code: 'invalid_input', retryable: false },
    });
  });

  it('answers catalog_unavailable (retryable) for a usable server whose tools are not known yet', () => {
    expect(catalog.run('tools.list', { namespace: 'search' }, all)).toMatchObject({
      ok: false,
      error: { code: 'catalog_unavailable', retryable: true },
    });
    expect(catalog.run('tools.describe', { namespace: 'search', name: 'x' }, all)).toMatchObject({
      error: { code: 'catalog_unavailable' },
    });
    expect(
      catalog.run('tools.list', { namespace: 'search' }, (ns) => ns !== 'search'),
    ).toMatchObject({ error: { code: 'not_found' } });
  });

  it('shows the annotations a server gave a tool in search, list and describe, and none when it gave none', () => {
    const annotated: ToolEntry = {
      ...tool('files', 'delete_file', 'Delete a file by path', ['path']),
      annotations: { destructiveHint: true, idempotentHint: true },
    };
    const plain = tool('files', 'read_file', 'Read a file by path', ['path']);
    const bare: ToolEntry = {
      ...tool('files', 'stat_file', 'Stat a file by path'),
      annotations: {},
    };
    const files = new Catalog({
      entries: () => [annotated, plain, bare],
      toolkits: () => [],
      version: () => 1,
      maxSearchResults: () => 5,
      unavailable: () => [],
    });
    const hints = { destructiveHint: true, idempotentHint: true };
    const search = files.run('tools.search', { query: 'delete file' }, all) as {
      ok: true;
      data: { items: Array<Record<string, unknown>> };
    };
    expect(search.data.items[0]).toEqual({
      namespace: 'files',
      name: 'delete_file',
      qualifiedName: 'files.delete_file',
      description: 'Delete a file by path',
      annotations: hints,
    });
    const list = files.run('tools.list', { namespace: 'files' }, all) as {
      ok: true;
      data: { items: Array<Record<string, unknown>> };
    };
    expect(list.data.items.map((i) => [i.name, i.annotations])).toEqual([
      ['delete_file', hints],
      ['read_file', undefined],
      ['stat_file', undefined],
    ]);
    const described = files.run('tools.describe', { namespace: 'files', name: 'delete_file' }, all);
    expect(described).toMatchObject({
      ok: true,
      data: { qualifiedName: 'files.delete_file', annotations: hints, outputSchema: null },
    });
    const plainDescribed = files.run(
      'tools.describe',
      { namespace: 'files', name: 'read_file' },
      all,
    ) as {
      ok: true;
      data: Record<string, unknown>;
    };
    expect(plainDescribed.data).not.toHaveProperty('annotations');
  });

  it('clamps search limit to search.max_results', () => {
    const many = catalog.run('tools.search', { query: 'customer ticket plan', limit: 50 }, all) as {
      ok: true;
      data: { items: unknown[] };
    };
    expect(many.data.items.length).toBeLessThanOrEqual(5);
  });

  it('finds by the search index past max_results, or lists every tool by name for a blank query', () => {
    const names = (found: ToolEntry[]) => found.map((e) => e.qualifiedName);
    expect(names(catalog.find('customer', all, 50))).toHaveLength(3);
    expect(names(catalog.find('ticket', all, 50))[0]).toMatch(/ticket/);
    expect(names(catalog.find('  ', all, 50))).toEqual([
      'billing.current_plan',
      'crm.find_customer',
      'support.create_ticket',
      'support.recent_tickets',
    ]);
    expect(names(catalog.find('', (ns) => ns === 'support', 1))).toEqual(['support.create_ticket']);
    expect(names(catalog.find('customer', (ns) => ns === 'crm', 50))).toEqual([
      'crm.find_customer',
    ]);
  });
});
