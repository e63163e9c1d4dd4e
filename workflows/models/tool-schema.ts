/**
 * **Tool schemas**: a tool's zod input schema as the JSON Schema a model is shown (pure). The AI
 * SDK's own converter cannot run in workflow code (its module needs web streams the workflow
 * sandbox does not have), so this covers what tool inputs are made of, in zod 3 and zod 4 alike:
 * objects, strings, numbers (and integers), booleans, arrays, enums, literals, unions, null,
 * optional, nullable, defaults and refinements (shown as their base type; the refinement still
 * holds when the input is checked), with descriptions and the usual length and range checks. A
 * type outside that set is refused by name when the turn starts, before the model is called.
 */

export type JsonSchema = Record<string, unknown>;

/** A schema this converter does not know; `path` names where (`input.when`). */
export class UnsupportedSchema extends Error {
  constructor(
    readonly path: string,
    readonly kind: string,
  ) {
    super(
      `${path}: a zod ${kind} cannot be shown to a model (use objects, strings, numbers, booleans, arrays, enums, literals, unions)`,
    );
  }
}

/** A zod schema, or a part of one, read without trusting its shape. */
type Node = Record<string, unknown>;

const node = (value: unknown): Node => (value !== null && typeof value === 'object' ? (value as Node) : {});
const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

/** zod 4 keeps its definition in `_zod.def`, zod 3 in `_def`. */
const isV4 = (schema: Node): boolean => '_zod' in schema;
const defOf = (schema: Node): Node => (isV4(schema) ? node(node(schema._zod).def) : node(schema._def));

/** The kind of a schema, in zod 4's words (`string`, `object`, `optional`...). */
function kindOf(schema: Node): string {
  const def = defOf(schema);
  if (typeof def.type === 'string' && isV4(schema)) return def.type;
  return typeof def.typeName === 'string' ? def.typeName.replace(/^Zod/, '').toLowerCase() : 'unknown value';
}

/** zod 4's checks as JSON Schema keywords (`names`: what min and max are called for this kind). */
function v4Checks(def: Node, names: { min: string; max: string }): JsonSchema {
  const out: JsonSchema = {};
  for (const check of list(def.checks)) {
    const c = node(node(node(check)._zod).def);
    if (c.check === 'min_length') out[names.min] = c.minimum;
    else if (c.check === 'max_length') out[names.max] = c.maximum;
    else if (c.check === 'greater_than') out[c.inclusive ? 'minimum' : 'exclusiveMinimum'] = c.value;
    else if (c.check === 'less_than') out[c.inclusive ? 'maximum' : 'exclusiveMaximum'] = c.value;
    else if (c.check === 'number_format' && /int/.test(String(c.format))) out.type = 'integer';
  }
  return out;
}

/** zod 3's checks as JSON Schema keywords. */
function v3Checks(def: Node, kind: string, names: { min: string; max: string }): JsonSchema {
  const out: JsonSchema = {};
  if (kind === 'array') {
    if (def.minLength) out.minItems = node(def.minLength).value;
    if (def.maxLength) out.maxItems = node(def.maxLength).value;
    return out;
  }
  for (const check of list(def.checks)) {
    const c = node(check);
    const exclusive = kind === 'number' && c.inclusive === false;
    if (c.kind === 'int') out.type = 'integer';
    else if (c.kind === 'min') out[exclusive ? 'exclusiveMinimum' : names.min] = c.value;
    else if (c.kind === 'max') out[exclusive ? 'exclusiveMaximum' : names.max] = c.value;
    else if (c.kind === 'length') out[names.min] = out[names.max] = c.value;
  }
  return out;
}

/** Length and range checks of both versions, as JSON Schema keywords. */
function checks(schema: Node, kind: string): JsonSchema {
  const names =
    kind === 'string'
      ? { min: 'minLength', max: 'maxLength' }
      : kind === 'array'
        ? { min: 'minItems', max: 'maxItems' }
        : { min: 'minimum', max: 'maximum' };
  return isV4(schema) ? v4Checks(defOf(schema), names) : v3Checks(defOf(schema), kind, names);
}

function objectSchema(schema: Node, path: string): JsonSchema {
  const def = defOf(schema);
  const shape = node(typeof def.shape === 'function' ? (def.shape as () => unknown)() : def.shape);
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const [key, value] of Object.entries(shape)) {
    properties[key] = toJsonSchema(value, `${path}.${key}`);
    if (!['optional', 'default'].includes(kindOf(node(value)))) required.push(key);
  }
  return {
    type: 'object',
    properties,
    ...(required.length ? { required } : {}),
    additionalProperties: false,
  };
}

/** The values of an enum (zod 4: `entries`; zod 3: `values`, a list or a native enum's object). */
function enumValues(schema: Node): unknown[] {
  const def = defOf(schema);
  if (isV4(schema)) return Object.values(node(def.entries));
  return Array.isArray(def.values) ? def.values : Object.values(node(def.values));
}

/** The wrapped schema of optional, nullable, default, refinements, pipes, brands, readonly. */
function innerOf(schema: Node): unknown {
  const def = defOf(schema);
  return def.innerType ?? def.schema ?? def.in ?? def.type;
}

function defaultOf(def: Node): unknown {
  return typeof def.defaultValue === 'function' ? (def.defaultValue as () => unknown)() : def.defaultValue;
}

function convert(schema: Node, path: string, kind: string): JsonSchema {
  const def = defOf(schema);
  switch (kind) {
    case 'object':
      return objectSchema(schema, path);
    case 'string':
    case 'number':
      return { type: kind, ...checks(schema, kind) };
    case 'boolean':
    case 'null':
      return { type: kind };
    case 'array':
      return {
        type: 'array',
        items: toJsonSchema(def.element ?? def.type, `${path}[]`),
        ...checks(schema, kind),
      };
    case 'enum':
    case 'nativeenum':
      return { enum: enumValues(schema) };
    case 'literal':
      return { enum: isV4(schema) ? list(def.values) : [def.value] };
    case 'union':
    case 'discriminatedunion': {
      const options =
        def.options instanceof Map ? [...(def.options as Map<unknown, unknown>).values()] : list(def.options);
      return { anyOf: options.map((o, i) => toJsonSchema(o, `${path}|${i}`)) };
    }
    case 'nullable':
      return { anyOf: [toJsonSchema(innerOf(schema), path), { type: 'null' }] };
    case 'default':
      return { ...toJsonSchema(innerOf(schema), path), default: defaultOf(def) };
    case 'optional':
    case 'effects':
    case 'pipe':
    case 'pipeline':
    case 'branded':
    case 'readonly':
      return toJsonSchema(innerOf(schema), path);
    default:
      throw new UnsupportedSchema(path, kind);
  }
}

/** The JSON Schema of a zod schema; throws {@link UnsupportedSchema} for a kind it cannot show. */
export function toJsonSchema(schema: unknown, path = 'input'): JsonSchema {
  const s = node(schema);
  const converted = convert(s, path, kindOf(s));
  const description = typeof s.description === 'string' ? s.description : undefined;
  return description && converted.description === undefined ? { ...converted, description } : converted;
}
