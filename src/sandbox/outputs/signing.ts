import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Expiring signed URLs, as a CDN issues them: the path and its expiry time signed with the
 * sandbox's secret. Anyone holding the URL may download until it expires; then 403.
 */
export class UrlSigner {
  constructor(private readonly secret: string) {}

  sign(path: string, expiresAtSeconds: number): string {
    return createHmac('sha256', this.secret).update(`${path}\n${expiresAtSeconds}`).digest('hex').slice(0, 32);
  }

  /** 'ok', or why the URL is refused. */
  check(path: string, expires: string | null, signature: string | null, nowMs: number): 'ok' | 'expired' | 'bad-signature' {
    const expiresAt = Number(expires);
    if (!expires || !signature || !Number.isInteger(expiresAt)) return 'bad-signature';
    const expected = Buffer.from(this.sign(path, expiresAt));
    const given = Buffer.from(signature);
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) return 'bad-signature';
    return nowMs >= expiresAt * 1000 ? 'expired' : 'ok';
  }
}
