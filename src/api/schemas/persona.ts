import { z } from 'zod';
import { Timestamp, Uuid, VOICE_PROVIDERS, WebhookUrl, ro, stringMax } from './common.js';

export const PERSONA_STATES = [
  'pending', 'processing', 'voice_creating', 'video_validating', 'crop_and_matte', 'reviewing',
  'done', 'failed', 'rejected',
] as const;
export const GENDERS = ['m', 'f', 'nb'] as const;

export const Persona = z.looseObject({
  id: Uuid,
  process_status: z.enum(PERSONA_STATES),
  gender: ro(z.enum(GENDERS)),
  creator_name: ro(z.string()),
  consent_video: ro(z.string()),
  lipsync_input_url: ro(z.string()),
  lipsync_input: ro(z.string()),
  matching_voice_non_null: ro(z.string()),
  failed_reason: ro(z.string()),
  created_at: ro(Timestamp),
  updated_at: ro(Timestamp),
  video_scene: ro(z.string()),
  keywords: ro(z.string()),
  gdown_url: ro(z.string()),
  labels: ro(z.array(z.string())),
  original_voice_provider: ro(z.enum(VOICE_PROVIDERS)),
  webhook_url: ro(z.string()),
});
export type Persona = z.infer<typeof Persona>;

/** POST /api/personas_v2/ — creator_name, gender and the source material (gdown_url) are required. */
export const PersonaCreate = z.strictObject({
  creator_name: stringMax(255).min(1),
  gender: z.enum(GENDERS),
  gdown_url: z.string().min(1),
  video_scene: stringMax(255).optional(),
  keywords: stringMax(255).optional(),
  lipsync_input: z.string().optional(),
  labels: z.array(z.string()).optional(),
  original_voice_provider: z.enum(VOICE_PROVIDERS).optional(),
  webhook_url: WebhookUrl,
});
export type PersonaCreate = z.infer<typeof PersonaCreate>;
