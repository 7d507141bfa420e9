import { z } from 'zod';
import { Timestamp, Uuid, VideoJobStatus, WebhookUrl, prose, ro } from './common.js';

export const BOREAL_MODELS = ['boreal', 'boreal-h3'] as const;
export type BorealModel = (typeof BOREAL_MODELS)[number];
export const BOREAL_RESOLUTIONS = ['720p', '1080p', '2k', '768p', '1088p'] as const;
export type BorealResolution = (typeof BOREAL_RESOLUTIONS)[number];
export const BOREAL_ASPECT_RATIOS = ['auto', '16:9', '9:16', '1:1', '4:3', '3:4'] as const;
export const PROMPT_ENHANCEMENTS = ['auto', 'none'] as const;

/** Limits item 5 and 6: resolutions per model, the first being the default. */
export const MODEL_RESOLUTIONS: Record<BorealModel, readonly BorealResolution[]> = {
  boreal: ['720p', '1080p', '2k'],
  'boreal-h3': ['768p', '1088p', '2k'],
};
/** Limits item 5: boreal's longest duration per resolution, in seconds. */
export const BOREAL_MAX_SECONDS: Partial<Record<BorealResolution, number>> = { '720p': 60, '1080p': 30, '2k': 15 };
/** Limits item 6: boreal-h3 takes a whole number of seconds from 5 to 15. */
export const H3_SECONDS = { min: 5, max: 15 } as const;
export const H3_REFERENCE_MAX = { images: 9, videos: 3, audios: 3 } as const;
const URL_MAX = 2000;

export const BorealItem = z.looseObject({
  id: Uuid,
  status: VideoJobStatus,
  created_at: ro(Timestamp),
  updated_at: ro(Timestamp),
  prompt: ro(z.string()),
  failed_reason: ro(z.string()),
  video_output: ro(z.string()),
  credits_used: ro(z.number()),
  progress: ro(z.number()),
  model: ro(z.enum(BOREAL_MODELS)),
  image_url: ro(z.string()),
  end_image_url: ro(z.string()),
  audio_url: ro(z.string()),
  reference_image_urls: ro(z.array(z.string())),
  reference_video_urls: ro(z.array(z.string())),
  reference_audio_urls: ro(z.array(z.string())),
  resolution: ro(z.enum(BOREAL_RESOLUTIONS)),
  aspect_ratio: ro(z.enum(BOREAL_ASPECT_RATIOS)),
  duration: ro(z.number()),
  negative_prompt: ro(z.string()),
  prompt_enhancement: ro(z.enum(PROMPT_ENHANCEMENTS)),
  webhook_url: ro(z.string()),
});
export type BorealItem = z.infer<typeof BorealItem>;

const BorealUrl = z.url().max(URL_MAX);

export const BorealCreateShape = z.strictObject({
  prompt: prose().min(1),
  model: z.enum(BOREAL_MODELS).optional(),
  image_url: BorealUrl.optional(),
  end_image_url: BorealUrl.optional(),
  audio_url: BorealUrl.optional(),
  reference_image_urls: z.array(BorealUrl).max(H3_REFERENCE_MAX.images).optional(),
  reference_video_urls: z.array(BorealUrl).max(H3_REFERENCE_MAX.videos).optional(),
  reference_audio_urls: z.array(BorealUrl).max(H3_REFERENCE_MAX.audios).optional(),
  resolution: z.enum(BOREAL_RESOLUTIONS).optional(),
  aspect_ratio: z.enum(BOREAL_ASPECT_RATIOS).optional(),
  duration: z.number().optional(),
  negative_prompt: prose().optional(),
  prompt_enhancement: z.enum(PROMPT_ENHANCEMENTS).optional(),
  webhook_url: WebhookUrl,
});
export type BorealCreate = z.infer<typeof BorealCreateShape>;

/** A broken cross-field rule: the field to blame and why. */
export interface RuleViolation {
  field: keyof BorealCreate;
  message: string;
}
type BorealRule = (body: BorealCreate) => RuleViolation | undefined;

