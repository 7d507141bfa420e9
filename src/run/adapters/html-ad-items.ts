import { HTML_AD_CREDITS } from '../../pricing/index.js';
import type { ItemsOfKind, ItemOutcome, Resource } from './types.js';
import { text } from './view.js';

/**
 * ASSUMPTION (docs/assumptions.md, "HTML ad items"): the spec names no field of an item of an HTML
 * ad job's `ads`; the behaviour notes say each is one ad for one style, "with its style id, its own
 * status and the URL of the file". Read here, and only here, as `style_id`, `status` (`done` when
 * made), `failed_reason` and `url`. A chosen style with no item, or whose item is done without a
 * URL, counts as failed: its file cannot be had. The service reports only the job's
 * `credits_used` (the spec: "a failed ad is refunded"), taken as what the job cost after its
 * refunds; each failed ad's refund is derived from the price rule (10 credits an ad) and labelled so.
 */
function readAds(resource: Resource, requested: readonly string[], jobReason: string | null): Map<string, ItemOutcome> {
  const ads = Array.isArray(resource.ads) ? (resource.ads as Resource[]) : [];
  const byStyle = new Map<string, Resource>();
  for (const ad of ads) {
    const style = text(ad.style_id);
    if (style !== undefined && !byStyle.has(style)) byStyle.set(style, ad);
  }
  const outcomes = new Map<string, ItemOutcome>();
  for (const style of requested) {
    const ad = byStyle.get(style);
    const url = ad && text(ad.url);
    if (ad && url && (ad.status === undefined || ad.status === 'done')) {
      outcomes.set(style, { state: 'done', url, failedReason: null });
      continue;
    }
    const reason = ad
      ? (text(ad.failed_reason) ?? (url ? `the ad ended ${String(ad.status)}` : 'the ad finished without a file URL'))
      : (jobReason ?? 'the service returned no ad for this style');
    outcomes.set(style, { state: 'failed', url: null, failedReason: reason });
  }
  return outcomes;
}

const styleIds = (request: Record<string, unknown>): string[] =>
  Array.isArray(request.style_ids) ? (request.style_ids as unknown[]).map(String) : [];

export const HTML_AD_ITEMS: ItemsOfKind = {
  requested: styleIds,
  withOnly: (request, items) => ({ ...request, style_ids: [...items] }),
  read: readAds,
  creditsEach: HTML_AD_CREDITS,
  media: 'html',
};
