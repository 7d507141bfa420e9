/**
 * A media URL may state its own length with a W3C media fragment naming a segment,
 * `#t=START,END` (lasting END − START) or `#t=,END` (from 0), or with a query parameter
 * `duration=SECONDS`. A lone `#t=START` is a start time, not a length, so it states nothing.
 * Prices that depend on the length of an input the service reads (a reference video, a driving
 * audio track, an ad clone's reference ad) are exact when the URL states it. The sandbox charges by
 * this rule and the planner estimates by it, so the two agree. Anything that is not an absolute URL
 * (or still holds a `{{ placeholder }}`) states nothing.
 */
export function statedSeconds(url: unknown): number | undefined {
  if (typeof url !== 'string' || url.includes('{{')) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  const fragment = /(?:^#|&)t=([\d.]*),([\d.]+)/.exec(parsed.hash);
  if (fragment) {
    const seconds = Number(fragment[2]) - Number(fragment[1] || 0);
    if (Number.isFinite(seconds) && seconds > 0) return seconds;
  }
  const query = Number(parsed.searchParams.get('duration') ?? NaN);
  return Number.isFinite(query) && query > 0 ? query : undefined;
}
