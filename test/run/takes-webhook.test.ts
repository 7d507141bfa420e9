import type { z } from 'zod';
import { describe, expect, test } from 'vitest';
import { OPERATIONS } from '../../src/api/operations.js';
import { unwrap } from '../../src/api/schemas/schema-walk.js';
import { requestSchemaFor } from '../../src/manifest/check/kinds.js';
import { TAKES_WEBHOOK } from '../../src/run/submit/submit-job.js';
import { STEP_KINDS, type StepKind } from '../../src/step-kinds.js';

/**
 * TAKES_WEBHOOK (the kinds whose attempts get their own webhook address when a run listens) is
 * written by hand; the request schemas of src/api/schemas are what the client actually sends. A kind
 * missing from the list is never adopted from a delivery; a kind listed whose body has no
 * webhook_url would have every POST refused by the strict body schema.
 */
const declaresWebhook = (schema: z.core.$ZodType): boolean => {
  const def = unwrap(schema)._zod.def as { type: string; shape?: Record<string, unknown> };
  return def.type === 'object' && def.shape !== undefined && Object.hasOwn(def.shape, 'webhook_url');
};

/**
 * Which step kind sends each creating operation whose body takes webhook_url; null for the ones no
 * step sends. A new such operation fails the last test until it is placed here.
 */
const SENT_BY: Record<string, StepKind | null> = {
  'aiShorts.create': 'ai_short',
  'aiEditing.create': 'ai_editing',
  'productToVideos.regen': 'product_regen',
  'productToVideos.genImage': null,
  'productToVideos.genVideo': null,
  'personas.create': 'persona',
  'htmlAds.create': 'html_ads',
  'lipsyncs.create': 'lipsync_v2',
  'boreal.create': 'boreal',
  'adClones.create': 'ad_clone',
  'textGenerator.create': 'text_generation',
  'assetGenerator.create': 'asset_generation',
  'customTemplates.preview': 'custom_template',
  'customTemplates.createAndRender': 'custom_template',
  // mode render: submit-job gives it no per-attempt address (it renders a preview another job owns).
  'customTemplates.render': 'custom_template',
};

describe('the kinds given a per-attempt webhook address', () => {
  test.each(STEP_KINDS.map((kind) => [kind, declaresWebhook(requestSchemaFor(kind))] as const))(
    '%s: listed exactly when its request schema declares webhook_url (%s)',
    (kind, declares) => {
      expect(TAKES_WEBHOOK.has(kind)).toBe(declares);
    },
  );

  test('lists only step kinds', () => {
    expect([...TAKES_WEBHOOK].filter((kind) => !(STEP_KINDS as readonly string[]).includes(kind))).toEqual([]);
  });

  test('every creating operation whose body takes webhook_url is sent by a listed kind, or by no step', () => {
    const creating = Object.entries(OPERATIONS).filter(([, op]) => op.effect === 'creates' && 'body' in op && declaresWebhook(op.body));
    expect(creating.map(([name]) => name).sort()).toEqual(Object.keys(SENT_BY).sort());
    for (const [name, kind] of Object.entries(SENT_BY)) if (kind) expect(TAKES_WEBHOOK.has(kind), name).toBe(true);
  });
});
