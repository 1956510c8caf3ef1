/**
 * @module Tool-definition pinning (`tool_pinning`): the SHA-256 of each tool's canonical
 * definition is pinned per server in the store; a tool whose definition differs from its pin
 * (or has none) is held and never dispatched until an administrator approves it. Checked
 * whenever a server's tool list is read (connect, tools/list_changed) and again before each call.
 * What a pin covers and how a hold is told: pinned-definition.ts.
 */
import type { ToolPinning } from '../config/index.ts';
import type { ToolPin, ToolPinStore } from '../store/index.ts';
import type { ToolInfo, UpstreamRegistry } from '../upstream/index.ts';
import type { Logger } from '../util/logger.ts';
import {
  definitionOf,
  type HeldTool,
  heldMessage,
  holdOf,
  type PinApproval,
  pinHash,
} from './pinned-definition.ts';

export class ToolPins {
  private pins = new Map<string, Map<string, ToolPin>>();
  private seen = new Set<string>();
  private readonly hashes = new WeakMap<ToolInfo, string>();
  private loaded = false;
  private changes = 0;
  /** Pins written by this instance (a reload that overlapped one reads again). */
  private writes = 0;
  private unsubscribe?: () => void;

  constructor(
    private readonly registry: UpstreamRegistry,
    private readonly mode: () => ToolPinning,
    private readonly logger: Logger,
    private readonly store?: ToolPinStore,
  ) {}

  /**
   * Changes whenever pins change (loaded, approved, first sight). A reloaded mode needs no
   * change here: applying a config re-reads the server set, which changes the registry's version.
   */
  get version(): number {
    return this.changes;
  }

  /** Loads the pins (before any server connects) and judges every tool list read from now on. */
  async start(): Promise<void> {
    await this.reload();
    this.loaded = true;
    this.registry.on('tools', (name: string) => {
      if (name === '*') for (const s of this.registry.status()) this.sight(s.name);
      else this.sight(name);
    });
    this.unsubscribe = this.store?.onChange(() => {
      this.reload().catch((error: Error) =>
        this.logger.warn({ err: error.message }, 'reloading tool pins failed'),
      );
    });
    for (const s of this.registry.status()) this.sight(s.name);
  }

  stop(): void {
    this.unsubscribe?.();
  }

  /**
   * Replaces the pins with the store's. A pin written here while the store was being read is
   * not lost: the read is made again (the store has it by then).
   */
  private async reload(): Promise<void> {
    if (!this.store) return;
    let data: Awaited<ReturnType<ToolPinStore['load']>>;
    let writes: number;
    do {
      writes = this.writes;
      data = await this.store.load();
    } while (writes !== this.writes);
    const next = new Map<string, Map<string, ToolPin>>();
    for (const p of data.pins) {
      const tools = next.get(p.server) ?? new Map<string, ToolPin>();
      next.set(p.server, tools);
      tools.set(p.tool, p);
    }
    this.pins = next;
    for (const s of data.seen) this.seen.add(s);
    this.changes++;
  }

  private hash(tool: ToolInfo): string {
    let sha = this.hashes.get(tool);
    if (sha === undefined) {
      sha = pinHash(definitionOf(tool));
      this.hashes.set(tool, sha);
    }
    return sha;
  }

  private newPin(server: string, tool: ToolInfo): ToolPin {
    return {
      server,
      tool: tool.name,
      sha256: this.hash(tool),
      definition: definitionOf(tool),
      pinned_at: new Date().toISOString(),
    };
  }

  private ready(server: string): boolean {
    return this.registry.status().some((s) => s.name === server && s.state === 'ready');
  }

