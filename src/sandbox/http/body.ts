import type { IncomingMessage } from 'node:http';
import type { z } from 'zod';
import { drfErrors } from './drf-errors.js';
import { HttpError, fieldError } from './reply.js';

/** Bodies above this are refused (413), as a reverse proxy in front of the service would. */
const MAX_BODY_BYTES = 10 * 1024 * 1024;

export async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new HttpError(413, { detail: 'Request body too large.' });
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/**
 * Decodes a request body by its content type: JSON, form-urlencoded or multipart (the spec allows
 * the two form encodings on AI Shorts, links and voices; accepting them everywhere is harmless).
 * Form values are strings; they are typed against the operation's schema in `coerceForm`.
 */
/** A decoded form body: each key with its values, still strings. */
export class FormBody {
  constructor(readonly fields: Record<string, string[]>) {}
}

export async function decodeBody(raw: Buffer, contentType: string | undefined): Promise<unknown> {
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (raw.length === 0) return {};
  if (type === 'application/x-www-form-urlencoded' || type === 'multipart/form-data') {
    const form = await new Request('http://sandbox/', {
      method: 'POST',
      headers: { 'content-type': contentType! },
      body: raw,
    }).formData();
    const fields: Record<string, string[]> = {};
    form.forEach((value, key) => (fields[key] ??= []).push(typeof value === 'string' ? value : value.name));
    return new FormBody(fields);
  }
  try {
    return JSON.parse(raw.toString('utf8')) as unknown;
  } catch (error) {
    throw new HttpError(400, { detail: `JSON parse error - ${(error as Error).message}` });
  }
}

type ObjectSchema = z.ZodType & { shape?: Record<string, z.ZodType> };

/**
 * Gives form strings the types the schema wants, as DRF's fields do: a value the field accepts as
 * a string stays a string; otherwise it is read as JSON (numbers, booleans, nested objects and
 * lists sent as JSON text). A repeated key becomes a list.
 */
export function coerceForm(fields: Record<string, string[]>, schema: ObjectSchema): Record<string, unknown> {
  const shape = schema.shape ?? {};
  const out: Record<string, unknown> = {};
  for (const [key, values] of Object.entries(fields)) {
    const field = shape[key];
    const typed = values.map((value) => typeFormValue(value, field));
    const single = typed.length === 1 ? typed[0] : typed;
    out[key] = field && !field.safeParse(single).success && field.safeParse(typed).success ? typed : single;
  }
  return out;
}

function typeFormValue(value: string, field: z.ZodType | undefined): unknown {
  if (field?.safeParse(value).success) return value;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return value;
  }
}

/** Decoded body → the operation's typed input, or a DRF 400 naming every bad field. */
export function validate<S extends ObjectSchema>(schema: S, decoded: unknown): z.output<S> {
  const input = decoded instanceof FormBody ? coerceForm(decoded.fields, schema) : decoded;
  if (input === null || typeof input !== 'object' || Array.isArray(input)) {
    throw fieldError({ non_field_errors: ['Invalid data. Expected a dictionary.'] });
  }
  const result = schema.safeParse(input, { reportInput: true });
  if (!result.success) throw fieldError(drfErrors(result.error.issues, schema));
  return result.data as z.output<S>;
}
