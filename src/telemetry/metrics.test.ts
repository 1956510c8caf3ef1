import { afterEach, describe, expect, it } from 'vitest';
import { metrics, startMetrics, stopMetrics } from './metrics.ts';

describe('metrics()', () => {
  afterEach(() => stopMetrics());

  it('is a no-op that scrapes nothing until metrics start', () => {
    expect(metrics().on).toBe(false);
    metrics().executionEnded({ surface: 'mcp', status: 'success', durationMs: 1 });
    expect(metrics().scrape()).toBeUndefined();
  });

  it('counts once started, with one live registry however often it is started', async () => {
    const [a, b] = await Promise.all([startMetrics(), startMetrics()]);
    expect(a).toBe(b);
    expect(metrics()).toBe(a);
    metrics().executionEnded({ surface: 'rest', status: 'blocked', durationMs: 1 });
    const { text, contentType } = (await metrics().scrape())!;
    expect(contentType).toMatch(/^text\/plain/);
    expect(text).toContain(
      'codemux_executions_total{surface="rest",dialect="code_execution",status="blocked"} 1',
    );
  });
});
