import type { z } from 'zod';

/**
 * Small readers of zod 4 schemas, used where a manifest needs to know what a request field
 * expects: the accepted keys of an object (for "unknown field" messages), whether a CSV cell should
 * become a number, and a valid stand-in for a value only known at run time (a step's result).
 */

type AnySchema = z.core.$ZodType;
type Def = z.core.$ZodTypeDef & Record<string, unknown>;

const defOf = (schema: AnySchema) => schema._zod.def as Def;

const WRAPPERS = new Set(['optional', 'nullable', 'default', 'prefault', 'nonoptional', 'readonly', 'catch']);

/** Strips optional/nullable/default wrappers and pipes down to the schema that checks the value. */
export function unwrap(schema: AnySchema): AnySchema {
  let current = schema;
  for (;;) {
    const def = defOf(current);
    if (WRAPPERS.has(def.type)) current = def.innerType as AnySchema;
    else if (def.type === 'pipe') current = def.in as AnySchema;
    else return current;
  }
}

/** The schema one step down: an object's field, an array's element, a record's value. */
function child(schema: AnySchema, segment: string | number): AnySchema | undefined {
  const inner = unwrap(schema);
  const def = defOf(inner);
  switch (def.type) {
    case 'object': {
      const shape = def.shape as Record<string, AnySchema>;
      if (typeof segment === 'string' && Object.hasOwn(shape, segment)) return shape[segment];
      return def.catchall as AnySchema | undefined;
    }
    case 'array':
      return Number.isInteger(Number(segment)) ? (def.element as AnySchema) : undefined;
    case 'record':
      return def.valueType as AnySchema;
    case 'union':
      for (const option of def.options as AnySchema[]) {
        const found = child(option, segment);
        if (found) return found;
      }
      return undefined;
    default:
      return undefined;
  }
}

/** The schema at `path` below `schema`, or undefined when the path leaves what the schema knows. */
export function schemaAt(schema: AnySchema, path: readonly (string | number)[]): AnySchema | undefined {
  let current: AnySchema | undefined = schema;
  for (const segment of path) {
    if (!current) return undefined;
    current = child(current, segment);
  }
  return current;
}

/** The keys an object schema at `path` accepts (empty when it is not an object). */
export function acceptedKeys(schema: AnySchema, path: readonly (string | number)[]): string[] {
  const at = schemaAt(schema, path);
  if (!at) return [];
  const def = defOf(unwrap(at));
  if (def.type === 'object') return Object.keys(def.shape as object);
  if (def.type === 'record') {
    const keyDef = defOf(def.keyType as AnySchema);
    if (keyDef.type === 'enum') return Object.values(keyDef.entries as Record<string, string>);
  }
  return [];
}

/** The JSON type a schema wants, coarsely: what a CSV cell (always text) should be turned into. */
export type ValueType = 'string' | 'number' | 'boolean' | 'array' | 'object' | 'any';

export function valueTypeOf(schema: AnySchema | undefined): ValueType {
  if (!schema) return 'any';
  const def = defOf(unwrap(schema));
  switch (def.type) {
    case 'string':
    case 'enum':
      return 'string';
    case 'number':
    case 'int':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'array':
      return 'array';
    case 'object':
    case 'record':
      return 'object';
    case 'literal': {
      const first = (def.values as unknown[])[0];
      return typeof first === 'number' ? 'number' : typeof first === 'boolean' ? 'boolean' : 'string';
    }
    default:
      return 'any';
  }
}

const STAND_IN_UUID = '00000000-0000-4000-8000-000000000000';
const STAND_IN_URL = 'https://example.com/stand-in';

/**
 * A value the schema accepts, standing in for a step's result that only exists at run time, so
 * the rest of a request can be checked at plan time. The reference itself is checked separately.
 */
export function standIn(schema: AnySchema | undefined): unknown {
  if (!schema) return 'stand-in';
  const inner = unwrap(schema);
  const def = defOf(inner);
  const bag = inner as unknown as Record<string, unknown>;
  switch (def.type) {
    case 'string': {
      const format = bag.format as string | null | undefined;
      if (format === 'guid' || format === 'uuid') return STAND_IN_UUID;
      if (format === 'url') return STAND_IN_URL;
      return 'stand-in';
    }
    case 'number': {
      const min = bag.minValue as number | null | undefined;
      const max = bag.maxValue as number | null | undefined;
      const value = typeof min === 'number' && Number.isFinite(min) ? Math.max(min, 1) : 1;
      return typeof max === 'number' && Number.isFinite(max) ? Math.min(value, max) : value;
    }
    case 'boolean':
      return true;
    case 'enum':
      return Object.values(def.entries as Record<string, unknown>)[0];
    case 'literal':
      return (def.values as unknown[])[0];
    case 'array':
      return [standIn(def.element as AnySchema)];
    case 'union':
      return standIn((def.options as AnySchema[])[0]);
    case 'object':
    case 'record':
      return {};
    default:
      return 'stand-in';
  }
}
