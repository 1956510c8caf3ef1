import { describe, expect, it } from 'vitest';
import { scopeDeclarations } from './declarations.ts';
import type { ToolEntry } from './types.ts';

const tool = (namespace: string, name: string, extra: Partial<ToolEntry> = {}): ToolEntry => ({
  namespace,
  name,
  qualifiedName: `${namespace}.${name}`,
  description: `${name} things`,
  inputSchema: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
  ...extra,
});

describe('scopeDeclarations', () => {
  it('declares each tool by server and name, with its doc, args and data', () => {
    const { text, servers } = scopeDeclarations({
      entries: [
        tool('crm', 'get-lead', {
          outputSchema: { type: 'object', properties: { score: { type: 'number' } } },
        }),
        tool('crm', 'list', { inputSchema: { type: 'object', properties: {} } }),
      ],
      unknownServers: [],
      dialect: 'code_execution',
    });
    expect(servers).toEqual({ crm: ['get-lead', 'list'] });
    expect(text).toContain('/** get-lead things */\n    "get-lead": { id: string };');
    expect(text).toContain('"get-lead": { score?: number; [key: string]: any };');
    expect(text).toContain(
      '"get-lead"(args: ToolArgs["crm"]["get-lead"]): Promise<ToolEnvelope<ToolData["crm"]["get-lead"]>>;',
    );
    // Every argument optional: the call may leave args out.
    expect(text).toContain('"list"(args?: ToolArgs["crm"]["list"])');
    expect(text).toContain('readonly "crm.get-lead": Tools["crm"]["get-lead"];');
    expect(text).toContain('declare function call_tool<');
    expect(text).toContain('declare var input: any;');
  });

  it('keeps the $ref aliases of two tools apart', () => {
    const schema = (type: string) => ({
      type: 'object',
      properties: { item: { $ref: '#/$defs/Item' } },
      $defs: { Item: { type } },
    });
    const { text } = scopeDeclarations({
      entries: [
        tool('a', 'one', { inputSchema: schema('string') }),
        tool('b', 'two', { inputSchema: schema('number') }),
      ],
      unknownServers: [],
      dialect: 'code_execution',
    });
    expect(text).toContain('type a_one_0_Item = string;');
    expect(text).toContain('type b_two_1_Item = number;');
  });

  it('leaves held tools out, names them, and declares unknown servers open', () => {
    const scope = scopeDeclarations({
      entries: [tool('fs', 'read'), tool('fs', 'write', { held: true })],
      unknownServers: ['github'],
      dialect: 'code_execution',
    });
    expect(scope.servers).toEqual({ fs: ['read'], github: null });
    expect(scope.held).toEqual({ fs: ['write'] });
    expect(scope.text).not.toContain('"write"');
    expect(scope.text).toContain('"github": { [tool: string]: Record<string, any> };');
  });

  it('has no call_tool, call_tools or input in the execute dialect', () => {
    const { text } = scopeDeclarations({
      entries: [tool('fs', 'read')],
      unknownServers: [],
      dialect: 'execute',
    });
    expect(text).not.toContain('call_tool');
    expect(text).not.toContain('declare var input');
    expect(text).toContain('declare var tools: Tools;');
    expect(text).toContain('declare var catalog');
  });

  it('survives hostile names and schemas: a bad $ref, a server named like an Object member', () => {
    const scope = scopeDeclarations({
      entries: [
        tool('constructor', 'x', {
          inputSchema: {
            type: 'object',
            properties: { a: { $ref: '#/$defs/%E0%A4%A' } },
            $defs: { '%E0%A4%A': { type: 'string' } },
          },
        }),
        tool('__proto__', 'y'),
      ],
      unknownServers: ['toString'],
      dialect: 'code_execution',
    });
    expect(Object.keys(scope.servers)).toEqual(['constructor', '__proto__', 'toString']);
    expect(scope.text).toContain('"constructor": {');
  });

  it('gives an input and an output $defs/Item of one tool two names', () => {
    const { text } = scopeDeclarations({
      entries: [
        tool('db', 'upsert', {
          inputSchema: {
            type: 'object',
            properties: { item: { $ref: '#/$defs/Item' } },
            $defs: { Item: { type: 'object', properties: { name: { type: 'string' } } } },
          },
          outputSchema: {
            type: 'object',
            properties: { item: { $ref: '#/$defs/Item' } },
            $defs: { Item: { type: 'object', properties: { id: { type: 'number' } } } },
          },
        }),
      ],
      unknownServers: [],
      dialect: 'code_execution',
    });
    expect(text).toContain('type db_upsert_0_Item = { name?: string };');
    expect(text).toContain('type db_upsert_0_Item_2 = { id?: number; [key: string]: any };');
    expect(text).toContain('"upsert": { item?: db_upsert_0_Item_2; [key: string]: any };');
  });
});
