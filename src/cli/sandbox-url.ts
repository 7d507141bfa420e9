import { UsageError } from '../errors.js';

/** What `--sandbox-url` accepts, as its refusals say it. */
const ACCEPTED = 'give the address `reelpipe sandbox` prints, http://HOST:PORT (or https://), e.g. http://127.0.0.1:7711';

/**
 * `--sandbox-url URL` → the sandbox's origin, e.g. `http://127.0.0.1:7711`: http or https, a host,
 * an optional port, nothing else. Anything else is a UsageError (exit 2) naming the flag.
 *
 * Why so strict: a sandbox serves at its root, so a path, a query or a fragment is a mistake; and
 * the address names the rehearsal's state file (state/locate.ts), so `http://127.0.0.1:7711/`
 * and `http://127.0.0.1:7711` must be one address. A user or password is refused without being
 * echoed: credentials come from REELPIPE_API_ID and REELPIPE_API_KEY only.
 */
export function parseSandboxUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    throw new UsageError(`--sandbox-url ${text}: not an address; ${ACCEPTED}`);
  }
  if (url.username || url.password) {
    throw new UsageError(`--sandbox-url: an address with a user or password is refused (credentials come from REELPIPE_API_ID and REELPIPE_API_KEY); ${ACCEPTED}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError(`--sandbox-url ${text}: ${url.protocol} is not http or https; ${ACCEPTED}`);
  if (url.pathname !== '/' || url.search || url.hash) {
    throw new UsageError(`--sandbox-url ${text}: a sandbox serves at its root, so the address takes no path, query or fragment; ${ACCEPTED}`);
  }
  return url.origin;
}
