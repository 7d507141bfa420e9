import type { AssetModelSchema } from '../../api/schemas/index.js';

/** What a model's outputs are, for files and prices. */
export type OutputMedia = 'image' | 'video' | 'audio' | 'text';

export interface SandboxAssetModel extends AssetModelSchema {
  media: OutputMedia;
  /** Seconds to generate one output (an image about 6 s, as observed). */
  secondsPerOutput: number;
}

const DRAFT = 'http://json-schema.org/draft-07/schema#';
const prompt = { type: 'string', minLength: 1, maxLength: 2000, description: 'What to generate' };
const imageUrl = { type: 'string', pattern: '^https?://', maxLength: 2000, description: 'Source image URL' };

/** The sandbox's model catalogue: one model per kind of generation the runner is likely to use. */
export const ASSET_MODELS: SandboxAssetModel[] = [
  {
    model_name: 'sandbox-image-v1', generation_type: 'text_to_image', media: 'image', secondsPerOutput: 6,
    input_params_schema: {
      $schema: DRAFT, type: 'object', required: ['prompt'], additionalProperties: false,
      properties: { prompt, negative_prompt: { type: 'string', maxLength: 2000 }, seed: { type: 'integer' }, style: { enum: ['photo', 'illustration', '3d'] } },
    },
  },
  {
    model_name: 'sandbox-image-edit-v1', generation_type: 'image_to_image', media: 'image', secondsPerOutput: 8,
    input_params_schema: {
      $schema: DRAFT, type: 'object', required: ['prompt', 'image_url'], additionalProperties: false,
      properties: { prompt, image_url: imageUrl, strength: { type: 'number', minimum: 0, maximum: 1 } },
    },
  },
  {
    model_name: 'sandbox-video-v1', generation_type: 'text_to_video', media: 'video', secondsPerOutput: 60,
    input_params_schema: {
      $schema: DRAFT, type: 'object', required: ['prompt'], additionalProperties: false,
      properties: { prompt, duration: { type: 'integer', minimum: 2, maximum: 10 } },
    },
  },
  {
    model_name: 'sandbox-animate-v1', generation_type: 'image_to_video', media: 'video', secondsPerOutput: 60,
    input_params_schema: {
      $schema: DRAFT, type: 'object', required: ['image_url'], additionalProperties: false,
      properties: { image_url: imageUrl, prompt, duration: { type: 'integer', minimum: 2, maximum: 10 } },
    },
  },
  {
    model_name: 'sandbox-music-v1', generation_type: 'text_to_music', media: 'audio', secondsPerOutput: 20,
    input_params_schema: {
      $schema: DRAFT, type: 'object', required: ['prompt'], additionalProperties: false,
      properties: { prompt, duration: { type: 'integer', minimum: 5, maximum: 120 } },
    },
  },
  {
    model_name: 'sandbox-voice-v1', generation_type: 'text_to_audio', media: 'audio', secondsPerOutput: 10,
    input_params_schema: {
      $schema: DRAFT, type: 'object', required: ['text'], additionalProperties: false,
      properties: { text: { type: 'string', minLength: 1, maxLength: 5000 }, voice: { type: 'string' } },
    },
  },
];
