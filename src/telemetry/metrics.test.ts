import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
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

describe('with metrics off', () => {
  const SRC = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
  const sources = (dir: string): string[] =>
    fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) return sources(full);
      return /\.tsx?$/.test(entry.name) && !entry.name.endsWith('.test.ts') ? [full] : [];
    });

  it('nothing loads prom-client: only metrics-live.ts imports it, and only startMetrics() imports that', () => {
    const importers = (pattern: RegExp) =>
      sources(SRC)
        .filter((file) => pattern.test(fs.readFileSync(file, 'utf8')))
        .map((file) => path.relative(SRC, file));
    expect(importers(/from 'prom-client'|import\('prom-client'\)/)).toEqual([
      path.join('telemetry', 'metrics-live.ts'),
    ]);
    // A type-only import would be erased; a value import would load it with its importer.
    expect(
      importers(/from '\.\/metrics-live\.ts'|from '\.\.\/telemetry\/metrics-live\.ts'/),
    ).toEqual([]);
    expect(importers(/import\('\.\/metrics-live\.ts'\)/)).toEqual([
      path.join('telemetry', 'metrics.ts'),
    ]);
  });
});
