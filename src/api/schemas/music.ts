import { z } from 'zod';
import { ro } from './common.js';

export const Music = z.looseObject({
  id: z.union([z.string(), z.number()]),
  category: ro(z.array(z.string())),
  cover_url: ro(z.string()),
  duration: ro(z.number()),
  name: z.string(),
  url: z.string(),
  is_favorite: ro(z.boolean()),
});
export type Music = z.infer<typeof Music>;

export const MusicPage = z.looseObject({
  count: z.int(),
  results: z.array(Music),
  page: z.int(),
  page_size: z.int(),
});
export type MusicPage = z.infer<typeof MusicPage>;

/** Query of GET /api/musics/ (names from the behaviour notes; page defaults 1, page_size 10). */
export const MusicQuery = z.strictObject({
  category: z.string().optional(),
  page: z.int().min(1).optional(),
  page_size: z.int().min(1).max(100).optional(),
  search: z.string().optional(),
});
export type MusicQuery = z.infer<typeof MusicQuery>;
