/** @module `${VAR}` and `${VAR:-default}` in a server's string fields, replaced from the environment. */
import { ConfigError } from '../errors/index.ts';

/** The server fields whose strings (or string values, for maps and lists) are expanded. */
export const EXPANDED_SERVER_FIELDS = ['command', 'args', 'env', 'url', 'headers', 'cwd'] as const;

const REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

function expandString(text: string, field: string, env: NodeJS.ProcessEnv, source: string): string {
  return text.replace(REFERENCE, (_match, name: string, fallback: string | undefined) => {
    const value = env[name];
    // As in the shell, `:-` also covers a variable that is set but empty.
    if (value !== undefined && (value !== '' || fallback === undefined)) return value;
    if (fallback !== undefined) return fallback;
    throw new ConfigError(
      `${source}: field "${field}" uses \${${name}}, which is not set in the environment; set ${name} or write \${${name}:-default}`,
      field,
    );
  });
}

function expandValue(
  value: unknown,
  field: string,
  env: NodeJS.ProcessEnv,
  source: string,
): unknown {
  if (typeof value === 'string') return expandString(value, field, env, source);
  if (Array.isArray(value)) {
    return value.map((item, i) => expandValue(item, `${field}[${i}]`, env, source));
  }
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, expandValue(v, `${field}.${k}`, env, source)]),
    );
  }
  return value;
}

/** A copy of the raw server entry at `field` with its expandable fields expanded. */
export function expandServerEnv(
  entry: Record<string, unknown>,
  field: string,
  env: NodeJS.ProcessEnv,
  source: string,
): Record<string, unknown> {
  const out = { ...entry };
  for (const key of EXPANDED_SERVER_FIELDS) {
    if (key in out) out[key] = expandValue(out[key], `${field}.${key}`, env, source);
  }
  return out;
}
