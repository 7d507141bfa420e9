import { z } from 'zod';
import {
  AdClone, AdCloneCreate, AiEditing, AiEditingCreate, AiShort, AiShortCreate, Asset, AssetCreate,
  BorealCreate, BorealItem, ClonedVoice, HtmlAdCreate, HtmlAdJob, LipsyncCreate, LipsyncItem, Link,
  LinkCreate, LinkUpdate, LinkWithParams, MusicQuery, Music, Persona, PersonaCreate, ProductRegen,
  ProductTask, TemplateJob, TemplateJobCreate, TemplateRender, TextCreate, TextTask, Uuid, VoiceCreate,
} from '../../api/schemas/index.js';
import type { StepKind } from '../../step-kinds.js';
import type { CustomTemplateMode } from './schema.js';

/**
 * What each step kind sends and what it yields, keyed by StepKind so a new kind is a compile
 * error here until handled. `with:` is checked by exactly these schemas — the client's own — so
 * a manifest that validates sends bodies the client accepts.
 */

/** Kinds whose operation takes an id in its path: the step takes it as `id` in `with:`. */
const withPathId = <T extends z.ZodObject>(body: T) => body.extend({ id: Uuid });

const REQUESTS: Record<StepKind, z.ZodType> = {
  ai_short: AiShortCreate,
  ai_editing: AiEditingCreate,
  product_regen: withPathId(ProductRegen),
  persona: PersonaCreate,
  persona_delete: z.strictObject({ id: Uuid }),
  voice_clone: VoiceCreate,
  link: LinkCreate,
  link_with_params: LinkWithParams,
  link_update: withPathId(LinkUpdate),
  html_ads: HtmlAdCreate,
  lipsync_v2: LipsyncCreate,
  boreal: BorealCreate,
  ad_clone: AdCloneCreate,
  text_generation: TextCreate,
  asset_generation: AssetCreate,
  // preview and both create a job from the template; render is overridden below.
  custom_template: TemplateJobCreate,
  music: MusicQuery,
};

/** custom_template with mode render renders an existing preview job: POST …/{id}/render/. */
const TEMPLATE_RENDER = withPathId(TemplateRender);

/** @default 'both' — preview then the final render, in one create call. */
export const DEFAULT_TEMPLATE_MODE: CustomTemplateMode = 'both';

export function requestSchemaFor(kind: StepKind, mode?: CustomTemplateMode): z.ZodType {
  return kind === 'custom_template' && mode === 'render' ? TEMPLATE_RENDER : REQUESTS[kind];
}

export function takesPathId(kind: StepKind, mode?: CustomTemplateMode): boolean {
  return (
    kind === 'product_regen' ||
    kind === 'link_update' ||
    kind === 'persona_delete' ||
    (kind === 'custom_template' && mode === 'render')
  );
}

/**
 * The result a step's jobs yield, which `{{ steps.ID.FIELD }}` and `{{ item.FIELD }}` read.
 * A music step yields one track: the first of the page its query returns. A delete yields nothing.
 */
export const RESULTS: Record<StepKind, z.ZodObject | null> = {
  ai_short: AiShort,
  ai_editing: AiEditing,
  product_regen: ProductTask,
  persona: Persona,
  persona_delete: null,
  voice_clone: ClonedVoice,
  link: Link,
  link_with_params: Link,
  link_update: Link,
  html_ads: HtmlAdJob,
  lipsync_v2: LipsyncItem,
  boreal: BorealItem,
  ad_clone: AdClone,
  text_generation: TextTask,
  asset_generation: Asset,
  custom_template: TemplateJob,
  music: Music,
};
