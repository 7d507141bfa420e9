import { z } from 'zod';
import { SimpleJobStatus, Timestamp, UNSTATED_TEXT_MAX, Uuid, WebhookUrl, ro, stringMax } from './common.js';

const FunctionCall = z.looseObject({ name: z.string(), args: z.record(z.string(), z.unknown()).optional() });
const FunctionResponse = z.looseObject({ name: z.string(), response: z.record(z.string(), z.unknown()).optional() });

export const TextMessage = z.strictObject({
  role: z.string().min(1),
  content: stringMax(UNSTATED_TEXT_MAX.generation).default(''),
  function_call: FunctionCall.optional(),
  function_response: FunctionResponse.optional(),
});

export const TextConfig = z.strictObject({
  temperature: z.number().optional(),
  max_output_tokens: z.number().optional(),
  top_p: z.number().optional(),
  top_k: z.number().optional(),
  presence_penalty: z.number().optional(),
  frequency_penalty: z.number().optional(),
  seed: z.number().optional(),
  stop_sequences: z.array(z.string()).optional(),
  response_mime_type: z.string().optional(),
  response_json_schema: z.record(z.string(), z.unknown()).optional(),
});

export const TextTask = z.looseObject({
  id: Uuid,
  status: SimpleJobStatus,
  model_name: ro(z.string()),
  messages: ro(z.array(z.looseObject({ role: z.string(), content: z.string().nullish() }))),
  config: ro(z.record(z.string(), z.unknown())),
  response_function_calls: ro(z.array(FunctionCall)),
  created_at: ro(Timestamp),
  updated_at: ro(Timestamp),
  system_instruction: ro(z.string()),
  response_text: ro(z.string()),
  failed_reason: ro(z.string()),
  credits_used: ro(z.number()),
});
export type TextTask = z.infer<typeof TextTask>;

/** POST /api/text_generator/ (behaviour notes). */
export const TextCreate = z.strictObject({
  model_name: z.string().min(1),
  messages: z.array(TextMessage).min(1),
  system_instruction: stringMax(UNSTATED_TEXT_MAX.generation).optional(),
  config: TextConfig.optional(),
  webhook_url: WebhookUrl,
});
export type TextCreate = z.infer<typeof TextCreate>;
