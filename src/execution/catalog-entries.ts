/**
 * @module The tools the catalog shows: every tool of every server that is neither disabled nor
 * quarantined; a held tool (tool-pins.ts) as it was approved, a new held one with a placeholder.
 */
import type { ToolEntry } from '../catalog/index.ts';
import type { UpstreamRegistry } from '../upstream/index.ts';
import type { ToolPins } from './tool-pins.ts';

const HELD_NEW = '(held until an administrator approves it)';

/**
 * Tools of every server that is neither disabled nor quarantined, as catalog entries. A held
 * tool is marked `held`; one whose definition changed is shown as it was approved (the
 * changed description is exactly what must not reach the agent before someone looks at it).
 */
export function catalogEntries(registry: UpstreamRegistry, pins: ToolPins): ToolEntry[] {
  const entries: ToolEntry[] = [];
  for (const server of registry.status()) {
    if (server.state === 'disabled' || server.state === 'quarantined') continue;
    for (const tool of registry.tools(server.name)) {
      const held = pins.holdOf(server.name, tool);
      const shown = held?.before ?? tool;
      entries.push({
        namespace: server.name,
        name: tool.name,
        qualifiedName: `${server.name}.${tool.name}`,
        // A new held tool has no approved text: its own is not shown until it is approved.
        description: held && !held.before ? HELD_NEW : (shown.description ?? ''),
        inputSchema: shown.inputSchema,
        outputSchema: shown.outputSchema,
        ...(shown.annotations ? { annotations: shown.annotations } : {}),
        ...(held ? { held: true } : {}),
      });
    }
  }
  return entries;
}
