/**
 * Whether two links name the same output file. Policy: output links are signed CDN addresses
 * whose query (signature, expiry) changes on every read of the job, while the file stays the
 * same; so the same origin and path is the same file, and only a different path (or host) names
 * another one. Anything that is not an http(s) URL (`inline:` text outputs) is compared as is.
 */
export function sameOutput(a: string, b: string): boolean {
  if (a === b) return true;
  const [left, right] = [parse(a), parse(b)];
  return left !== undefined && right !== undefined && left === right;
}

function parse(url: string): string | undefined {
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? `${parsed.origin}${parsed.pathname}` : undefined;
  } catch {
    return undefined;
  }
}
