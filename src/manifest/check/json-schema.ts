import { z } from 'zod';
import { HtmlAdCreate } from '../../api/schemas/index.js';
import { STEP_KINDS, type StepKind } from '../../step-kinds.js';
import { ALL_STYLES } from '../expand/html-ads.js';
import { requestSchemaFor } from './kinds.js';
import { ACCEPTED_PLACEHOLDERS } from '../syntax/placeholders.js';
import { ManifestSchema } from './schema.js';

/**
 * The manifest's JSON Schema, for editors (`# yaml-language-server: $schema=…`). Generated from
 * the same zod schemas that validate, in their input form (fields with defaults are optional):
 * the manifest's own shape, and per step kind the request schema its `with:` is checked by, so an
 * editor completes and checks request field names. What the JSON Schema cannot know is relaxed:
 * any value may be a `{{ … }}` placeholder (checked after substitution), and no request field is
 * required (a step's `with:` is merged over `defaults.KIND`, which may supply it).
 */
type Json = Record<string, unknown>;

const PLACEHOLDER_REF = { $ref: '#/$defs/placeholder' };
const PLACEHOLDER = {
  type: 'string',
  pattern: '\\{\\{[^{}]*\\}\\}',
  description: `a {{ … }} placeholder, replaced before the request is checked: ${ACCEPTED_PLACEHOLDERS}`,
};

/** What a step writes in `with:` where it differs from the body sent: html_ads takes `all` and any number of styles. */
const HTML_ADS_WITH = HtmlAdCreate.extend({
  style_ids: z.union([z.literal(ALL_STYLES), z.array(z.string().min(1)).min(1)]).describe(`"${ALL_STYLES}", or style ids (split into jobs of at most 20)`),
});

const withName = (kind: StepKind, render = false) => `with_${kind}${render ? '_render' : ''}`;
const ref = (name: string) => ({ $ref: `#/$defs/${name}` });

export function manifestJsonSchema(): Record<string, unknown> {
  const root = z.toJSONSchema(ManifestSchema, { io: 'input', unrepresentable: 'any' }) as Json;
  const defs: Json = { placeholder: PLACEHOLDER };
  for (const kind of STEP_KINDS) defs[withName(kind)] = withSchema(kind === 'html_ads' ? HTML_ADS_WITH : requestSchemaFor(kind));
  defs[withName('custom_template', true)] = withSchema(requestSchemaFor('custom_template', 'render'));
  const properties = root.properties as Record<string, Json>;
  const defaults = properties.defaults as Json;
  properties.defaults = {
    description: defaults.description,
    type: 'object',
    properties: Object.fromEntries(STEP_KINDS.map((kind) => [kind, ref(withName(kind))])),
    additionalProperties: false,
  };
  const steps = properties.steps as Json;
  steps.items = { ...(steps.items as Json), allOf: STEP_KINDS.map(withByKind) };
  return { ...root, title: 'reelpipe manifest', $defs: defs };
}

/** `if kind is K then with is K's request` (custom_template: by mode, render or the others). */
function withByKind(kind: StepKind): Json {
  const when = (properties: Json) => ({ properties, required: Object.keys(properties) });
  const withOf = (name: string) => ({ properties: { with: ref(name) } });
  if (kind !== 'custom_template') return { if: when({ kind: { const: kind } }), then: withOf(withName(kind)) };
  return {
    if: when({ kind: { const: kind } }),
    then: { if: when({ mode: { const: 'render' } }), then: withOf(withName(kind, true)), else: withOf(withName(kind)) },
  };
}

function withSchema(schema: z.ZodType): Json {
  const { $schema: _, ...json } = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Json;
  return relax(json);
}

/** Every value below may be a placeholder; no field is required. */
function relax(node: Json): Json {
  const out: Json = { ...node };
  delete out.required;
  if (out.properties) {
    out.properties = Object.fromEntries(Object.entries(out.properties as Record<string, Json>).map(([k, v]) => [k, orPlaceholder(v)]));
  }
  if (isSchema(out.additionalProperties)) out.additionalProperties = orPlaceholder(out.additionalProperties);
  if (isSchema(out.items)) out.items = orPlaceholder(out.items);
  for (const key of ['anyOf', 'oneOf'] as const) {
    if (Array.isArray(out[key])) out[key] = (out[key] as Json[]).map(relax);
  }
  return out;
}

const isSchema = (value: unknown): value is Json => value !== null && typeof value === 'object' && !Array.isArray(value);

/** A plain string (or anything) already takes a placeholder's text: no need to say so. */
const takesAnyText = (node: Json) =>
  Object.keys(node).every((k) => k === 'description' || k === 'type' || k === 'minLength') &&
  (node.type === undefined || node.type === 'string') &&
  Number(node.minLength ?? 0) <= 1;

function orPlaceholder(node: Json): Json {
  if (takesAnyText(node)) return node;
  const { description, ...rest } = relax(node);
  return { ...(description === undefined ? {} : { description }), anyOf: [rest, PLACEHOLDER_REF] };
}
