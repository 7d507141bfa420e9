import { z } from 'zod';
import { ManifestSchema } from './schema.js';

/**
 * The manifest's JSON Schema, for editors (`# yaml-language-server: $schema=…`). Generated from
 * the same zod schema that validates, in its input form (fields with defaults are optional).
 */
export function manifestJsonSchema(): Record<string, unknown> {
  return {
    ...z.toJSONSchema(ManifestSchema, { io: 'input', unrepresentable: 'any' }),
    title: 'reelpipe manifest',
  };
}
