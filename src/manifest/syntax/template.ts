import type { z } from 'zod';
import { asText, isReference, parseString, wholeValue, type Part, type Placeholder } from './placeholders.js';
import { schemaAt, standIn, valueTypeOf, type ValueType } from '../../api/schemas/schema-walk.js';

/**
 * A step's `with:` compiled once into a tree, then rendered once per job. Compiling finds every
 * placeholder (so the rules can check them without looking at rows) and records, from the
 * request schema, what type each whole-value placeholder must produce and a stand-in for
 * references. Rendering is then a cheap walk, which keeps a 100,000-row plan fast.
 */

export type Path = (string | number)[];

export type Template =
  | { t: 'lit'; value: unknown }
  | { t: 'str'; parts: Part[]; whole: Placeholder | undefined; type: ValueType; standIn: unknown }
  | { t: 'arr'; items: Template[] }
  | { t: 'obj'; entries: [string, Template][] };

export interface FoundPlaceholder {
  placeholder: Placeholder;
  path: Path;
}

export interface CompiledTemplate {
  root: Template;
  placeholders: FoundPlaceholder[];
  errors: { path: Path; message: string }[];
  hasReferences: boolean;
}

type Schema = z.core.$ZodType;

export function compileTemplate(value: unknown, schema?: Schema): CompiledTemplate {
  const out: CompiledTemplate = { root: { t: 'lit', value }, placeholders: [], errors: [], hasReferences: false };
  out.root = compileNode(value, [], schema, out);
  out.hasReferences = out.placeholders.some((p) => isReference(p.placeholder));
  return out;
}

function compileNode(value: unknown, path: Path, schema: Schema | undefined, out: CompiledTemplate): Template {
  if (typeof value === 'string') {
    if (!value.includes('{{')) return { t: 'lit', value };
    const { parts, errors } = parseString(value);
    for (const message of errors) out.errors.push({ path, message });
    const found = parts.filter((p): p is Placeholder => typeof p === 'object');
    if (found.length === 0) return { t: 'lit', value };
    for (const placeholder of found) out.placeholders.push({ placeholder, path });
    const at = schema && schemaAt(schema, path);
    const whole = wholeValue(parts);
    return { t: 'str', parts, whole, type: valueTypeOf(at), standIn: whole ? standIn(at) : undefined };
  }
  if (Array.isArray(value)) {
    const items = value.map((item, i) => compileNode(item, [...path, i], schema, out));
    return items.every((i) => i.t === 'lit') ? { t: 'lit', value } : { t: 'arr', items };
  }
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value).map(
      ([key, v]): [string, Template] => [key, compileNode(v, [...path, key], schema, out)],
    );
    return entries.every(([, t]) => t.t === 'lit') ? { t: 'lit', value } : { t: 'obj', entries };
  }
  return { t: 'lit', value };
}

export interface RenderContext {
  /** Looks up a row/matrix/env value; undefined when it has none (the caller reports it). */
  lookup(placeholder: Placeholder): { value: unknown; text: boolean } | undefined;
  /** keep: references stay as their canonical text; stand-in: replaced by a valid stand-in. */
  references: 'keep' | 'stand-in';
}

export function render(template: Template, ctx: RenderContext): unknown {
  switch (template.t) {
    case 'lit':
      return template.value;
    case 'arr':
      return template.items.map((item) => render(item, ctx));
    case 'obj': {
      const out: Record<string, unknown> = {};
      for (const [key, t] of template.entries) {
        const v = render(t, ctx);
        if (v !== undefined) out[key] = v;
      }
      return out;
    }
    case 'str':
      return template.whole ? renderWhole(template, template.whole, ctx) : renderText(template.parts, ctx);
  }
}

function renderWhole(node: Extract<Template, { t: 'str' }>, p: Placeholder, ctx: RenderContext): unknown {
  if (isReference(p)) return ctx.references === 'keep' ? p.text : node.standIn;
  const found = ctx.lookup(p);
  if (!found) return undefined;
  return found.text && typeof found.value === 'string' ? coerce(found.value, node.type) : found.value;
}

function renderText(parts: readonly Part[], ctx: RenderContext): string {
  let out = '';
  for (const part of parts) {
    if (typeof part === 'string') out += part;
    else if (isReference(part)) out += ctx.references === 'keep' ? part.text : 'ref';
    else out += asText(ctx.lookup(part)?.value);
  }
  return out;
}

/**
 * CSV cells and environment variables are always text: where the request field takes a number or
 * a boolean, a cell that spells one becomes one, so `duration: "{{ row.seconds }}"` works.
 */
function coerce(text: string, type: ValueType): unknown {
  if (type === 'number' && /^-?\d+(\.\d+)?$/.test(text.trim())) return Number(text);
  if (type === 'boolean' && (text === 'true' || text === 'false')) return text === 'true';
  return text;
}
