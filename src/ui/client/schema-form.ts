/**
 * @module Form fields from a tool's input schema, one per top-level property labelled by its
 * name: text, number, checkbox, a select for an enum, a JSON textarea for anything else; one
 * "Arguments (JSON)" textarea when the schema names no property. Reads them back as arguments.
 */
import { h } from './dom.ts';

type Schema = Record<string, unknown>;
type Kind = 'text' | 'number' | 'integer' | 'boolean' | 'enum' | 'json';

export type ReadArgs = { ok: true; args: Record<string, unknown> } | { ok: false; message: string };

export interface SchemaForm {
  fields: HTMLElement[];
  read(): ReadArgs;
}

const isObject = (v: unknown): v is Schema =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** The schema's one type, `null` aside (`["string", "null"]` is a string field). */
function typeOf(schema: Schema): unknown {
  const type = schema.type;
  return Array.isArray(type) ? type.find((t) => t !== 'null') : type;
}

/**
 * The schema a field is built from: an `anyOf`/`oneOf` with one branch besides `null` (an
 * optional value, as Pydantic writes `Optional[str]`) is that branch, its description kept.
 */
function effective(schema: Schema): Schema {
  if (schema.type !== undefined || schema.enum !== undefined) return schema;
  const union = Array.isArray(schema.anyOf) ? schema.anyOf : schema.oneOf;
  if (!Array.isArray(union)) return schema;
  const branches = union.filter((b): b is Schema => isObject(b) && b.type !== 'null');
  const [branch] = branches;
  if (!branch || branches.length !== 1) return schema;
  return { ...branch, description: schema.description ?? branch.description };
}

function kindOf(schema: Schema): Kind {
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return 'enum';
  const type = typeOf(schema);
  if (type === 'string') return 'text';
  if (type === 'number' || type === 'integer' || type === 'boolean') return type;
  return 'json';
}

const KIND_WORDS: Record<Kind, string> = {
  text: 'string',
  number: 'number',
  integer: 'integer',
  boolean: 'boolean',
  enum: 'one of the listed values',
  json: 'JSON',
};

interface Field {
  name: string;
  kind: Kind;
  required: boolean;
  options: unknown[];
  control: HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement;
}

function control(id: string, kind: Kind, schema: Schema, required: boolean): Field['control'] {
  const common = { id, required: required && kind !== 'boolean', 'aria-describedby': `${id}-hint` };
  switch (kind) {
    case 'text':
      return h('input', { ...common, type: 'text' });
    case 'number':
    case 'integer':
      return h('input', { ...common, type: 'number', step: kind === 'integer' ? 1 : 'any' });
    case 'boolean':
      return h('input', { ...common, type: 'checkbox' });
    case 'enum':
      return h(
        'select',
        common,
        h(
          'option',
          { value: '' },
          required
            ? 'choose one'
            : schema.default === undefined
              ? '(not set)'
              : `(not set: ${JSON.stringify(schema.default)})`,
        ),
        ...(schema.enum as unknown[]).map((v, i) =>
          h('option', { value: String(i) }, typeof v === 'string' ? v : JSON.stringify(v)),
        ),
      );
    default:
      return h('textarea', {
        ...common,
        class: 'mono',
        rows: 3,
        spellcheck: false,
        placeholder: 'JSON',
      });
  }
}

/** The fields of `schema` (a tool's input schema); ids start with `prefix`. */
export function schemaForm(schema: Schema, prefix: string): SchemaForm {
  const properties = isObject(schema.properties) ? schema.properties : {};
  const required = new Set(Array.isArray(schema.required) ? schema.required : []);
  const names = Object.keys(properties);
  if (names.length === 0) {
    const id = `${prefix}-json`;
    const area = h('textarea', { id, class: 'mono', rows: 4, spellcheck: false });
    area.value = '{}';
    return {
      fields: [h('div', {}, h('label', { for: id }, 'Arguments (JSON)'), area)],
      read: () => {
        try {
          const args = JSON.parse(area.value || '{}');
          if (isObject(args)) return { ok: true, args };
          return { ok: false, message: 'Arguments (JSON) must be a JSON object' };
        } catch (error) {
          return {
            ok: false,
            message: `Arguments (JSON) is not valid JSON: ${(error as Error).message}`,
          };
        }
      },
    };
  }
  const fields: Field[] = names.map((name, i) => {
    const own = properties[name];
    let schemaOf = effective(isObject(own) ? own : {});
    const isRequired = required.has(name);
    // An optional boolean has three states (not sent, true, false): a checkbox has two, and
    // unchecked could not send false to a tool whose default is true.
    if (kindOf(schemaOf) === 'boolean' && !isRequired)
      schemaOf = { ...schemaOf, enum: [true, false] };
    const kind = kindOf(schemaOf);
    return {
      name,
      kind,
      required: isRequired,
      options: Array.isArray(schemaOf.enum) ? schemaOf.enum : [],
      control: control(`${prefix}-${i}`, kind, schemaOf, isRequired),
    };
  });
  const elements = fields.map((f, i) => {
    const own = properties[f.name];
    const schemaOf = effective(isObject(own) ? own : {});
    const description = typeof schemaOf?.description === 'string' ? schemaOf.description : '';
    const hint = [KIND_WORDS[f.kind], f.required ? 'required' : '', description]
      .filter(Boolean)
      .join(' · ');
    const label = h('label', { for: `${prefix}-${i}` }, f.name);
    const note = h('span', { class: 'hint', id: `${prefix}-${i}-hint` }, hint);
    return f.kind === 'boolean'
      ? h('div', { class: 'check' }, f.control, label, note)
      : h('div', {}, label, f.control, note);
  });
  return { fields: elements, read: () => readFields(fields) };
}

function readFields(fields: Field[]): ReadArgs {
  const args: Record<string, unknown> = {};
  for (const f of fields) {
    const raw = f.control.value;
    if (f.kind === 'boolean') {
      // Only a required boolean is a checkbox (an optional one is a select: not set, true, false).
      args[f.name] = (f.control as HTMLInputElement).checked;
      continue;
    }
    if (raw === '') continue;
    if (f.kind === 'text') args[f.name] = raw;
    else if (f.kind === 'enum') args[f.name] = f.options[Number(raw)];
    else if (f.kind === 'json') {
      try {
        args[f.name] = JSON.parse(raw);
      } catch (error) {
        return { ok: false, message: `${f.name} is not valid JSON: ${(error as Error).message}` };
      }
    } else {
      const n = Number(raw);
      if (!Number.isFinite(n) || (f.kind === 'integer' && !Number.isInteger(n)))
        return {
          ok: false,
          message: `${f.name} must be ${f.kind === 'integer' ? 'an integer' : 'a number'}`,
        };
      args[f.name] = n;
    }
  }
  return { ok: true, args };
}
