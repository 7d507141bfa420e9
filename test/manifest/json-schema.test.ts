import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { parse } from 'yaml';
import { describe, expect, test } from 'vitest';
import { manifestJsonSchema, requestSchemaFor } from '../../src/manifest/index.js';
import { acceptedKeys } from '../../src/api/schemas/schema-walk.js';
import { STEP_KINDS } from '../../src/step-kinds.js';
import { REPO_ROOT } from '../helpers/cli.js';

/**
 * What an editor does with `reelpipe schema`: complete a step's `with:` fields by its kind and
 * check them, accepting `{{ … }}` placeholders wherever a value goes. Checked with ajv, a
 * JSON Schema 2020-12 validator like the ones editors embed.
 */
const schema = manifestJsonSchema();
const check = new Ajv2020({ strict: false, allErrors: true, validateFormats: false }).compile(schema);
const defs = schema.$defs as Record<string, { properties: Record<string, unknown> }>;
const errorsOf = (manifest: unknown) => (check(manifest) ? [] : (check.errors ?? []).map((e) => `${e.instancePath} ${e.message ?? ''} ${JSON.stringify(e.params)}`));
const step = (kind: string, withFields: object, extra: object = {}) => ({ version: 1, name: 't', steps: [{ id: 's', kind, ...extra, with: withFields }] });

describe('the JSON Schema', () => {
  const shipped = ['examples', 'pipelines'].flatMap((dir) =>
    readdirSync(path.join(REPO_ROOT, dir)).filter((f) => f.endsWith('.yaml')).map((f) => path.join(dir, f)),
  );
  test.each(shipped)('accepts %s', (file) => {
    expect(errorsOf(parse(readFileSync(path.join(REPO_ROOT, file), 'utf8')))).toEqual([]);
  });

  test.each(STEP_KINDS)('offers the %s request fields for completion', (kind) => {
    const fields = Object.keys(defs[`with_${kind}`]?.properties ?? {});
    expect(fields).toEqual(acceptedKeys(requestSchemaFor(kind), []));
    expect(fields.length).toBeGreaterThan(0);
  });

  test('a custom_template render step gets the render request', () => {
    expect(errorsOf(step('custom_template', { id: '{{ item.id }}' }, { mode: 'render' }))).toEqual([]);
    expect(errorsOf(step('custom_template', { id: 'x' }))).toContainEqual(expect.stringContaining('"additionalProperty":"id"'));
  });

  test.each([
    ['a misspelt field', step('ai_short', { scirpt: 'Hi', aspect_ratio: '9x16', style: 'Cinematic' }), '"additionalProperty":"scirpt"'],
    ['a bad enum value', step('ai_short', { script: 'Hi', aspect_ratio: '9:16' }), '/steps/0/with/aspect_ratio must be equal to one of the allowed values'],
    ['a number as text', step('boreal', { prompt: 'waves', duration: 'ten' }), '/steps/0/with/duration must be number'],
    ['a field of another kind', step('link', { url: 'https://example.com', script: 'x' }), '"additionalProperty":"script"'],
    ['defaults of a kind with an unknown field', { ...step('link', { url: 'https://example.com' }), defaults: { link: { uri: 'x' } } }, '"additionalProperty":"uri"'],
  ])('rejects %s', (_, manifest, expected) => {
    expect(errorsOf(manifest).join('\n')).toContain(expected);
  });

  test('takes placeholders for enums, numbers, booleans, lists and path ids, and leaves required fields to defaults', () => {
    const manifest = step('ai_short', { script: '{{ row.script }}', aspect_ratio: '{{ matrix.ratio }}', background_music_volume: '{{ row.volume }}', caption_setting: { font_family: '{{ env.FONT }}' } });
    expect(errorsOf(manifest)).toEqual([]);
    expect(errorsOf(step('html_ads', { link: '{{ steps.p.id }}', style_ids: 'all' }))).toEqual([]);
    expect(errorsOf(step('boreal', { prompt: 'p', duration: '{{ matrix.s }}', reference_image_urls: '{{ row.images }}' }))).toEqual([]);
    expect(errorsOf(step('product_regen', { id: '{{ steps.p.id }}' }))).toEqual([]);
  });
});
