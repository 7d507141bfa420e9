import { HTML_AD_MAX_STYLES } from '../../api/schemas/index.js';
import { closest } from '../check/zod-issues.js';

/**
 * `style_ids: all` means every style the service's catalogue offers. The catalogue is the
 * service's (GET /api/html_interactive_ads/styles/), never a list of ours: expansion leaves `all` in
 * place, and the planner expands it with the catalogue it is given (live, cached in the state
 * database, or the sandbox's) — see plan/style-catalogue.ts. A list longer than the service's
 * 20-style limit is split into several jobs of at most 20 styles, in order.
 */
export const ALL_STYLES = 'all';

/** A catalogue of style ids, and how to name where it came from in a message. */
export interface StyleCatalogue {
  ids: readonly string[];
  /** `the service's catalogue`, `the catalogue cached on 2026-11-20 from https://…`, `the sandbox's catalogue`. */
  said: string;
}

/** An explicit list of more than 20 styles as several jobs' lists; `all` stays as it is, for the planner. */
export function splitStyleIds(request: Record<string, unknown>): Record<string, unknown>[] {
  const ids = request.style_ids;
  if (!Array.isArray(ids) || ids.length <= HTML_AD_MAX_STYLES) return [request];
  return chunks(ids).map((group) => ({ ...request, style_ids: group }));
}

/** `ids` in lists of at most 20, in order. */
export function chunks<T>(ids: readonly T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < ids.length; i += HTML_AD_MAX_STYLES) out.push(ids.slice(i, i + HTML_AD_MAX_STYLES));
  return out;
}

/** The body the request schema checks: `all` stands for a list of styles it will be expanded to. */
export const checkableStyles = (request: Record<string, unknown>): Record<string, unknown> =>
  request.style_ids === ALL_STYLES ? { ...request, style_ids: [ALL_STYLES] } : request;

/**
 * Styles chosen twice, each at its place in the list. Why an error, not a warning: a style chosen
 * twice would make (and bill) the same ad twice. Ids still holding a placeholder are checked once
 * it is replaced. Whether the service offers an id is the catalogue's to say (catalogueIssues).
 */
export function styleIdIssues(request: Record<string, unknown>): { path: (string | number)[]; message: string }[] {
  const ids = request.style_ids;
  if (!Array.isArray(ids)) return [];
  return ids.flatMap((id: unknown, i) => {
    if (typeof id !== 'string' || id.includes('{{')) return [];
    const first = ids.indexOf(id);
    return first === i ? [] : [{ path: ['style_ids', i], message: `"${id}" is chosen twice (first as style_ids.${first}): each style makes one paid ad, so list it once` }];
  });
}

/**
 * Ids the catalogue does not offer, each at its place in the list, with the closest it does. Why
 * an error when a catalogue is known: the service refuses such a request with a 400 — after every
 * other job of the run was paid for.
 */
export function unknownStyleIssues(request: Record<string, unknown>, catalogue: StyleCatalogue): { path: (string | number)[]; message: string }[] {
  const ids = request.style_ids;
  if (!Array.isArray(ids)) return [];
  const offered = new Set(catalogue.ids);
  return ids.flatMap((id: unknown, i) => {
    if (typeof id !== 'string' || id.includes('{{') || offered.has(id)) return [];
    const near = closest(id, catalogue.ids);
    return [{ path: ['style_ids', i], message: `"${id}" is not offered by ${catalogue.said}${near ? `; did you mean ${near}?` : ''} (accepted: ${ALL_STYLES}, ${catalogue.ids.join(', ')})` }];
  });
}
