import { z } from 'zod';
import { SimpleJobStatus, Timestamp, Uuid, WebhookUrl, prose, ro } from './common.js';

export const HTML_AD_MAX_STYLES = 20;
export const HTML_AD_SIZE_MB = { min: 5, max: 15, default: 5 } as const;

/**
 * One generated ad. The item fields are not shown; the behaviour notes say each carries its style
 * id, its own status and the URL of its file. Names chosen: style_id, status, url (assumptions.md).
 */
export const HtmlAdItem = z.looseObject({
  style_id: z.union([z.string(), z.number()]).transform(String),
  status: ro(z.string()),
  url: ro(z.string()),
  failed_reason: ro(z.string()),
});
export type HtmlAdItem = z.infer<typeof HtmlAdItem>;

export const HtmlAdJob = z.looseObject({
  id: Uuid,
  status: SimpleJobStatus,
  created_at: ro(Timestamp),
  updated_at: ro(Timestamp),
  link: ro(Uuid),
  style_ids: ro(z.array(z.union([z.string(), z.number()]).transform(String))),
  failed_reason: ro(z.string()),
  ads: ro(z.array(HtmlAdItem)),
  credits_used: ro(z.number()),
  promotion_info: ro(z.string()),
  custom_prompt: ro(z.string()),
  max_size_mb: ro(z.int()),
  webhook_url: ro(z.string()),
});
export type HtmlAdJob = z.infer<typeof HtmlAdJob>;

/** POST /api/html_interactive_ads/ — the link reference field is `link` (behaviour notes). */
export const HtmlAdCreate = z.strictObject({
  link: Uuid,
  style_ids: z.array(z.string().min(1)).min(1).max(HTML_AD_MAX_STYLES),
  promotion_info: prose().nullish(),
  custom_prompt: prose().nullish(),
  max_size_mb: z.int().min(HTML_AD_SIZE_MB.min).max(HTML_AD_SIZE_MB.max).optional(),
  webhook_url: WebhookUrl,
});
export type HtmlAdCreate = z.infer<typeof HtmlAdCreate>;

/** An item of GET /api/html_interactive_ads/styles/. */
export const HtmlAdStyle = z.looseObject({
  id: z.union([z.string(), z.number()]).transform(String),
  name: z.string(),
  type: ro(z.string()),
  interactive: ro(z.boolean()),
  thumbnail_url: ro(z.string()),
});
export type HtmlAdStyle = z.infer<typeof HtmlAdStyle>;
