import { HTML_AD_STYLES } from '../../api/html-ad-styles.js';
import { HTML_AD_MAX_STYLES } from '../../api/schemas/index.js';
import { closest } from '../check/zod-issues.js';

/**
 * `style_ids: all` means every style of the catalogue snapshot (planning is offline), and a list
 * longer than the service's 20-style limit is split into several jobs of at most 20 styles, in
 * order, so one step can ask for every style.
 */
export const ALL_STYLES = 'all';

export function splitStyleIds(request: Record<string, unknown>): Record<string, unknown>[] {
  const ids = request.style_ids === ALL_STYLES ? HTML_AD_STYLES.map((s) => s.id) : request.style_ids;
  if (!Array.isArray(ids) || ids.length <= HTML_AD_MAX_STYLES) {
    return [ids === request.style_ids ? request : { ...request, style_ids: ids }];
  }
  const chunks: Record<string, unknown>[] = [];
  for (let i = 0; i < ids.length; i += HTML_AD_MAX_STYLES) {
    chunks.push({ ...request, style_ids: ids.slice(i, i + HTML_AD_MAX_STYLES) });
  }
  return chunks;
}

const KNOWN = HTML_AD_STYLES.map((s) => s.id);

/**
 * Style ids the snapshot does not offer, and styles chosen twice, each at its place in the list.
 * Why an error, not a warning: an unknown id is refused by the service with a 400, after every
 * other job of the run was paid; and a style chosen twice would make (and bill) the same ad twice.
 * Ids still holding a placeholder are checked once it is replaced.
 */
export function styleIdIssues(request: Record<string, unknown>): { path: (string | number)[]; message: string }[] {
  const ids = request.style_ids;
  if (!Array.isArray(ids)) return [];
  const accepted = `(accepted: ${ALL_STYLES}, ${KNOWN.join(', ')})`;
  return ids.flatMap((id: unknown, i) => {
    if (typeof id !== 'string' || id.includes('{{')) return [];
    const first = ids.indexOf(id);
    if (first !== i) return [{ path: ['style_ids', i], message: `"${id}" is chosen twice (first as style_ids.${first}): each style makes one paid ad, so list it once` }];
    if (KNOWN.includes(id)) return [];
    const near = closest(id, KNOWN);
    return [{ path: ['style_ids', i], message: `"${id}" is not a style of the catalogue${near ? `; did you mean ${near}?` : ''} ${accepted}` }];
  });
}
