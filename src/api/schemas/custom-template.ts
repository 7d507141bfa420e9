import { z } from 'zod';
import { ModelVersion, Timestamp, Uuid, WebhookUrl, ro, stringMax } from './common.js';

export const TEMPLATE_VARIABLE_TYPES = ['avatar', 'image', 'video', 'audio', 'voiceover', 'text'] as const;

/**
 * Custom template jobs: their fields are not shown. Inferred: the video-job life cycle, `preview`
 * filled first, `video_output` at done (the spec's "poll until preview… until done with the link
 * in video_output"), credits_used, failed_reason (assumptions.md).
 */
export const TEMPLATE_JOB_STATES = ['pending', 'in_queue', 'running', 'done', 'failed', 'rejected'] as const;

export const TemplateEntry = z.looseObject({
  template_id: z.string(),
  name: ro(z.string()),
  preview: ro(z.string()),
  aspect_ratio: ro(z.string()),
  created_at: ro(Timestamp),
  updated_at: ro(Timestamp),
});
export type TemplateEntry = z.infer<typeof TemplateEntry>;

/** A variable of a template as its detail shows it, keyed by variable name. */
export const TemplateVariable = z.looseObject({ type: z.enum(TEMPLATE_VARIABLE_TYPES) });

export const TemplateDetail = TemplateEntry.extend({
  variables: z.record(z.string(), TemplateVariable),
});
export type TemplateDetail = z.infer<typeof TemplateDetail>;

export const TemplateJob = z.looseObject({
  id: Uuid,
  status: z.enum(TEMPLATE_JOB_STATES),
  template_id: ro(z.string()),
  name: ro(z.string()),
  variables: ro(z.record(z.string(), z.unknown())),
  preview: ro(z.string()),
  video_output: ro(z.string()),
  credits_used: ro(z.number()),
  failed_reason: ro(z.string()),
  progress: ro(z.number()),
  model_version: ro(ModelVersion),
  webhook_url: ro(z.string()),
  created_at: ro(Timestamp),
  updated_at: ro(Timestamp),
});
export type TemplateJob = z.infer<typeof TemplateJob>;

/**
 * A variable's value: a string (text, image/video/audio URL) or an object for avatar
 * ({avatar_id}) and voiceover ({voice_id}).
 */
const VariableValue = z.union([
  z.string(),
  z.number(),
  z.looseObject({ avatar_id: Uuid }),
  z.looseObject({ voice_id: Uuid }),
]);

/** POST /api/custom_template_jobs/ and …/preview_async/ (behaviour notes). */
export const TemplateJobCreate = z.strictObject({
  template_id: z.string().min(1),
  variables: z.record(z.string(), VariableValue).default({}),
  name: stringMax(255).optional(),
  webhook_url: WebhookUrl,
  model_version: ModelVersion.optional(),
});
export type TemplateJobCreate = z.infer<typeof TemplateJobCreate>;

/** POST /api/custom_template_jobs/{id}/render/ — renders a finished preview. */
export const TemplateRender = z.strictObject({
  webhook_url: WebhookUrl,
});
export type TemplateRender = z.infer<typeof TemplateRender>;