  /**
   * A server's tool list was read: on its first sight ever, tofu pins that list (strict only
   * remembers the server); each held tool is logged.
   */
  private sight(server: string): void {
    const mode = this.mode();
    if (!this.loaded || mode === 'off' || !this.ready(server)) return;
    const tools = this.registry.listedTools(server);
    if (!this.seen.has(server)) {
      this.seen.add(server);
      const first = mode === 'tofu' ? tools.map((t) => this.newPin(server, t)) : [];
      this.remember(first);
      void this.store
        ?.firstSight(server, first)
        // Saved: remembered again, so a reload that read the store before the write keeps them.
        .then((wasFirst) => (wasFirst ? this.remember(first) : this.reload()))
        .catch((error: Error) =>
          this.logger.warn({ server, err: error.message }, 'saving the first tool pins failed'),
        );
    }
    for (const t of tools) {
      const held = this.judge(server, t);
      if (held) this.logger.warn({ server, tool: t.name }, heldMessage(held, mode));
    }
  }

  private remember(pins: readonly ToolPin[]): void {
    this.writes++;
    for (const p of pins) {
      const tools = this.pins.get(p.server) ?? new Map<string, ToolPin>();
      this.pins.set(p.server, tools);
      tools.set(p.tool, p);
    }
    this.changes++;
  }

  /** The hold on one listed tool, or undefined when it matches its pin. */
  private judge(server: string, tool: ToolInfo): HeldTool | undefined {
    return holdOf(server, tool, this.hash(tool), this.pins.get(server)?.get(tool.name));
  }

  /** The hold on `server`.`tool` as listed now; undefined when it may be called (or pinning is off). */
  holdOf(server: string, tool: ToolInfo): HeldTool | undefined {
    if (this.mode() === 'off') return undefined;
    // A tool list read before its 'tools' event (a lazy connect): judged on first sight now.
    if (!this.seen.has(server)) this.sight(server);
    return this.judge(server, tool);
  }

  /** The TOOL_CHANGED refusal of a held tool, for the call gate and the registry's last check. */
  refusal(server: string, tool: ToolInfo): { code: 'TOOL_CHANGED'; message: string } | undefined {
    const held = this.holdOf(server, tool);
    return held ? { code: 'TOOL_CHANGED', message: heldMessage(held, this.mode()) } : undefined;
  }

  /** The refusal of a call to `server`.`tool` by name (the call gate's check before dispatch). */
  refusalOf(server: string, tool: string): { code: 'TOOL_CHANGED'; message: string } | undefined {
    // A disabled tool is refused as one the server does not list (by the registry), not as held.
    const listed = this.registry.tools(server).find((t) => t.name === tool);
    return listed ? this.refusal(server, listed) : undefined;
  }

  /** True when `server`.`tool` has a pinned (approved) definition. */
  isPinned(server: string, tool: string): boolean {
    return this.pins.get(server)?.has(tool) === true;
  }

  /** Every held tool of every connected server, by server then tool. */
  held(): HeldTool[] {
    const out: HeldTool[] = [];
    for (const s of this.registry.status()) {
      if (s.state !== 'ready') continue;
      for (const t of this.registry.listedTools(s.name)) {
        const held = this.holdOf(s.name, t);
        if (held) out.push(held);
      }
    }
    return out.sort((a, b) =>
      a.server === b.server ? a.tool.localeCompare(b.tool) : a.server.localeCompare(b.server),
    );
  }

  /**
   * Pins `server`.`tool` if it is held and the definition listed now is the one whose digest
   * is `sha256` (the one the approver was shown); a definition that changed since stays held.
   */
  async approve(server: string, tool: string, sha256: string): Promise<PinApproval> {
    const held = this.held().find((h) => h.server === server && h.tool === tool);
    if (!held) return { ok: false, reason: 'not_held' };
    if (held.sha256 !== sha256.toLowerCase()) return { ok: false, reason: 'changed', held };
    const listed = this.registry.listedTools(server).find((t) => t.name === tool)!;
    // No await between the check and this pin: the pin is exactly the definition checked.
    const pin = this.newPin(server, listed);
    await this.store?.put([pin]);
    this.seen.add(server);
    this.remember([pin]);
    this.logger.info({ server, tool, sha256: pin.sha256 }, 'tool definition approved');
    return { ok: true, approved: held };
  }
}
