import { z } from 'zod';
import type { Effect } from './retry-policy.js';
import * as s from './schemas/index.js';

/** One operation of the service: where it lives, what it takes and returns, what it does. */
export interface OperationSpec {
  readonly method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** Path template; `{id}` is the one path parameter. */
  readonly path: string;
  /** Decides the retry policy: only `creates` is never resent once it may have arrived. */
  readonly effect: Effect;
  /**
   * What `{id}` holds: a UUID (checked before sending) or free text (template ids are editor
   * video ids, format not shown).
   * @default 'uuid'
   */
  readonly pathId?: 'uuid' | 'text';
  /** Strict request-body schema: a bad body never leaves the process. */
  readonly body?: z.ZodType;
  /** Query schema, checked before sending. */
  readonly query?: z.ZodType;
  /** Loose response schema; absent when the answer carries nothing to read (DELETE). */
  readonly response?: z.ZodType;
  /**
   * Where the path and body come from: the interface spec, the behaviour notes, or our own
   * inference. Everything not `spec` is explained in docs/assumptions.md.
   */
  readonly source: 'spec' | 'behaviour' | 'inferred';
}

const list = <T extends z.ZodType>(item: T) => z.array(item);
const IdsQuery = z.strictObject({ ids: s.ListQuery.shape.ids.unwrap() });
const SchemasQuery = z.strictObject({ model_name: z.array(z.string().min(1)).min(1).optional() });

/**
 * Every operation, in one table. The `effect` column is the one place that marks the creating
 * POSTs: those (and only those) become in-doubt instead of being resent.
 */
