/**
 * @module An answer to an upstream's form (MCP elicitation's flat schema of primitive fields)
 * checked before it is sent: every value of the declared type, enums kept, required fields
 * present (a field with a default may be left out: codemux fills it in), nothing undeclared.
 */
import type { InputValue } from '../../upstream/index.ts';

type Field = {
  type?: unknown;
  enum?: unknown;
  oneOf?: unknown;
  items?: { enum?: unknown; anyOf?: unknown };
  default?: unknown;
};

/** The values a field's enum allows (`enum`, or titled `oneOf`/`anyOf` of `const`), if it has one. */
function allowed(choices: unknown, titled: unknown): unknown[] | undefined {
  if (Array.isArray(choices)) return choices;
  if (Array.isArray(titled))
    return titled
      .map((c) => (c as { const?: unknown } | null)?.const)
      .filter((c) => c !== undefined);
  return undefined;
}

/** Why `value` does not fit `field`, or undefined when it does. */
function misfit(name: string, field: Field, value: unknown): string | undefined {
  const type = field.type;
  if (type === 'array') {
    if (!Array.isArray(value) || value.some((v) => typeof v !== 'string'))
      return `"${name}" must be an array of strings`;
    const choices = allowed(field.items?.enum, field.items?.anyOf);
    const outside = choices && value.find((v) => !choices.includes(v));
    return outside === undefined || !choices
      ? undefined
      : `"${name}": "${outside}" is not one of ${choices.join(', ')}`;
  }
  if (type === 'boolean' && typeof value !== 'boolean') return `"${name}" must be true or false`;
  if (
    (type === 'number' || type === 'integer') &&
    (typeof value !== 'number' || !Number.isFinite(value))
  )
    return `"${name}" must be a number`;
  if (type === 'integer' && !Number.isInteger(value)) return `"${name}" must be an integer`;
  if (type === 'string' && typeof value !== 'string') return `"${name}" must be a string`;
  const choices = allowed(field.enum, field.oneOf);
  if (choices && !choices.includes(value))
    return `"${name}" must be one of ${choices.map((c) => JSON.stringify(c)).join(', ')}`;
  return undefined;
}

/** The form's fields, by name. */
export function formFields(schema: Record<string, unknown>): Record<string, Field> {
  const properties = schema.properties;
  return typeof properties === 'object' && properties !== null && !Array.isArray(properties)
    ? (properties as Record<string, Field>)
    : {};
}

/** `content` checked against the form: the values to send, or why not (said to the person answering). */
export function checkAnswer(
  schema: Record<string, unknown>,
  content: unknown,
): { ok: true; content: Record<string, InputValue> } | { ok: false; message: string } {
  if (typeof content !== 'object' || content === null || Array.isArray(content))
    return { ok: false, message: "content must be an object of the form's fields" };
  const fields = formFields(schema);
  const required = Array.isArray(schema.required) ? (schema.required as unknown[]) : [];
  const given = content as Record<string, unknown>;
  for (const name of Object.keys(given)) {
    if (!Object.hasOwn(fields, name)) {
      const names = Object.keys(fields);
      return {
        ok: false,
        message: `the form has no field "${name}" (its fields: ${names.length > 0 ? names.join(', ') : 'none'})`,
      };
    }
    const why = misfit(name, fields[name]!, given[name]);
    if (why) return { ok: false, message: why };
  }
  for (const name of required) {
    const field = typeof name === 'string' ? fields[name] : undefined;
    if (
      typeof name === 'string' &&
      given[name] === undefined &&
      !Object.hasOwn(field ?? {}, 'default')
    )
      return { ok: false, message: `"${name}" is required` };
  }
  return { ok: true, content: given as Record<string, InputValue> };
}
