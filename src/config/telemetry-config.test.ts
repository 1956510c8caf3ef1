import { describe, expect, it } from 'vitest';
import { ConfigError } from '../errors/index.ts';
import { resolveConfig } from './resolve.ts';

const resolve = (raw: unknown) =>
  resolveConfig(raw, { baseDir: '/etc/codemux', source: 'cfg.json', env: {} });

describe('telemetry config', () => {
  it('keeps metrics on and behind the admin key by default', () => {
    expect(resolve({}).telemetry).toEqual({ metrics: true, metricsAuth: true });
  });

  // One row each: the config, the resolved telemetry.
  it.each([
    [{ telemetry: { metrics: false } }, { metrics: false, metricsAuth: true }],
    [{ telemetry: { metrics_auth: false } }, { metrics: true, metricsAuth: false }],
    [{ metrics_auth: false }, { metrics: true, metricsAuth: false }],
    // Both given: the one inside telemetry wins.
    [
      { metrics_auth: false, telemetry: { metrics_auth: true } },
      { metrics: true, metricsAuth: true },
    ],
  ])('%j resolves to %j', (raw, telemetry) => {
    const config = resolve(raw);
    expect(config.telemetry).toEqual(telemetry);
    expect(config.warnings).toEqual([]);
  });

  // One row each: the config, the field named, its message.
  it.each([
    [{ telemetry: { metrics: 'yes' } }, 'telemetry.metrics', 'must be true or false'],
    [{ telemetry: { metrics_auth: 0 } }, 'telemetry.metrics_auth', 'must be true or false'],
    [{ metrics_auth: 'off' }, 'metrics_auth', 'must be true or false'],
    [
      { telemetry: true },
      'telemetry',
      'must be an object with metrics, metrics_auth, otlp_endpoint and sample_ratio (all optional)',
    ],
  ])('%j is refused naming %s', (raw, field, message) => {
    let error: unknown;
    try {
      resolve(raw);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).message).toBe(`cfg.json: field "${field}" ${message}`);
  });

  it('names an unknown key inside telemetry', () => {
    expect(resolve({ telemetry: { metric: true } }).warnings).toEqual([
      'cfg.json: unknown key "metric" in telemetry; did you mean `metrics`?',
    ]);
  });
});
