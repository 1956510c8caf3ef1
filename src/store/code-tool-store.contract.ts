/** @module The code tool store's contract suite: every implementation (SQLite, PostgreSQL) runs it. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CodeToolParam, CodeToolSettings, CodeToolStore } from './code-tool-store.ts';

export interface OpenedCodeToolStore {
  codeTools: CodeToolStore;
  /** Closes the store and removes what the test created. */
  dispose(): Promise<void>;
}

const settings = (over: Partial<CodeToolSettings> = {}): CodeToolSettings => ({
  description: 'formats money',
  code: '',
  timeout_ms: 5000,
  memory_limit_mb: 128,
  enabled: true,
  allowed_servers: [],
  ...over,
});

const param = (name: string, over: Partial<CodeToolParam> = {}): CodeToolParam => ({
  name,
  description: `the ${name}`,
  type: 'string',
  required: true,
  default_value: null,
  ...over,
});

export function codeToolStoreContract(
  name: string,
  open: () => Promise<OpenedCodeToolStore>,
): void {
  describe(`${name} code tool store`, () => {
    let opened: OpenedCodeToolStore;
    let store: CodeToolStore;
    beforeEach(async () => {
      opened = await open();
      store = opened.codeTools;
    });
    afterEach(() => opened.dispose());

    it('creates a tool once and refuses a taken name', async () => {
      const created = await store.create('fmt', settings());
      expect(created).toMatchObject({ name: 'fmt', code: '', version: 0, params: [] });
      expect(await store.create('fmt', settings())).toBeUndefined();
      expect((await store.list()).map((t) => t.name)).toEqual(['fmt']);
    });

    it('creates a whole tool with its params and first version in one write', async () => {
      const whole = settings({ code: '"hi"', timeout_ms: 900 });
      const created = await store.create('whole', whole, {
        params: [param('a'), param('b', { type: 'integer', required: false, default_value: 2 })],
        versioned: true,
      });
      expect(created).toMatchObject({ name: 'whole', code: '"hi"', timeout_ms: 900, version: 1 });
      expect(created!.params.map((p) => p.name)).toEqual(['a', 'b']);
      expect(await store.versions('whole')).toEqual([
        expect.objectContaining({ version: 1, code: '"hi"', timeout_ms: 900 }),
      ]);
      // A taken name writes nothing: neither params nor a version.
      expect(
        await store.create('whole', settings({ code: 'other' }), {
          params: [param('c')],
          versioned: true,
        }),
      ).toBeUndefined();
      expect(await store.get('whole')).toMatchObject({ code: '"hi"', version: 1 });
      expect((await store.get('whole'))!.params.map((p) => p.name)).toEqual(['a', 'b']);
      expect(await store.versions('whole')).toHaveLength(1);
    });

    it('saves the page-level fields together, each save an immutable version', async () => {
      await store.create('fmt', settings());
      await store.save('fmt', settings({ code: '1', timeout_ms: 100 }));
      const saved = await store.save(
        'fmt',
        settings({ code: '2', memory_limit_mb: 64, enabled: false, allowed_servers: ['a'] }),
      );
      expect(saved).toMatchObject({
        code: '2',
        timeout_ms: 5000,
        memory_limit_mb: 64,
        enabled: false,
        allowed_servers: ['a'],
        version: 2,
      });
      const versions = await store.versions('fmt');
      expect(versions?.map((v) => [v.version, v.code, v.timeout_ms])).toEqual([
        [2, '2', 5000],
        [1, '1', 100],
      ]);
      expect((await store.version('fmt', 1))?.code).toBe('1');
      expect(await store.version('fmt', 9)).toBeUndefined();
      expect(await store.save('nope', settings())).toBeUndefined();
      expect(await store.versions('nope')).toBeUndefined();
    });

    it('saves param rows one at a time, in order, replacing in place', async () => {
      await store.create('fmt', settings());
      expect(await store.putParam('fmt', param('amount', { type: 'decimal' }))).toBe('ok');
      expect(await store.putParam('fmt', param('currency_code'))).toBe('ok');
      expect(await store.putParam('fmt', param('amount'))).toBe('exists');
      expect(await store.putParam('nope', param('amount'))).toBe('no_tool');
      expect(
        await store.putParam(
          'fmt',
          param('value', { type: 'decimal', required: false, default_value: 1.5 }),
          'amount',
        ),
      ).toBe('ok');
      expect(await store.putParam('fmt', param('x'), 'missing')).toBe('no_param');
      expect(await store.putParam('fmt', param('currency_code'), 'value')).toBe('exists');
      const tool = await store.get('fmt');
      expect(tool?.params).toEqual([
        param('value', { type: 'decimal', required: false, default_value: 1.5 }),
        param('currency_code'),
      ]);
      expect(await store.removeParam('fmt', 'value')).toBe('ok');
      expect(await store.removeParam('fmt', 'value')).toBe('no_param');
      expect((await store.get('fmt'))?.params.map((p) => p.name)).toEqual(['currency_code']);
    });

    it('keeps JSON default values of every shape', async () => {
      await store.create('fmt', settings());
      const values = ['text', 3, 2.5, true, [1, 'a'], { a: { b: null } }];
      for (const [i, value] of values.entries())
        await store.putParam('fmt', param(`p${i}`, { required: false, default_value: value }));
      expect((await store.get('fmt'))?.params.map((p) => p.default_value)).toEqual(values);
    });

    it('removes a tool with its params and versions', async () => {
      await store.create('fmt', settings());
      await store.putParam('fmt', param('a'));
      await store.save('fmt', settings({ code: '1' }));
      expect(await store.remove('fmt')).toBe(true);
      expect(await store.remove('fmt')).toBe(false);
      expect(await store.get('fmt')).toBeUndefined();
      await store.create('fmt', settings());
      expect(await store.get('fmt')).toMatchObject({ params: [], version: 0 });
    });

    it('imports tools, replacing params and adding a version to existing ones', async () => {
      await store.create('old', settings({ code: 'x' }));
      await store.putParam('old', param('gone'));
      await store.importTools([
        { name: 'old', ...settings({ code: 'y' }), params: [param('kept')] },
        { name: 'new', ...settings({ code: 'z' }), params: [param('a'), param('b')] },
      ]);
      const tools = await store.list();
      expect(tools.map((t) => [t.name, t.code, t.version, t.params.map((p) => p.name)])).toEqual([
        ['new', 'z', 1, ['a', 'b']],
        ['old', 'y', 1, ['kept']],
      ]);
    });
  });
}
