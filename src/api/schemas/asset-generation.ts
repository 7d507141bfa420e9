import { z } from 'zod';
import { Timestamp, Uuid, WebhookUrl, ro, stringMax } from './common.js';

export const ASSET_STATES = ['initializing', 'generating', 'done', 'failed'] as const;
export const GENERATION_TYPES = [
  'text_to_image', 'image_to_image', 'text_to_video', 'image_to_video', 'text_to_audio',
  'audio_to_audio', 'text_to_music', 'video_to_video', 'video_to_image', 'text_to_text',
] as const;

const INT32 = { max: 2147483647 } as const;

/** One generated file of an asset (behaviour notes: at done, {id, type, url, thumbnail_url, name}). */
export const GeneratedFile = z.looseObject({
  id: ro(z.string()),
  type: ro(z.string()),
  url: z.string(),
  thumbnail_url: ro(z.string()),
  name: ro(z.string()),
});

export const Asset = z.looseObject({
  id: Uuid,
  status: z.enum(ASSET_STATES),
  model_name: ro(z.string()),
  gen_type: ro(z.string()),
  failed_reason: ro(z.string()),
  assets: ro(z.array(GeneratedFile)),
  duration: ro(z.number()),
  input_params: ro(z.record(z.string(), z.unknown())),
  credits_used: ro(z.number()),
  created_at: ro(Timestamp),
  updated_at: ro(Timestamp),
  aspect_ratio: ro(z.string()),
  output_nums: ro(z.int()),
  resolution: ro(z.string()),
  webhook_url: ro(z.string()),
});
export type Asset = z.infer<typeof Asset>;

/** POST /api/asset_generator/ (behaviour notes); input_params must satisfy the model's schema. */
export const AssetCreate = z.strictObject({
  model_name: z.string().min(1),
  input_params: z.record(z.string(), z.unknown()),
  aspect_ratio: stringMax(128).optional(),
  resolution: stringMax(128).optional(),
  // Why at least 1: the spec gives only the 32-bit range, but no output makes no asset; one rule
  // here, so the client refuses what the sandbox (which parses with this schema) would refuse.
  output_nums: z.int().min(1).max(INT32.max).optional(),
  webhook_url: WebhookUrl,
});
export type AssetCreate = z.infer<typeof AssetCreate>;

export const AssetModelSchema = z.looseObject({
  model_name: z.string(),
  generation_type: z.enum(GENERATION_TYPES),
  input_params_schema: z.looseObject({
    $schema: ro(z.string()),
    required: ro(z.array(z.string())),
    properties: z.record(z.string(), z.unknown()),
  }),
});
export type AssetModelSchema = z.infer<typeof AssetModelSchema>;
