/**
 * File stems for outputs. A step's `name:` template gives them; otherwise the job key does
 * (`shorts-3f9a1c2b7d4e`, plan-repeats.ts fromKey), so a name never depends on row order. Names
 * are made safe for every file system; names two jobs would share get the key's hash appended
 * (plan-repeats.ts NameCounts).
 */
const MAX_STEM = 120;

const SAFE = /^[A-Za-z0-9_][A-Za-z0-9._-]*$/;

export function sanitiseStem(text: string): string {
  if (text.length <= MAX_STEM && SAFE.test(text) && !text.endsWith('.') && !text.endsWith('-')) return text;
  return text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .replace(/^[-.]+|[-.]+$/g, '')
    .slice(0, MAX_STEM);
}
