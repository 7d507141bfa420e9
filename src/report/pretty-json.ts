/**
 * JSON as `JSON.stringify(whole, null, 2)` prints it, a part at a time: what results.json is
 * written with, a job at a time. Why not JSON.stringify of each job: printed with a gap, V8 takes
 * its slow path (about 10 µs a job, a second at 100,000 jobs), and each job had to be wrapped,
 * printed and cut out of its wrapper to get its indentation. Here the text is built directly.
 */

/** Two spaces a level, as results.json has always been printed. */
export const STEP = '  ';

/** What JSON.stringify writes other than as it is: quotes, backslashes, control characters, and surrogates (a lone one is escaped). */
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const ESCAPED = /["\\\u0000-\u001f\ud800-\udfff]/;

/**
 * A string, a number or null as JSON prints it (a number that is not finite is null, as
 * JSON.stringify has it). Why a string with nothing to escape is quoted here: JSON.stringify of
 * one string costs several times the test, and results.json prints twenty a job.
 */
export function scalar(value: string | number | boolean | null): string {
  if (value === null) return 'null';
  if (typeof value === 'string') return ESCAPED.test(value) ? JSON.stringify(value) : `"${value}"`;
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : 'null';
  return value ? 'true' : 'false';
}

/**
 * `value` printed as it would be at `indent` inside a document printed with a gap of two
 * spaces: its lines after the first start with `indent`. Undefined for what JSON leaves out (an
 * undefined, a function, a symbol), as JSON.stringify answers.
 */
export function prettyAt(value: unknown, indent: string): string | undefined {
  switch (typeof value) {
    case 'string':
    case 'number':
    case 'boolean':
      return scalar(value);
    case 'object':
      if (value === null) return 'null';
      if (Array.isArray(value)) return arrayAt(value, indent);
      if (isPlain(value)) return objectAt(value as Record<string, unknown>, indent);
      break;
    default:
      break;
  }
  // Anything else (a toJSON, a boxed value, a bigint that throws): as V8 prints it, moved to its place.
  const text = JSON.stringify(value, null, 2) as string | undefined;
  return text === undefined ? undefined : text.replaceAll('\n', `\n${indent}`);
}

/** `items` printed at `indent`, each by `print` at the level below (a value JSON leaves out is null in a list). */
export function listAt<T>(items: readonly T[], indent: string, print: (item: T, inner: string) => string | undefined = prettyAt): string {
  if (items.length === 0) return '[]';
  const inner = indent + STEP;
  let text = '[';
  for (let i = 0; i < items.length; i++) text += `${i === 0 ? '' : ','}\n${inner}${print(items[i] as T, inner) ?? 'null'}`;
  return `${text}\n${indent}]`;
}

const arrayAt = (items: readonly unknown[], indent: string) => listAt(items, indent);

function objectAt(value: Record<string, unknown>, indent: string): string {
  const inner = indent + STEP;
  let text = '';
  for (const key of Object.keys(value)) {
    const printed = prettyAt(value[key], inner);
    if (printed !== undefined) text += `${text === '' ? '{' : ','}\n${inner}${JSON.stringify(key)}: ${printed}`;
  }
  return text === '' ? '{}' : `${text}\n${indent}}`;
}

/** An object JSON prints by its own keys alone: made by `{}` or JSON.parse, without a toJSON. */
function isPlain(value: object): boolean {
  const proto = Object.getPrototypeOf(value) as unknown;
  return (proto === Object.prototype || proto === null) && typeof (value as { toJSON?: unknown }).toJSON !== 'function';
}
