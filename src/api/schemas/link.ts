import { z } from 'zod';
import { Uuid, prose, ro, stringMax } from './common.js';

export const Link = z.looseObject({
  id: Uuid,
  url: ro(z.string()),
  title: ro(z.string()),
  description: ro(z.string()),
  image_urls: ro(z.array(z.string())),
  video_urls: ro(z.array(z.string())),
  // Types beyond null are not shown: kept as whatever JSON comes back.
  reviews: z.unknown().optional(),
  logo_url: ro(z.string()),
  ai_summary: ro(z.string()),
  ai_industry: ro(z.string()),
  ai_target_audiences: z.unknown().optional(),
});
export type Link = z.infer<typeof Link>;

/**
 * "four link text fields: maximum lengths 3000, 1000, 1000, 2000", assigned in the list order of
 * the update body: url, title, description, then logo_url (docs/assumptions.md).
 */
export const LINK_TEXT_LIMITS = { url: 3000, title: 1000, description: 1000, logo_url: 2000 } as const;

/** POST /api/links/ — scrape a product page. */
export const LinkCreate = z.strictObject({
  url: z.url().max(LINK_TEXT_LIMITS.url),
});
export type LinkCreate = z.infer<typeof LinkCreate>;

/** POST /api/links/link_with_params/ — a link from one's own title and images. */
export const LinkWithParams = z.strictObject({
  title: stringMax(LINK_TEXT_LIMITS.title).min(1),
  description: stringMax(LINK_TEXT_LIMITS.description).optional(),
  image_urls: z.array(z.url()).min(1),
  video_urls: z.array(z.url()).optional(),
  logo_url: stringMax(LINK_TEXT_LIMITS.logo_url).optional(),
  url: stringMax(LINK_TEXT_LIMITS.url).optional(),
});
export type LinkWithParams = z.infer<typeof LinkWithParams>;

/** PUT /api/links/{id}/ — every field optional; what is sent replaces what the link holds. */
export const LinkUpdate = z.strictObject({
  url: stringMax(LINK_TEXT_LIMITS.url).optional(),
  title: stringMax(LINK_TEXT_LIMITS.title).optional(),
  description: stringMax(LINK_TEXT_LIMITS.description).optional(),
  image_urls: z.array(z.string()).optional(),
  video_urls: z.array(z.string()).optional(),
  reviews: z.unknown().optional(),
  logo_url: stringMax(LINK_TEXT_LIMITS.logo_url).optional(),
  ai_summary: prose().optional(),
});
export type LinkUpdate = z.infer<typeof LinkUpdate>;

export { Uuid as LinkId };
