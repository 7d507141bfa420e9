import type { z } from 'zod';
import { looksLikeCredential } from './credentials.js';
import { acceptedKeys, schemaAt, unwrap } from '../../api/schemas/schema-walk.js';
import type { Path } from '../syntax/template.js';

/**
 * zod issues as one readable line each, starting from what the user wrote and ending with what
 * would be accepted. Union failures collapse into one line listing the accepted forms; unknown
 * keys name the accepted keys (and the closest one).
 */
export interface ReadableIssue {
  /** Path of the value, or of the map holding the unknown key `key`. */
  path: Path;
  key?: string;
  message: string;
  /** A required value that is missing: shown at the key of the map it belongs in, which exists. */
  missing?: boolean;
}

type Issue = z.core.$ZodIssue;
type Schema = z.core.$ZodType;

export function readableIssues(issues: readonly Issue[], schema: Schema, base: Path = []): ReadableIssue[] {
  return issues.flatMap((issue) => readable(issue, schema, [...base, ...(issue.path as Path)]));
}

function readable(issue: Issue, root: Schema, path: Path): ReadableIssue[] {
  switch (issue.code) {
    case 'unrecognized_keys': {
      const accepted = acceptedKeys(root, path);
      return issue.keys
        .filter((key) => !looksLikeCredential(key)) // the credentials rule reports these, better
        .map((key) => ({ path, key, message: unknownField(key, accepted) }));
    }
    case 'invalid_union':
      return collapseUnion(issue, root, path);
    default:
      return [{ path, message: messageFor(issue), ...(isMissing(issue) ? { missing: true } : {}) }];
  }
}

function unknownField(key: string, accepted: readonly string[]): string {
  if (accepted.length === 0) return 'unknown field';
  const near = closest(key, accepted);
  return `unknown field${near ? `; did you mean ${near}?` : ''} (accepted: ${accepted.join(', ')})`;
}

/**
 * One option that got past the type check failed on a detail: report that detail. Otherwise
 * nothing matched at all: say which forms the union accepts.
 */
function collapseUnion(issue: z.core.$ZodIssueInvalidUnion, root: Schema, path: Path): ReadableIssue[] {
  const deeper = issue.errors.filter((errors) => errors.some((e) => e.path.length > 0));
  if (deeper.length === 1 && deeper[0]) return readableIssues(deeper[0], root, path);
  const at = schemaAt(root, path);
  const options = at ? ((unwrap(at)._zod.def as { options?: Schema[] }).options ?? []) : [];
  const forms = options.map(describe).filter(Boolean);
  if (isMissing(issue)) return [{ path, message: `is required${forms.length ? ` (${forms.join(' or ')})` : ''}`, missing: true }];
  const got = 'input' in issue ? `, got ${show(issue.input)}` : '';
  return [{ path, message: forms.length ? `expected ${forms.join(' or ')}${got}` : `invalid value${got}` }];
}

/** A value that is not there at all: zod says it has the wrong type, or is not one of the values. */
const isMissing = (issue: Issue) =>
  (issue.code === 'invalid_type' || issue.code === 'invalid_value' || issue.code === 'invalid_union') && 'input' in issue && issue.input === undefined;

function describe(schema: Schema): string {
  const def = unwrap(schema)._zod.def as unknown as Record<string, unknown> & { type: string };
  switch (def.type) {
    case 'object':
      return `an object {${Object.keys(def.shape as object).join(', ')}}`;
    case 'array':
      return 'a list';
    case 'enum':
      return Object.values(def.entries as object).map(show).join(', ');
    case 'literal':
      return (def.values as unknown[]).map(show).join(', ');
    case 'null':
      return 'null';
    default:
      return `a ${def.type}`;
  }
}

function messageFor(issue: Issue): string {
  const input = 'input' in issue ? issue.input : undefined;
  switch (issue.code) {
    case 'invalid_type':
      if (input === undefined) return 'is required';
      return `expected ${EXPECTED[issue.expected] ?? `a ${issue.expected}`}, got ${show(input)}`;
    case 'invalid_value':
      if (input === undefined) return `is required (${issue.values.length === 1 ? `must be ${show(issue.values[0])}` : `accepted: ${issue.values.map(String).join(', ')}`})`;
      return issue.values.length === 1
        ? `must be ${show(issue.values[0])}, got ${show(input)}`
        : `${show(input)} is not accepted${didYouMean(input, issue.values)} (accepted: ${issue.values.map((v) => String(v)).join(', ')})`;
    case 'too_small':
      return tooSmall(issue, input);
    case 'too_big':
      return tooBig(issue, input);
    case 'invalid_format':
      return invalidFormat(issue, input);
    default:
      return issue.message;
  }
}

/** zod's type names as a YAML author knows them. */
const EXPECTED: Record<string, string> = { int: 'a whole number', object: 'a map', record: 'a map', array: 'a list', undefined: 'nothing' };

function tooSmall(issue: z.core.$ZodIssueTooSmall, input: unknown): string {
  const n = Number(issue.minimum);
  if (issue.origin === 'string') return n <= 1 ? 'must not be empty' : `needs at least ${n} characters`;
  if (issue.origin === 'array') return `needs at least ${n} item${n === 1 ? '' : 's'}`;
  return `must be ${issue.inclusive ? 'at least' : 'above'} ${n}, got ${show(input)}`;
}

function tooBig(issue: z.core.$ZodIssueTooBig, input: unknown): string {
  const n = Number(issue.maximum);
  if (issue.origin === 'string') return `takes at most ${n} characters, got ${String(input).length}`;
  if (issue.origin === 'array') return `takes at most ${n} items, got ${(input as unknown[]).length}`;
  return `must be ${issue.inclusive ? 'at most' : 'below'} ${n}, got ${show(input)}`;
}

function invalidFormat(issue: z.core.$ZodIssueInvalidStringFormat, input: unknown): string {
  switch (issue.format) {
    case 'url':
      return `must be a URL like https://example.com/file.mp4, got ${show(input)}`;
    case 'guid':
    case 'uuid':
      return `must be a UUID like 123e4567-e89b-12d3-a456-426614174000, got ${show(input)}`;
    default:
      // A custom message on a regex (e.g. "must be a colour #RRGGBBAA") says it best.
      return `${issue.message.startsWith('Invalid') ? `must be a ${issue.format}` : issue.message}, got ${show(input)}`;
  }
}

function didYouMean(input: unknown, values: readonly unknown[]): string {
  const near = typeof input === 'string' ? closest(input, values.map(String)) : undefined;
  return near === undefined ? '' : `; did you mean ${near}?`;
}

/** A value as a message quotes it: strings in quotes, long ones cut. */
export function show(value: unknown): string {
  if (value === undefined) return 'nothing';
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 57)}…` : text;
}

/**
 * The accepted word closest to `word`, if one is close enough to be the one meant: within an edit
 * distance of a third of the longer word (at least 2), so `promo_info` finds `promotion_info`.
 */
export function closest(word: string, accepted: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of accepted) {
    const d = distance(word.toLowerCase(), candidate.toLowerCase());
    const near = Math.max(2, Math.floor(Math.max(word.length, candidate.length) / 3));
    if (d <= near && d < bestDistance) [best, bestDistance] = [candidate, d];
  }
  return best;
}

function distance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      current[j] = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + cost);
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}
