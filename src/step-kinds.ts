/**
 * Every kind of step a manifest can declare: one per capability of the service. The manifest
 * schema, the planner's estimator, and the runner's job adapters are each a table keyed by this
 * union, so a kind added here is a compile error wherever it is not yet handled.
 */
export const STEP_KINDS = [
  'ai_short',
  'ai_editing',
  'product_regen',
  'persona',
  'persona_delete',
  'voice_clone',
  'link',
  'link_with_params',
  'link_update',
  'html_ads',
  'lipsync_v2',
  'boreal',
  'ad_clone',
  'text_generation',
  'asset_generation',
  'custom_template',
  'music',
] as const;

export type StepKind = (typeof STEP_KINDS)[number];

/** What each kind does, for `--help`, docs and error messages. */
export const STEP_KIND_SUMMARY: Record<StepKind, string> = {
  ai_short: 'AI Short from a script (POST /api/ai_shorts/)',
  ai_editing: 'AI edit of a supplied video (POST /api/ai_editing/)',
  product_regen: 'regenerate a finished product video (POST /api/product_to_videos/{id}/regen_video/)',
  persona: 'create a custom avatar (POST /api/personas_v2/)',
  persona_delete: 'delete a custom avatar (DELETE /api/personas/{id}/)',
  voice_clone: 'clone a voice from an audio URL (POST /api/voices/)',
  link: 'scrape a product page into a link (POST /api/links/)',
  link_with_params: 'a link from your own title and images (POST /api/links/link_with_params/)',
  link_update: 'fix a link before ads are built from it (PUT /api/links/{id}/)',
  html_ads: 'HTML playable ads, one per style (POST /api/html_interactive_ads/)',
  lipsync_v2: 'AI Avatar v2 lipsync video (POST /api/lipsyncs_v2/)',
  boreal: 'Boreal or Boreal-H3 video from a prompt (POST /api/boreal/)',
  ad_clone: 'clone a reference ad for a link (POST /api/ads_clone/)',
  text_generation: 'text generation (POST /api/text_generator/)',
  asset_generation: 'image, video or audio asset (POST /api/asset_generator/)',
  custom_template: 'preview and/or render a custom template (/api/custom_template_jobs/)',
  music: 'look up a music track for other steps (GET /api/musics/)',
};
