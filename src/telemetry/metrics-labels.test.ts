import { describe, expect, it } from 'vitest';
import { channelLabel, dialectLabel, statusLabel, surfaceLabel } from './metrics-labels.ts';

describe('metric label values', () => {
  // One row each: the activity surface, a code tool's `via`, the surface label, the dialect label.
  it.each([
    ['mcp', undefined, 'mcp', 'code_execution'],
    ['codemode', undefined, 'mcp', 'execute'],
    ['code_tool', undefined, 'mcp', 'code_tool'],
    ['code_tool', 'ui', 'dashboard', 'code_tool'],
    ['code_tool', 'rest', 'rest', 'code_tool'],
    ['rest', undefined, 'rest', 'code_execution'],
    ['cli', undefined, 'cli', 'code_execution'],
    ['ui', undefined, 'dashboard', 'code_execution'],
    ['made-up', undefined, 'other', 'code_execution'],
  ])('surface %s (via %s) is %s, dialect %s', (recorded, via, surface, dialect) => {
    expect(surfaceLabel(recorded, via)).toBe(surface);
    expect(dialectLabel(recorded)).toBe(dialect);
  });

  // One row each: the decision, the approval's decided_by, the channel label.
  it.each([
    ['approved', 'admin', 'rest'],
    ['denied', 'admin via dashboard', 'dashboard'],
    ['approved', 'admin via cli', 'cli'],
    ['approved', 'terminal', 'cli'],
    ['denied', 'code exec (stdin is not a terminal: ...)', 'cli'],
    ['approved', 'the MCP client (elicitation)', 'elicitation'],
    ['expired', 'timeout', 'none'],
    ['expired', 'cancelled', 'none'],
    ['denied', 'someone new', 'other'],
  ])('%s by "%s" is channel %s', (decision, by, channel) => {
    expect(channelLabel(decision, by)).toBe(channel);
  });

  it('keeps statuses to the activity history set', () => {
    expect(statusLabel('tool_error')).toBe('tool_error');
    expect(statusLabel('anything a program says')).toBe('other');
  });
});