const count = (list: readonly unknown[] | undefined) => list?.length ?? 0;
const isReferenceRender = (b: BorealCreate) =>
  count(b.reference_image_urls) + count(b.reference_video_urls) + count(b.reference_audio_urls) > 0;
const h3 = (b: BorealCreate) => b.model === 'boreal-h3';
const REFERENCE_FIELDS = ['reference_image_urls', 'reference_video_urls', 'reference_audio_urls'] as const;

/**
 * Limits items 5–7 as one small rule each. A rule returns the violation or nothing; every
 * violation is reported, so a user sees all of them at once.
 */
export const BOREAL_RULES: Record<string, BorealRule> = {
  resolutionOfModel: (b) => {
    const allowed = MODEL_RESOLUTIONS[b.model ?? 'boreal'];
    return b.resolution && !allowed.includes(b.resolution)
      ? { field: 'resolution', message: `${b.model ?? 'boreal'} takes ${allowed.join(', ')}` }
      : undefined;
  },
  borealDuration: (b) => {
    if (h3(b) || b.audio_url) return undefined; // with audio_url the audio sets the length
    const max = BOREAL_MAX_SECONDS[b.resolution ?? '720p'];
    if (b.duration === undefined) return { field: 'duration', message: 'required unless audio_url is given' };
    if (max !== undefined && (b.duration <= 0 || b.duration > max)) {
      return { field: 'duration', message: `must be above 0 and at most ${max} seconds at ${b.resolution ?? '720p'}` };
    }
    return undefined;
  },
  h3Duration: (b) => {
    if (!h3(b)) return undefined;
    const d = b.duration;
    return d === undefined || !Number.isInteger(d) || d < H3_SECONDS.min || d > H3_SECONDS.max
      ? { field: 'duration', message: `boreal-h3 takes a whole number of seconds from ${H3_SECONDS.min} to ${H3_SECONDS.max}` }
      : undefined;
  },
  audioOnlyBoreal: (b) =>
    h3(b) && b.audio_url ? { field: 'audio_url', message: 'applies only to model boreal' } : undefined,
  negativePromptOnlyBoreal: (b) =>
    h3(b) && b.negative_prompt !== undefined
      ? { field: 'negative_prompt', message: 'applies only to model boreal' }
      : undefined,
  endImageOnlyH3: (b) =>
    !h3(b) && b.end_image_url ? { field: 'end_image_url', message: 'applies only to model boreal-h3' } : undefined,
  // Names the first reference list actually sent, so a client sees the field it set.
  referencesOnlyH3: (b) => {
    if (h3(b)) return undefined;
    const sent = REFERENCE_FIELDS.find((field) => count(b[field]) > 0);
    return sent ? { field: sent, message: 'reference inputs apply only to model boreal-h3' } : undefined;
  },
  endImageNeedsImage: (b) =>
    b.end_image_url && !b.image_url ? { field: 'end_image_url', message: 'needs image_url' } : undefined,
  referenceNeedsImageOrVideo: (b) =>
    h3(b) && isReferenceRender(b) && count(b.reference_image_urls) + count(b.reference_video_urls) === 0
      ? { field: 'reference_audio_urls', message: 'reference audio needs at least one image or video reference' }
      : undefined,
  referenceRenderTakesNoImage: (b) =>
    h3(b) && isReferenceRender(b) && b.image_url
      ? { field: 'image_url', message: 'a reference render takes no image_url' }
      : undefined,
  h3AspectAuto: (b) =>
    h3(b) && b.aspect_ratio !== undefined && b.aspect_ratio !== 'auto'
      ? { field: 'aspect_ratio', message: 'boreal-h3 accepts only auto' }
      : undefined,
};

export function borealViolations(body: BorealCreate): RuleViolation[] {
  return Object.values(BOREAL_RULES).flatMap((rule) => rule(body) ?? []);
}

/** POST /api/boreal/ — the shape, then every cross-field rule. */
export const BorealCreate = BorealCreateShape.superRefine((body, ctx) => {
  for (const v of borealViolations(body)) {
    ctx.addIssue({ code: 'custom', path: [v.field], message: v.message, input: body[v.field] });
  }
});
