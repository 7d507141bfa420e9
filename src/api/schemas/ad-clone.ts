import { z } from 'zod';
import { Timestamp, Uuid, VideoAspectRatio, VideoJobStatus, WebhookUrl, ro } from './common.js';

export const LANGUAGES = [
  'af', 'ar', 'as', 'az', 'be', 'bg', 'bn', 'bs', 'ca', 'cb', 'cs', 'cy', 'da', 'de', 'el', 'en',
  'es', 'et', 'fa', 'fi', 'fl', 'fr', 'ga', 'gl', 'gu', 'ha', 'he', 'hi', 'hr', 'hu', 'hy', 'id',
  'is', 'it', 'ja', 'jv', 'ka', 'kk', 'kn', 'ko', 'ky', 'lb', 'ln', 'lt', 'lv', 'mk', 'ml', 'mr',
  'ms', 'ne', 'nl', 'no', 'ny', 'pa', 'pl', 'ps', 'pt', 'ro', 'ru', 'sd', 'sk', 'sl', 'so', 'sr',
  'sv', 'sw', 'ta', 'te', 'th', 'tl', 'tr', 'uk', 'ur', 'vi', 'zh',
] as const;

export const AdClone = z.looseObject({
  id: Uuid,
  status: VideoJobStatus,
  created_at: ro(Timestamp),
  updated_at: ro(Timestamp),
  link: ro(Uuid),
  video_url: ro(z.string()),
  video_output: ro(z.string()),
  credits_used: ro(z.number()),
  media_job: ro(z.string()),
  aspect_ratio: ro(VideoAspectRatio),
  language: ro(z.enum(LANGUAGES)),
  webhook_url: ro(z.string()),
  failed_reason: ro(z.string()),
});
export type AdClone = z.infer<typeof AdClone>;

/** POST /api/ads_clone/ (behaviour notes): link and video_url required; language null keeps the original. */
export const AdCloneCreate = z.strictObject({
  link: Uuid,
  video_url: z.url(),
  aspect_ratio: VideoAspectRatio.optional(),
  language: z.enum(LANGUAGES).nullish(),
  webhook_url: WebhookUrl,
});
export type AdCloneCreate = z.infer<typeof AdCloneCreate>;
