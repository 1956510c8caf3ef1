import { describe, expect, it } from 'vitest';
import { DashboardSessions, MAX_SESSIONS, SESSION_TTL_MS } from './sessions.ts';

describe('DashboardSessions', () => {
  it('maps an opaque random id to the caller until it ends', () => {
    const sessions = new DashboardSessions();
    const id = sessions.create({ kind: 'admin' });
    expect(id).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(sessions.create({ kind: 'admin' })).not.toBe(id);
    expect(sessions.caller(id)).toEqual({ kind: 'admin' });
    sessions.end(id);
    expect(sessions.caller(id)).toBeUndefined();
  });

  it.each([
    ['just before its end', SESSION_TTL_MS - 1, true],
    ['at its end', SESSION_TTL_MS, false],
    ['long after', SESSION_TTL_MS * 10, false],
  ])('a session asked %s is live: %s', (_when, elapsedMs, live) => {
    let now = 1_000_000;
    const sessions = new DashboardSessions(() => now);
    const id = sessions.create({ kind: 'admin' });
    now += elapsedMs;
    expect(sessions.caller(id) !== undefined).toBe(live);
  });

  it.each([[undefined], [''], ['not-a-session']])('knows no caller for %j', (id) => {
    expect(new DashboardSessions().caller(id)).toBeUndefined();
  });

  it(`keeps at most ${MAX_SESSIONS} sessions, ending the oldest`, () => {
    const sessions = new DashboardSessions();
    const first = sessions.create({ kind: 'admin' });
    for (let i = 0; i < MAX_SESSIONS; i++) sessions.create({ kind: 'admin' });
    expect(sessions.size).toBe(MAX_SESSIONS);
    expect(sessions.caller(first)).toBeUndefined();
  });
});
