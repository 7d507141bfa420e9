import { HTML_AD_STYLES } from '../api/html-ad-styles.js';
import { HTML_AD_MAX_STYLES } from '../api/schemas/index.js';

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

const KNOWN = new Set(HTML_AD_STYLES.map((s) => s.id));

/** Style ids missing from the snapshot: a warning, not an error (the live list may be newer). */
export function unknownStyleIds(request: Record<string, unknown>): string[] {
  const ids = request.style_ids;
  return Array.isArray(ids) ? ids.filter((id): id is string => typeof id === 'string' && !id.includes('{{') && !KNOWN.has(id)) : [];
}
