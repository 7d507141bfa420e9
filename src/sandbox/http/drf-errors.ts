import type { z } from 'zod';
import { schemaAt, unwrap } from '../../api/schemas/schema-walk.js';

/**
 * Django REST Framework error bodies, built from zod issues. DRF answers a bad body with 400 and an
 * object of per-field message lists; nested serializers nest the object and list fields key their
 * items by index, e.g. `{"caption_setting": {"font_size": ["A valid integer is required."]}}`.
 * Messages follow DRF's wording so a client's error text reads as the live service's would.
 */
export interface DrfErrors {
  [field: string]: string[] | DrfErrors;
}

type Issue = z.core.$ZodIssue;

/**
 * The body of a 400 for these issues. With the schema they came from, a field that takes a whole
 * number is worded as DRF's IntegerField words it (zod reports a string given to an integer
 * field as "expected number").
 */
export function drfErrors(issues: readonly Issue[], schema?: z.core.$ZodType): DrfErrors {
  const out: DrfErrors = {};
  for (const issue of issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) add(out, [...issue.path, key], 'This field is not accepted by this operation.');
    } else {
      add(out, issue.path, drfMessage(issue, schema && isInteger(schemaAt(schema, issue.path as (string | number)[]))));
    }
  }
  return out;
}

const isInteger = (field: z.core.$ZodType | undefined) => field !== undefined && (unwrap(field) as { isInt?: boolean }).isInt === true;

function add(out: DrfErrors, path: readonly PropertyKey[], message: string): void {
  const keys = path.length === 0 ? ['non_field_errors'] : path.map(String);
  let node: DrfErrors = out;
  for (const key of keys.slice(0, -1)) {
    const next = node[key];
    if (Array.isArray(next)) node[key] = { non_field_errors: next };
    node = (node[key] ??= {}) as DrfErrors;
  }
  const leaf = keys[keys.length - 1] as string;
  const existing = node[leaf];
  if (existing === undefined) node[leaf] = [message];
  else if (Array.isArray(existing)) existing.push(message);
  else ((existing.non_field_errors ??= []) as string[]).push(message);
}

const TYPE_MESSAGES: Record<string, string> = {
  string: 'Not a valid string.',
  number: 'A valid number is required.',
  int: 'A valid integer is required.',
  boolean: 'Must be a valid boolean.',
  array: 'Expected a list of items.',
  object: 'Expected a dictionary of items.',
};

/** One issue as DRF would word it; `integer` when the field takes a whole number. */
export function drfMessage(issue: Issue, integer = false): string {
  switch (issue.code) {
    case 'invalid_type':
      if (issue.input === undefined) return 'This field is required.';
      if (issue.input === null) return 'This field may not be null.';
      return TYPE_MESSAGES[integer ? 'int' : issue.expected] ?? `Expected ${issue.expected}.`;
    case 'invalid_value':
      // A choice field left out is required, as any field: DRF checks presence before the choices.
      if (issue.input === undefined) return 'This field is required.';
      return `"${String(issue.input)}" is not a valid choice. Accepted: ${issue.values.map(String).join(', ')}.`;
    case 'too_big':
      return tooBig(issue.origin, issue.maximum);
    case 'too_small':
      return tooSmall(issue.origin, issue.minimum);
    case 'invalid_format':
      return formatMessage(issue.format, issue.message);
    case 'invalid_union':
      return 'Invalid value: it matches none of the accepted forms.';
    default:
      return issue.message;
  }
}

function tooBig(origin: string, maximum: number | bigint): string {
  if (origin === 'string') return `Ensure this field has no more than ${maximum} characters.`;
  if (origin === 'array' || origin === 'set') return `Ensure this field has no more than ${maximum} elements.`;
  return `Ensure this value is less than or equal to ${maximum}.`;
}

function tooSmall(origin: string, minimum: number | bigint): string {
  if (origin === 'string') return minimum === 1 ? 'This field may not be blank.' : `Ensure this field has at least ${minimum} characters.`;
  if (origin === 'array' || origin === 'set') return minimum === 1 ? 'This list may not be empty.' : `Ensure this field has at least ${minimum} elements.`;
  return `Ensure this value is greater than or equal to ${minimum}.`;
}

function formatMessage(format: string, fallback: string): string {
  if (format === 'url') return 'Enter a valid URL.';
  if (format === 'guid' || format === 'uuid') return 'Must be a valid UUID.';
  if (format === 'datetime') return 'Datetime has wrong format.';
  return fallback;
}
