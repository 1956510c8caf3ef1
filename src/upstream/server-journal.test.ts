import { describe, expect, it } from 'vitest';
import type { ServerConfig } from '../config/index.ts';
import { MASK, ServerJournal, STDERR_LINES } from './server-journal.ts';

const config = (env: Record<string, string>, extra: Partial<ServerConfig> = {}) =>
  ({ name: 's', env, args: [], headers: {}, ...extra }) as ServerConfig;

describe('ServerJournal', () => {
  it('masks secret and long environment values in stderr lines and event details, never short words', () => {
    const journal = new ServerJournal(
      config({ API_TOKEN: 'abcd', DATA: '/srv/data/of/the/server', MODE: 'crash', N: '1' }),
    );
    journal.stderr('nc-crashy: token abcd at /srv/data/of/the/server, 1 worker, mode crash');
    journal.record('failed', 'exited: token abcd');
    expect(journal.stderrLines()).toEqual([
      `nc-crashy: token ${MASK} at ${MASK}, 1 worker, mode crash`,
    ]);
    expect(journal.history()[0]).toMatchObject({
      event: 'failed',
      detail: `exited: token ${MASK}`,
    });
  });

  it('masks a rotated secret still printed by the old process, header values and args from the environment', () => {
    process.env.CODEMUX_TEST_TOKEN = 'tok-from-env-123';
    const journal = new ServerJournal(
      config(
        { KEY: 'old-secret-1' },
        { args: ['--token', 'tok-from-env-123'], headers: { A: 'hdr-val' } },
      ),
    );
    journal.configure(config({ KEY: 'new-secret-2' }));
    journal.stderr('bye old-secret-1 new-secret-2 tok-from-env-123 hdr-val');
    expect(journal.stderrLines()).toEqual([`bye ${MASK} ${MASK} ${MASK} ${MASK}`]);
    delete process.env.CODEMUX_TEST_TOKEN;
  });

  it('masks a secret before a long line is cut', () => {
    const journal = new ServerJournal(config({ KEY: 'the-secret-value' }));
    journal.stderr(`${'x'.repeat(1990)}the-secret-value`);
    expect(journal.stderrLines()[0]).not.toContain('the-sec');
  });

  it('keeps the last 200 lines', () => {
    const journal = new ServerJournal(config({}));
    for (let i = 0; i < STDERR_LINES + 5; i++) journal.stderr(`line ${i}`);
    const lines = journal.stderrLines();
    expect(lines).toHaveLength(STDERR_LINES);
    expect(lines[0]).toBe('line 5');
  });
});
