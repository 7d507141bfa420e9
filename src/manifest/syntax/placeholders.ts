/**
 * `{{ … }}` placeholders: plain substitution, never code. Five namespaces:
 *   row.COLUMN     a field of the current row (for_each rows / csv / jsonl)
 *   matrix.AXIS    the current matrix value
 *   env.NAME       an environment variable, read when the manifest is loaded
 *   steps.ID.FIELD a field of another step's result (bound to that step's single job at plan time)
 *   item.FIELD     a field of the upstream job's result (for_each: { step: ID })
 * row/matrix/env are substituted at plan time; steps/item are references, left in the request
 * as their canonical text and resolved by the runner from the upstream job's result.
 */

export const NAMESPACES = ['row', 'matrix', 'env', 'steps', 'item'] as const;
export type Namespace = (typeof NAMESPACES)[number];
export const ACCEPTED_PLACEHOLDERS = 'row.COLUMN, matrix.AXIS, env.NAME, steps.ID.FIELD, item.FIELD';

export interface Placeholder {
  ns: Namespace;
  /** Column, axis or variable name; for steps the step id; for item the first field. */
  name: string;
  /** For steps/item: the field path in the result, e.g. ['accents', '0', 'id']. */
  field: string[];
  /** Canonical text, e.g. `{{ steps.product.id }}`: what the runner looks for. */
  text: string;
}

export const isReference = (p: Placeholder) => p.ns === 'steps' || p.ns === 'item';

export type Part = string | Placeholder;

const PATTERN = /\{\{\s*([^{}]*?)\s*\}\}/g;

export type ParsedString<P extends object = Placeholder> = { parts: (string | P)[]; errors: string[] };

/**
 * Splits a string into literal text and placeholders; malformed placeholders become errors, and
 * so does a `{{` left open: there is no escape, so it can only be a placeholder missing its `}}`.
 * `parse` reads what stands between the braces (a manifest hook has namespaces of its own:
 * src/manifest/check/hooks.ts); it returns the placeholder, or why it is not one.
 */
export function parseString<P extends object = Placeholder>(
  text: string,
  parse: (inner: string) => P | string = parseInner as unknown as (inner: string) => P | string,
): ParsedString<P> {
  const parts: (string | P)[] = [];
  const errors: string[] = [];
  let last = 0;
  const literal = (end: number) => {
    if (end <= last) return;
    const piece = text.slice(last, end);
    const open = piece.indexOf('{{');
    if (open >= 0) errors.push(`unclosed placeholder: ${JSON.stringify(cut(piece.slice(open)))} has no closing }}`);
    parts.push(piece);
  };
  for (const match of text.matchAll(PATTERN)) {
    literal(match.index);
    last = match.index + match[0].length;
    const parsed = parse(match[1] ?? '');
    if (typeof parsed === 'string') {
      errors.push(`${parsed} in ${match[0]}`);
      parts.push(match[0]);
    } else parts.push(parsed);
  }
  literal(text.length);
  return { parts, errors };
}

const cut = (text: string) => (text.length > 40 ? `${text.slice(0, 39)}…` : text);

function parseInner(inner: string): Placeholder | string {
  const dot = inner.indexOf('.');
  const ns = dot < 0 ? inner : inner.slice(0, dot);
  const rest = dot < 0 ? '' : inner.slice(dot + 1);
  if (!(NAMESPACES as readonly string[]).includes(ns)) {
    return `unknown placeholder (accepted: ${ACCEPTED_PLACEHOLDERS})`;
  }
  if (!rest) return `${ns} needs a name, e.g. {{ ${ns === 'steps' ? 'steps.ID.FIELD' : `${ns}.NAME`} }}`;
  const namespace = ns as Namespace;
  if (namespace === 'steps') {
    const [id = '', ...field] = rest.split('.');
    if (field.length === 0 || field.some((f) => !f)) return 'a step reference needs a field: {{ steps.ID.FIELD }}';
    return { ns: namespace, name: id, field, text: `{{ steps.${rest} }}` };
  }
  if (namespace === 'item') {
    const field = rest.split('.');
    if (field.some((f) => !f)) return 'an item reference needs a field: {{ item.FIELD }}';
    return { ns: namespace, name: field[0] ?? '', field, text: `{{ item.${rest} }}` };
  }
  return { ns: namespace, name: rest, field: [], text: `{{ ${ns}.${rest} }}` };
}

/** A placeholder standing alone as a whole value keeps its value's type; inside text it is text. */
export const wholeValue = (parts: readonly Part[]): Placeholder | undefined =>
  parts.length === 1 && typeof parts[0] === 'object' ? parts[0] : undefined;

/** Text form of a substituted value inside a larger string. */
export function asText(value: unknown): string {
  if (value === undefined || value === null) return '';
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}
