/**
 * @module The code tools of a running codemux: the store behind validation, a cache of every
 * tool for listing and calls, and a `changed` event after any change (here or in another process).
 */
import { EventEmitter } from 'node:events';
import { DEFAULT_CODE_TOOL_MEMORY_MB, DEFAULT_CODE_TOOL_TIMEOUT_MS } from '../config/defaults.ts';
import type { ResolvedConfig } from '../config/index.ts';
import type { CodeTool, CodeToolStore, CodeToolVersion, ParamWrite } from '../store/index.ts';
import { type CodeToolsDocument, exportDocument, parseDocument } from './document.ts';
import { type CodeToolCaps, checkCreate, checkParam, checkSave } from './validate.ts';

export type Outcome<T> =
  | { ok: true; value: T }
  | { ok: false; reason: 'invalid' | 'not_found' | 'exists'; message: string };

const notFound = (name: string): Outcome<never> => ({
  ok: false,
  reason: 'not_found',
  message: `no code tool named "${name}"`,
});
const invalid = (message: string): Outcome<never> => ({ ok: false, reason: 'invalid', message });

/** True when the tool is offered to MCP clients: enabled with a non-empty body. */
export const isListed = (tool: CodeTool): boolean => tool.enabled && tool.code.trim() !== '';

export class CodeTools extends EventEmitter {
  private cache: CodeTool[] = [];
  private unsubscribe: (() => void) | undefined;
  private started: Promise<void> | undefined;

  constructor(
    readonly store: CodeToolStore,
    private readonly config: () => ResolvedConfig,
  ) {
    super();
  }

  /** Loads the tools and follows changes made by other processes; idempotent. */
  start(): Promise<void> {
    this.started ??= (async () => {
      this.cache = await this.store.list();
      // A reload that fails (the database went away) keeps the last good tools; the next notice retries.
      this.unsubscribe = this.store.onExternalChange(() => void this.refresh(true).catch(() => {}));
    })();
    return this.started;
  }

  stop(): void {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
  }

  private caps(): CodeToolCaps {
    return this.config().codeTools;
  }

  /** Reloads the cache; `onlyIfDifferent` for external commits, which may touch other tables. */
  private async refresh(onlyIfDifferent = false): Promise<void> {
    const next = await this.store.list();
    const same = onlyIfDifferent && JSON.stringify(next) === JSON.stringify(this.cache);
    this.cache = next;
    if (!same) this.emit('changed');
  }

  /** The tools MCP clients see: enabled and non-empty, within `scope` (undefined = all). */
  listed(scope?: readonly string[]): CodeTool[] {
    const allowed = scope ? new Set(scope) : undefined;
    return this.cache.filter((t) => isListed(t) && (!allowed || allowed.has(t.name)));
  }

  /** A listed tool by name (from the cache). */
  find(name: string): CodeTool | undefined {
    return this.cache.find((t) => t.name === name && isListed(t));
  }

  all(): Promise<CodeTool[]> {
    return this.store.list();
  }

  async get(name: string): Promise<Outcome<CodeTool>> {
    const tool = await this.store.get(name);
    return tool ? { ok: true, value: tool } : notFound(name);
  }

  /** `{name, description?}`, or the whole tool with its params, validated as a whole first. */
  async create(body: unknown): Promise<Outcome<CodeTool>> {
    const checked = checkCreate(body, this.caps());
    if (!checked.ok) return invalid(checked.message);
    const { name, params, ...settings } = checked.value.tool;
    const created = await this.store.create(name, settings, {
      params,
      versioned: checked.value.versioned,
    });
    if (!created)
      return { ok: false, reason: 'exists', message: `a code tool named "${name}" already exists` };
    await this.refresh();
    return { ok: true, value: created };
  }

  async save(name: string, body: unknown): Promise<Outcome<CodeTool>> {
    const current = await this.store.get(name);
    if (!current) return notFound(name);
    const checked = checkSave(body, current, this.caps());
    if (!checked.ok) return invalid(checked.message);
    const saved = await this.store.save(name, checked.value);
    if (!saved) return notFound(name);
    await this.refresh();
    return { ok: true, value: saved };
  }

  async remove(name: string): Promise<Outcome<true>> {
    if (!(await this.store.remove(name))) return notFound(name);
    await this.refresh();
    return { ok: true, value: true };
  }

  /** Adds a param (`replacing` undefined) or replaces the one named `replacing`. */
  async putParam(name: string, body: unknown, replacing?: string): Promise<Outcome<CodeTool>> {
    const checked = checkParam(body);
    if (!checked.ok) {
      return (await this.store.get(name)) ? invalid(checked.message) : notFound(name);
    }
    return this.paramWritten(
      name,
      await this.store.putParam(name, checked.value, replacing),
      replacing ?? checked.value.name,
      checked.value.name,
    );
  }

  async removeParam(name: string, param: string): Promise<Outcome<CodeTool>> {
    return this.paramWritten(name, await this.store.removeParam(name, param), param, param);
  }

  private async paramWritten(
    name: string,
    written: ParamWrite,
    param: string,
    target: string,
  ): Promise<Outcome<CodeTool>> {
    if (written === 'no_tool') return notFound(name);
    if (written === 'no_param')
      return {
        ok: false,
        reason: 'not_found',
        message: `code tool "${name}" has no param "${param}"`,
      };
    if (written === 'exists')
      return {
        ok: false,
        reason: 'exists',
        message: `code tool "${name}" already has a param "${target}"`,
      };
    await this.refresh();
    return this.get(name);
  }

  async versions(name: string): Promise<Outcome<CodeToolVersion[]>> {
    const versions = await this.store.versions(name);
    return versions ? { ok: true, value: versions } : notFound(name);
  }

  /** Saves version `n`'s fields again, as a new version (history stays immutable). */
  async restore(name: string, n: number): Promise<Outcome<CodeTool>> {
    const version = await this.store.version(name, n);
    if (!version) {
      return (await this.store.get(name))
        ? { ok: false, reason: 'not_found', message: `code tool "${name}" has no version ${n}` }
        : notFound(name);
    }
    const { version: _v, created_at: _c, ...settings } = version;
    const saved = await this.store.save(name, settings);
    if (!saved) return notFound(name);
    await this.refresh();
    return { ok: true, value: saved };
  }

  async exportDocument(): Promise<CodeToolsDocument> {
    return exportDocument(await this.store.list());
  }

  /** Validates the whole document, then writes every tool in one transaction. */
  async importDocument(doc: unknown): Promise<Outcome<{ imported: string[] }>> {
    const parsed = parseDocument(doc, this.caps(), {
      timeoutMs: DEFAULT_CODE_TOOL_TIMEOUT_MS,
      memoryMb: DEFAULT_CODE_TOOL_MEMORY_MB,
    });
    if (!parsed.ok) return invalid(parsed.message);
    await this.store.importTools(parsed.value);
    await this.refresh();
    return { ok: true, value: { imported: parsed.value.map((t) => t.name) } };
  }
}
