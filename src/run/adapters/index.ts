import type { StepKind } from '../../step-kinds.js';
import { customTemplateModes } from './custom-template.js';
import {
  assetGeneration, htmlAds, link, linkUpdate, linkWithParams, music, persona, personaDelete, textGeneration, voiceClone,
} from './other-kinds.js';
import type { KindAdapter } from './types.js';
import { adClone, aiEditing, aiShort, boreal, lipsync, productRegen } from './video-kinds.js';

export * from './types.js';
export { inWindow } from './video-kinds.js';

/** One adapter per step kind: a kind added to STEP_KINDS is a compile error here until handled. */
export const ADAPTERS: Record<StepKind, KindAdapter> = {
  ai_short: aiShort,
  ai_editing: aiEditing,
  product_regen: productRegen,
  persona,
  persona_delete: personaDelete,
  voice_clone: voiceClone,
  link,
  link_with_params: linkWithParams,
  link_update: linkUpdate,
  html_ads: htmlAds,
  lipsync_v2: lipsync,
  boreal,
  ad_clone: adClone,
  text_generation: textGeneration,
  asset_generation: assetGeneration,
  custom_template: customTemplateModes.both,
  music,
};

/** The adapter for a job: its kind's, or for custom_template the one of its mode. */
export function adapterFor(kind: StepKind, mode?: string): KindAdapter {
  if (kind === 'custom_template' && (mode === 'preview' || mode === 'render' || mode === 'both')) {
    return customTemplateModes[mode];
  }
  return ADAPTERS[kind];
}
