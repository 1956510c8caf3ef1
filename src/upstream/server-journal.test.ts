import { describe, expect, it } from 'vitest';
import type { ServerConfig } from '../config/index.ts';
import { MASK, ServerJournal, STDERR_LINES } from './server-journal.ts';

const config = (env: Record<string, string>) => ({ name: 's', env }) as unknown as ServerConfig;

describe('ServerJournal', () => {
  it('masks the values of the environment in stderr lines and event details', () => {
    const journal = new ServerJournal(config({ API_TOKEN: 'abc', PATH_X: '/srv/data', N: '1' }));
    journal.stderr('token abc at /srv/data, 1 worker');
    journal.record('failed', 'exited: token abc');
    expect(journal.stderrLines()).toEqual([`token ${MASK} at ${MASK}, 1 worker`]);
    expect(journal.history()[0]).toMatchObject({
      event: 'failed',
      detail: `exited: token ${MASK}`,
    });
  });

  it('keeps the last 200 lines', () => {
    const journal = new ServerJournal(config({}));
    for (let i = 0; i < STDERR_LINES + 5; i++) journal.stderr(`line ${i}`);
    const lines = journal.stderrLines();
    expect(lines).toHaveLength(STDERR_LINES);
    expect(lines[0]).toBe('line 5');
  });
});
