import { describe, expect, it } from 'vitest';
import { ConfigError } from '../errors/index.ts';
import { resolveConfig } from './resolve.ts';

const resolve = (raw: Record<string, unknown>, env: NodeJS.ProcessEnv = {}) =>
  resolveConfig(raw, { baseDir: '/etc/codemux', source: 'cfg.json', env });

describe('traces config', () => {
  it('is off without an endpoint in the config or the environment', () => {
    expect(resolve({}).traces).toBeUndefined();
    expect(resolve({ telemetry: { sample_ratio: 0.5 } }).traces).toBeUndefined();
  });

  // One row each: the telemetry field, the environment, the endpoint spans go to, its source.
  it.each([
    [
      { otlp_endpoint: 'http://127.0.0.1:4318' },
      {},
      'http://127.0.0.1:4318/v1/traces',
      '"telemetry.otlp_endpoint" in cfg.json',
    ],
    [
      { otlp_endpoint: 'https://otel.example/base/' },
      {},
      'https://otel.example/base/v1/traces',
      '"telemetry.otlp_endpoint" in cfg.json',
    ],
    [
      { otlp_endpoint: 'http://c:4318/v1/traces' },
      {},
      'http://c:4318/v1/traces',
      '"telemetry.otlp_endpoint" in cfg.json',
    ],
    [
      {},
      { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://c:4318/custom' },
      'http://c:4318/custom',
      'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT',
    ],
    [
      {},
      { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' },
      'http://c:4318/v1/traces',
      'OTEL_EXPORTER_OTLP_ENDPOINT',
    ],
    [
      {},
      {
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://base:4318',
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://traces:4318/v1/traces',
      },
      'http://traces:4318/v1/traces',
      'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT',
    ],
    [
      { otlp_endpoint: 'http://file:4318' },
      { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://env:4318/v1/traces' },
      'http://file:4318/v1/traces',
      '"telemetry.otlp_endpoint" in cfg.json',
    ],
  ])('telemetry %j with environment %j sends to %s', (telemetry, env, endpoint, source) => {
    const traces = resolve({ telemetry }, env).traces;
    expect(traces).toMatchObject({ endpoint, endpointSource: source });
  });

  it('samples every trace unless sample_ratio says less, as service codemux unless OTEL_SERVICE_NAME', () => {
    const on = { otlp_endpoint: 'http://c:4318' };
    expect(resolve({ telemetry: on }).traces).toMatchObject({
      sampleRatio: 1,
      serviceName: 'codemux',
    });
    expect(
      resolve({ telemetry: { ...on, sample_ratio: 0.25 } }, { OTEL_SERVICE_NAME: 'gw-eu' }).traces,
    ).toMatchObject({ sampleRatio: 0.25, serviceName: 'gw-eu' });
  });

  it.each([
    [{ telemetry: { sample_ratio: 1.5 } }, {}, 'telemetry.sample_ratio'],
    [{ telemetry: { sample_ratio: -0.1 } }, {}, 'telemetry.sample_ratio'],
    [{ telemetry: { sample_ratio: '1' } }, {}, 'telemetry.sample_ratio'],
    [{ telemetry: { otlp_endpoint: 'collector:4318' } }, {}, 'telemetry.otlp_endpoint'],
    [{ telemetry: { otlp_endpoint: 'grpc://c:4317' } }, {}, 'telemetry.otlp_endpoint'],
    [{ telemetry: 'on' }, {}, 'telemetry'],
    [{}, { OTEL_EXPORTER_OTLP_ENDPOINT: 'c:4318' }, 'OTEL_EXPORTER_OTLP_ENDPOINT'],
    [{}, { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'udp://c' }, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT'],
  ])('refuses %j (environment %j), naming %s', (raw, env, field) => {
    let error: unknown;
    try {
      resolve(raw, env);
    } catch (thrown) {
      error = thrown;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).field).toBe(field);
    expect((error as ConfigError).message).toContain(field);
  });

  it('knows the telemetry fields (no unknown-key warning) and names a misspelt one', () => {
    expect(
      resolve({ telemetry: { otlp_endpoint: 'http://c:4318', sample_ratio: 1 } }).warnings,
    ).toEqual([]);
    expect(resolve({ telemetry: { sample_rate: 1 } }).warnings).toEqual([
      'cfg.json: unknown key "sample_rate" in telemetry; did you mean `sample_ratio`?',
    ]);
  });
});
