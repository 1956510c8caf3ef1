/** @module `${VAR}` and `${VAR:-default}` in the config's string fields, replaced from the environment. */
import { ConfigError } from '../errors/index.ts';

/** The top-level fields whose strings are expanded (free text such as toolkit instructions is not). */
export const EXPANDED_TOP_LEVEL_FIELDS = [
  'listen',
  'data_dir',
  'database_url',
  'api_key',
  'instance_id',
] as const;

/** The server fields whose strings (or string values, for maps and lists) are expanded. */
export const EXPANDED_SERVER_FIELDS = [
  'command',
  'args',
  'env',
  'url',
  'headers',
  'cwd',
  'oauth',
] as const;

/** Fields that hold secrets: a `${` in them that is not a reference refuses the config. */
const SECRET_TOP_LEVEL_FIELDS: ReadonlySet<string> = new Set(['api_key', 'database_url']);
const SECRET_SERVER_FIELDS: ReadonlySet<string> = new Set(['env', 'headers', 'oauth']);

/** Set by codemux itself, never read from the environment: the config file's directory. */
export const CONFIG_DIR_VARIABLE = 'CODEMUX_CONFIG_DIR';

const REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

/** What expanding needs besides the value: where it is, the variables, and whether it is a secret. */
interface Expansion {
  env: NodeJS.ProcessEnv;
  source: string;
  secret: boolean;
}

function expandString(text: string, field: string, how: Expansion): string {
  const { env, source } = how;
  // A secret is never used with a reference left in it as text (a typo would become the
  // secret, guessable); a value containing `${` can still come whole from a variable.
  if (how.secret && text.replace(REFERENCE, '').includes('${')) {
    throw new ConfigError(
      `${source}: field "${field}" has a "\${" that is not a variable reference; write \${NAME} or \${NAME:-default} (NAME: letters, digits and _, not starting with a digit), or put the whole value in a variable`,
      field,
    );
  }
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

function expandValue(value: unknown, field: string, how: Expansion): unknown {
  if (typeof value === 'string') return expandString(value, field, how);
  if (Array.isArray(value)) {
    return value.map((item, i) => expandValue(item, `${field}[${i}]`, how));
  }
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, expandValue(v, `${field}.${k}`, how)]),
    );
  }
  return value;
}

/** A copy of `entry` (at `prefix`) with `fields` expanded; values of other types are left to the schema. */
function expandFields(
  entry: Record<string, unknown>,
  fields: readonly string[],
  secrets: ReadonlySet<string>,
  prefix: string,
  env: NodeJS.ProcessEnv,
  source: string,
): Record<string, unknown> {
  const out = { ...entry };
  for (const key of fields) {
    if (!(key in out)) continue;
    const field = prefix ? `${prefix}.${key}` : key;
    out[key] = expandValue(out[key], field, { env, source, secret: secrets.has(key) });
  }
  return out;
}

/** A copy of the raw config document with its expandable top-level fields expanded. */
export function expandTopLevelEnv(
  raw: Record<string, unknown>,
  env: NodeJS.ProcessEnv,
  source: string,
): Record<string, unknown> {
  return expandFields(raw, EXPANDED_TOP_LEVEL_FIELDS, SECRET_TOP_LEVEL_FIELDS, '', env, source);
}

/** A copy of the raw server entry at `field` with its expandable fields expanded. */
export function expandServerEnv(
  entry: Record<string, unknown>,
  field: string,
  env: NodeJS.ProcessEnv,
  source: string,
): Record<string, unknown> {
  return expandFields(entry, EXPANDED_SERVER_FIELDS, SECRET_SERVER_FIELDS, field, env, source);
}
