import { z } from 'zod';
import { Uuid, VOICE_PROVIDERS, stringMax } from './common.js';

/** Voice cloning accepts the first and third provider stand-ins; the first is the default. */
export const VOICE_CLONE_PROVIDERS = [VOICE_PROVIDERS[0], VOICE_PROVIDERS[2]] as const;

export const ClonedVoice = z.looseObject({
  name: z.string(),
  accents: z.array(z.looseObject({ id: Uuid, accent_name: z.string(), preview_url: z.string().nullish() })),
  gender: z.string().nullish(),
});
export type ClonedVoice = z.infer<typeof ClonedVoice>;

/** POST /api/voices/ */
export const VoiceCreate = z.strictObject({
  original_audio_url: z.url().max(1000),
  name: stringMax(255).min(1),
  voice_provider: z.enum(VOICE_CLONE_PROVIDERS).optional(),
});
export type VoiceCreate = z.infer<typeof VoiceCreate>;
