/**
 * A media URL may state its own length, the way docs/sandbox.md describes and the sandbox
 * charges by: a media fragment `#t=SECONDS` or `#t=START,END`, or a query parameter
 * `duration=SECONDS`. When it does, the price that depends on that length is exact; when it does
 * not, the estimate is a range (or unknown).
 */
export function statedSeconds(url: unknown): number | undefined {
  if (typeof url !== 'string' || url.includes('{{')) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  const fragment = /(?:^#|&)t=([\d.]+)(?:,([\d.]+))?/.exec(parsed.hash);
  if (fragment) {
    const start = Number(fragment[1]);
    const seconds = fragment[2] === undefined ? start : Number(fragment[2]) - start;
    if (Number.isFinite(seconds) && seconds > 0) return seconds;
  }
  const query = Number(parsed.searchParams.get('duration') ?? NaN);
  return Number.isFinite(query) && query > 0 ? query : undefined;
}
