import { z } from 'zod';
import { Timestamp, Uuid, VideoAspectRatio, WebhookUrl, prose, ro } from './common.js';

export const PRODUCT_STATES = [
  'initializing', 'image_generating', 'image_generated', 'video_generating', 'video_generated', 'failed',
] as const;
export const PRODUCT_TYPES = ['product_anyshot', 'product_avatar'] as const;
/** motion_style may also be blank. */
export const MOTION_STYLES = ['talking', 'display', ''] as const;

export const ProductTask = z.looseObject({
  id: Uuid,
  status: z.enum(PRODUCT_STATES),
  product_url: ro(z.string()),
  generated_video_url: ro(z.string()),
  generated_photo_url: ro(z.string()),
  created_at: ro(Timestamp),
  updated_at: ro(Timestamp),
  failed_reason: ro(z.string()),
  regen_type: ro(z.string()),
  regen_source_id: ro(z.string()),
  type: ro(z.enum(PRODUCT_TYPES)),
  aspect_ratio: ro(VideoAspectRatio),
  override_avatar: ro(Uuid),
  motion_style: ro(z.enum(MOTION_STYLES)),
  product_showcase_url: ro(z.string()),
  image_prompt: ro(z.string()),
  video_prompt: ro(z.string()),
  webhook_url: ro(z.string()),
});
export type ProductTask = z.infer<typeof ProductTask>;

/** POST /api/product_to_videos/{id}/regen_video/ */
export const ProductRegen = z.strictObject({
  video_prompt: prose().optional(),
  webhook_url: WebhookUrl,
});
export type ProductRegen = z.infer<typeof ProductRegen>;

/** POST /api/product_to_videos/gen_image/ (behaviour notes; body inferred from the task's fields). */
export const ProductGenImage = z.strictObject({
  product_url: z.url(),
  type: z.enum(PRODUCT_TYPES).optional(),
  aspect_ratio: VideoAspectRatio.optional(),
  override_avatar: Uuid.nullish(),
  image_prompt: prose().optional(),
  webhook_url: WebhookUrl,
});
export type ProductGenImage = z.infer<typeof ProductGenImage>;

/** POST /api/product_to_videos/{id}/gen_video/ (behaviour notes; body inferred). */
export const ProductGenVideo = z.strictObject({
  video_prompt: prose().optional(),
  motion_style: z.enum(MOTION_STYLES).optional(),
  webhook_url: WebhookUrl,
});
export type ProductGenVideo = z.infer<typeof ProductGenVideo>;