export const OPERATIONS = {
  'aiShorts.create': { method: 'POST', path: '/api/ai_shorts/', effect: 'creates', body: s.AiShortCreate, response: s.AiShort, source: 'spec' },
  'aiShorts.get': { method: 'GET', path: '/api/ai_shorts/{id}/', effect: 'reads', response: s.AiShort, source: 'spec' },
  'aiShorts.list': { method: 'GET', path: '/api/ai_shorts/', effect: 'reads', query: IdsQuery, response: list(s.AiShort), source: 'behaviour' },

  'aiEditing.create': { method: 'POST', path: '/api/ai_editing/', effect: 'creates', body: s.AiEditingCreate, response: s.AiEditing, source: 'spec' },
  'aiEditing.get': { method: 'GET', path: '/api/ai_editing/{id}/', effect: 'reads', response: s.AiEditing, source: 'inferred' },

  'productToVideos.regen': { method: 'POST', path: '/api/product_to_videos/{id}/regen_video/', effect: 'creates', body: s.ProductRegen, response: s.ProductTask, source: 'spec' },
  'productToVideos.get': { method: 'GET', path: '/api/product_to_videos/{id}/', effect: 'reads', response: s.ProductTask, source: 'inferred' },
  'productToVideos.genImage': { method: 'POST', path: '/api/product_to_videos/gen_image/', effect: 'creates', body: s.ProductGenImage, response: s.ProductTask, source: 'behaviour' },
  'productToVideos.genVideo': { method: 'POST', path: '/api/product_to_videos/{id}/gen_video/', effect: 'creates', body: s.ProductGenVideo, response: s.ProductTask, source: 'behaviour' },

  'personas.create': { method: 'POST', path: '/api/personas_v2/', effect: 'creates', body: s.PersonaCreate, response: s.Persona, source: 'spec' },
  'personas.get': { method: 'GET', path: '/api/personas_v2/{id}/', effect: 'reads', response: s.Persona, source: 'inferred' },
  'personas.delete': { method: 'DELETE', path: '/api/personas/{id}/', effect: 'deletes', source: 'spec' },

  'voices.create': { method: 'POST', path: '/api/voices/', effect: 'creates', body: s.VoiceCreate, response: s.ClonedVoice, source: 'spec' },

  'links.create': { method: 'POST', path: '/api/links/', effect: 'creates', body: s.LinkCreate, response: s.Link, source: 'spec' },
  'links.createWithParams': { method: 'POST', path: '/api/links/link_with_params/', effect: 'creates', body: s.LinkWithParams, response: s.Link, source: 'spec' },
  'links.update': { method: 'PUT', path: '/api/links/{id}/', effect: 'replaces', body: s.LinkUpdate, response: s.Link, source: 'spec' },
  'links.get': { method: 'GET', path: '/api/links/{id}/', effect: 'reads', response: s.Link, source: 'inferred' },

  'htmlAds.create': { method: 'POST', path: '/api/html_interactive_ads/', effect: 'creates', body: s.HtmlAdCreate, response: s.HtmlAdJob, source: 'spec' },
  'htmlAds.get': { method: 'GET', path: '/api/html_interactive_ads/{id}/', effect: 'reads', response: s.HtmlAdJob, source: 'behaviour' },
  'htmlAds.list': { method: 'GET', path: '/api/html_interactive_ads/', effect: 'reads', query: IdsQuery, response: list(s.HtmlAdJob), source: 'behaviour' },
  'htmlAds.styles': { method: 'GET', path: '/api/html_interactive_ads/styles/', effect: 'reads', response: list(s.HtmlAdStyle), source: 'spec' },

  'lipsyncs.create': { method: 'POST', path: '/api/lipsyncs_v2/', effect: 'creates', body: s.LipsyncCreate, response: s.LipsyncItem, source: 'behaviour' },
  'lipsyncs.get': { method: 'GET', path: '/api/lipsyncs_v2/{id}/', effect: 'reads', response: s.LipsyncItem, source: 'behaviour' },
  'lipsyncs.list': { method: 'GET', path: '/api/lipsyncs_v2/', effect: 'reads', query: s.ListQuery, response: list(s.LipsyncItem), source: 'spec' },

  'boreal.create': { method: 'POST', path: '/api/boreal/', effect: 'creates', body: s.BorealCreate, response: s.BorealItem, source: 'spec' },
  'boreal.get': { method: 'GET', path: '/api/boreal/{id}/', effect: 'reads', response: s.BorealItem, source: 'spec' },

  'adClones.create': { method: 'POST', path: '/api/ads_clone/', effect: 'creates', body: s.AdCloneCreate, response: s.AdClone, source: 'behaviour' },
  'adClones.get': { method: 'GET', path: '/api/ads_clone/{id}/', effect: 'reads', response: s.AdClone, source: 'behaviour' },
  'adClones.list': { method: 'GET', path: '/api/ads_clone/', effect: 'reads', response: list(s.AdClone), source: 'spec' },

  'textGenerator.create': { method: 'POST', path: '/api/text_generator/', effect: 'creates', body: s.TextCreate, response: s.TextTask, source: 'behaviour' },
  'textGenerator.get': { method: 'GET', path: '/sse/text_generator/{id}/', effect: 'reads', response: s.TextTask, source: 'spec' },

  'assetGenerator.create': { method: 'POST', path: '/api/asset_generator/', effect: 'creates', body: s.AssetCreate, response: s.Asset, source: 'behaviour' },
  'assetGenerator.get': { method: 'GET', path: '/api/asset_generator/{id}/', effect: 'reads', response: s.Asset, source: 'spec' },
  'assetGenerator.schemas': { method: 'GET', path: '/api/asset_generator/schemas/', effect: 'reads', query: SchemasQuery, response: list(s.AssetModelSchema), source: 'spec' },

  'musics.list': { method: 'GET', path: '/api/musics/', effect: 'reads', query: s.MusicQuery, response: s.MusicPage, source: 'behaviour' },

  'customTemplates.list': { method: 'GET', path: '/api/custom_templates/', effect: 'reads', response: list(s.TemplateEntry), source: 'spec' },
  'customTemplates.get': { method: 'GET', path: '/api/custom_templates/{id}/', effect: 'reads', pathId: 'text', response: s.TemplateDetail, source: 'behaviour' },
  'customTemplates.preview': { method: 'POST', path: '/api/custom_template_jobs/preview_async/', effect: 'creates', body: s.TemplateJobCreate, response: s.TemplateJob, source: 'behaviour' },
  'customTemplates.createAndRender': { method: 'POST', path: '/api/custom_template_jobs/', effect: 'creates', body: s.TemplateJobCreate, response: s.TemplateJob, source: 'behaviour' },
  // Rendering a finished preview starts paid work; resending could start it twice.
  'customTemplates.render': { method: 'POST', path: '/api/custom_template_jobs/{id}/render/', effect: 'creates', body: s.TemplateRender, response: s.TemplateJob, source: 'behaviour' },
  'customTemplates.getJob': { method: 'GET', path: '/api/custom_template_jobs/{id}/', effect: 'reads', response: s.TemplateJob, source: 'spec' },

  'credits.remaining': { method: 'GET', path: '/api/remaining_credits/', effect: 'reads', response: s.RemainingCredits, source: 'behaviour' },
} as const satisfies Record<string, OperationSpec>;

export type OperationName = keyof typeof OPERATIONS;
export const OPERATION_NAMES = Object.keys(OPERATIONS) as OperationName[];

/** The parsed answer of an operation (void for DELETE). */
export type ResultOf<N extends OperationName> = (typeof OPERATIONS)[N] extends { response: infer R extends z.ZodType }
  ? z.output<R>
  : void;
