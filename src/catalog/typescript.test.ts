import { describe, expect, it } from 'vitest';
import { toolSignature } from './typescript.ts';

const entry = (inputSchema: Record<string, unknown>, outputSchema?: Record<string, unknown>) => ({
  namespace: 'ns',
  name: 'tool',
  qualifiedName: 'ns.tool',
  description: 'Does a thing.',
  inputSchema,
  outputSchema,
});

describe('toolSignature', () => {
  it('writes required and optional fields, enums, unions and arrays', () => {
    const ts = toolSignature(
      entry({
        type: 'object',
        properties: {
          city: { type: 'string', enum: ['Paris', 'Rome'] },
          days: { type: 'integer' },
          tags: { type: 'array', items: { type: 'string' } },
          when: { anyOf: [{ type: 'string' }, { type: 'null' }] },
          'odd-name': { type: 'boolean' },
        },
        required: ['city'],
      }),
    );
    expect(ts).toContain(
      'declare function ns_tool(args: { city: "Paris" | "Rome"; days?: number; tags?: Array<string>; when?: string | null; "odd-name"?: boolean }): Promise<ToolEnvelope<any>>;',
    );
    expect(ts).toContain('/** Does a thing. */');
  });

  it('turns $ref / $defs into named aliases and stops on recursion', () => {
    const ts = toolSignature(
      entry({
        type: 'object',
        properties: { root: { $ref: '#/$defs/Node' } },
        required: ['root'],
        $defs: {
          Node: {
            type: 'object',
            properties: {
              value: { type: 'number' },
              children: { type: 'array', items: { $ref: '#/$defs/Node' } },
            },
          },
        },
      }),
    );
    expect(ts).toContain('type Node = { value?: number; children?: Array<Node> };');
    expect(ts).toContain('args: { root: Node }');
  });

  it('types data from the output schema', () => {
    const ts = toolSignature(
      entry(
        { type: 'object', properties: {} },
        { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] },
      ),
    );
    // Data is open: a server may send more than its output schema names.
    expect(ts).toContain('Promise<ToolEnvelope<{ n: number; [key: string]: any }>>');
  });

  it('falls back to any for what it cannot read', () => {
    const ts = toolSignature(
      entry({
        type: 'object',
        properties: { x: {}, y: { $ref: 'http://elsewhere/schema' }, z: { not: {} } },
      }),
    );
    expect(ts).toContain('x?: any; y?: any; z?: any');
  });
});
