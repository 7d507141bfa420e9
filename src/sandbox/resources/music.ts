import { MUSIC_LIBRARY } from '../catalogues/music.js';
import { HttpError, json } from '../http/reply.js';
import type { Registrar } from './common.js';

/** Page defaults from the behaviour notes; the largest page is DRF's usual max_page_size. */
const DEFAULT_PAGE_SIZE = 10;
const MAX_PAGE_SIZE = 100;

/** A positive whole number, or undefined. */
const positive = (text: string | null) => (text !== null && /^\d+$/.test(text) && Number(text) > 0 ? Number(text) : undefined);

/**
 * GET /api/musics/: the one paged list. `category` and `search` (name or category) filter, case
 * insensitive; a page past the end or not a number is DRF's 404 "Invalid page."; a bad page_size
 * falls back to the default, as DRF's paginator does.
 */
export const registerMusic: Registrar = (router, core) => {
  router.add('GET', '/api/musics/', (ctx) => {
    const category = ctx.query.get('category')?.toLowerCase();
    const search = ctx.query.get('search')?.toLowerCase();
    const matches = MUSIC_LIBRARY.filter(
      (t) =>
        (!category || t.category.includes(category)) &&
        (!search || t.name.toLowerCase().includes(search) || t.category.some((c) => c.includes(search))),
    );
    const pageSize = Math.min(positive(ctx.query.get('page_size')) ?? DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE);
    const page = ctx.query.has('page') ? positive(ctx.query.get('page')) : 1;
    const pages = Math.max(1, Math.ceil(matches.length / pageSize));
    if (page === undefined || page > pages) throw new HttpError(404, { detail: 'Invalid page.' });
    const results = matches.slice((page - 1) * pageSize, page * pageSize).map((t) => ({
      id: t.id, category: t.category, cover_url: core.cdn.mediaUrl(`cover-${t.id}.png`), duration: t.duration,
      name: t.name, url: core.cdn.mediaUrl(t.file), is_favorite: false,
    }));
    return json(200, { count: matches.length, results, page, page_size: pageSize });
  });
};
