/**
 * @module The traces settings (`telemetry.otlp_endpoint`, `telemetry.sample_ratio`) with the
 * OpenTelemetry environment variables they fall back on: traces are on when an endpoint is
 * named in either place, off (nothing loaded) otherwise.
 */
import { ConfigError } from '../errors/index.ts';
import {
  DEFAULT_TRACE_SAMPLE_RATIO,
  DEFAULT_TRACE_SERVICE_NAME,
  OTLP_TRACES_PATH,
} from './defaults.ts';
import type { TracesConfig } from './types.ts';

/** The `telemetry` fields read here, as the schema let them through. */
interface UserTelemetry {
  otlp_endpoint?: string;
  sample_ratio?: number;
}

/** A base URL's traces endpoint: `/v1/traces` appended, unless the URL already ends with it. */
function tracesUrl(base: string): string {
  const url = base.replace(/\/+$/, '');
  return url.endsWith(OTLP_TRACES_PATH) ? url : `${url}${OTLP_TRACES_PATH}`;
}

/** An environment variable's value as an http(s) URL, or a ConfigError naming the variable. */
function envUrl(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const value = env[name]?.trim();
  if (!value) return undefined;
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {}
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    throw new ConfigError(
      `environment variable ${name} must be an http(s) URL like "http://127.0.0.1:4318" (got "${value}")`,
      name,
    );
  }
  return value;
}

/**
 * Traces as configured: the config's `telemetry.otlp_endpoint` (a collector's base URL) first,
 * then OTEL_EXPORTER_OTLP_TRACES_ENDPOINT (the traces URL itself), then
 * OTEL_EXPORTER_OTLP_ENDPOINT (a base URL); undefined when none is set.
 */
export function resolveTraces(
  user: UserTelemetry | undefined,
  env: NodeJS.ProcessEnv,
  source: string,
): TracesConfig | undefined {
  const sampleRatio = user?.sample_ratio ?? DEFAULT_TRACE_SAMPLE_RATIO;
  const serviceName = env.OTEL_SERVICE_NAME?.trim() || DEFAULT_TRACE_SERVICE_NAME;
  if (user?.otlp_endpoint) {
    return {
      endpoint: tracesUrl(user.otlp_endpoint),
      endpointSource: `"telemetry.otlp_endpoint" in ${source}`,
      sampleRatio,
      serviceName,
    };
  }
  const traces = envUrl(env, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT');
  if (traces) {
    return {
      endpoint: traces,
      endpointSource: 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT',
      sampleRatio,
      serviceName,
    };
  }
  const base = envUrl(env, 'OTEL_EXPORTER_OTLP_ENDPOINT');
  if (!base) return undefined;
  return {
    endpoint: tracesUrl(base),
    endpointSource: 'OTEL_EXPORTER_OTLP_ENDPOINT',
    sampleRatio,
    serviceName,
  };
}
