import { z } from 'zod';

/**
 * Building blocks shared by every resource schema. Request schemas are strict (an unknown field is
 * an error, so a typo in a manifest is caught); response schemas are loose (an extra field the
 * service adds later is kept and harmless) and accept null where the live service may send it.
 */

/** Any 8-4-4-4-12 hex identifier: the spec says UUID but does not promise a version. */
export const Uuid = z.guid();
export const Timestamp = z.string();

/** A URL-typed field of at most `max` characters (the spec's "url, max N"). */
export const urlMax = (max: number) => z.url().max(max);
/** A string field of at most `max` characters. */
export const stringMax = (max: number) => z.string().max(max);

/**
 * Lengths the spec does not give, chosen here and nowhere else (docs/assumptions.md, "Text the
 * spec does not bound"). Why bound at all: every field is sent, and the job paid for; a 10 MB
 * script is a file pasted into a cell, to be refused at validate rather than sent.
 */
export const UNSTATED_TEXT_MAX = {
  /** Prose a person writes (a script, a prompt, an ad's direction): about 11 minutes of speech. */
  prose: 10_000,
  /** A text-generation message or instruction: room for a long document (about 25,000 tokens). */
  generation: 100_000,
} as const;
/** A free-text field the spec gives no length: at most UNSTATED_TEXT_MAX.prose characters. */
export const prose = () => stringMax(UNSTATED_TEXT_MAX.prose);

/** webhook_url: "url, null; max 200" on every job that takes one. */
export const WebhookUrl = urlMax(200).nullish();
/** Volumes are 0 to 1. */
export const Volume = z.number().min(0).max(1).nullish();

export const VIDEO_ASPECT_RATIOS = ['9x16', '16x9', '1x1'] as const;
export const VideoAspectRatio = z.enum(VIDEO_ASPECT_RATIOS);

/** States of AI Shorts, AI Editing, Boreal and ad clones. */
export const VIDEO_JOB_STATES = ['pending', 'in_queue', 'running', 'failed', 'done', 'rejected'] as const;
export const VideoJobStatus = z.enum(VIDEO_JOB_STATES);

/** HTML ads and text generation. */
export const SIMPLE_JOB_STATES = ['pending', 'running', 'done', 'failed'] as const;
export const SimpleJobStatus = z.enum(SIMPLE_JOB_STATES);

export const PERMISSION_TYPES = ['private', 'workspace', 'public'] as const;

/** Voice providers: neutral stand-ins, in the order of the voice clone's provider list. */
export const VOICE_PROVIDERS = ['provider-a', 'provider-b', 'provider-c'] as const;

/** Lipsync model versions, in spec order; `standard` is the default. */
export const MODEL_VERSIONS = ['standard', 'aurora_v1', 'aurora_v1_fast', 'boreal', 'aurora_v2'] as const;
export const ModelVersion = z.enum(MODEL_VERSIONS);

/** A field the service fills in: accept it missing or null, check the type when present. */
export const ro = <T extends z.ZodType>(schema: T) => schema.nullish();
