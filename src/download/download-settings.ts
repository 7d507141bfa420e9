import { InvalidInputError } from '../errors.js';

/** The environment variable naming hosts whose outputs are fetched even at private addresses. */
export const ALLOW_HOSTS_ENV = 'REELPIPE_DOWNLOAD_ALLOW_HOSTS';

/** The environment variable that sets the download ceiling. */
export const MAX_DOWNLOAD_BYTES_ENV = 'REELPIPE_MAX_DOWNLOAD_BYTES';

/**
 * Largest output file downloaded unless configured otherwise. Why 2 GiB: a generated short or ad
 * is tens of megabytes; two gigabytes is far above any real output and far below a disk filled by
 * an endless body.
 */
export const DEFAULT_MAX_DOWNLOAD_BYTES = 2 * 1024 ** 3;

const UNITS: Record<string, number> = { '': 1, KIB: 1024, MIB: 1024 ** 2, GIB: 1024 ** 3 };

/** The download settings the environment gives, each unset when its variable is; a bad value names it. */
export function downloadSettingsFromEnv(env: NodeJS.ProcessEnv): { maxBytes?: number; allowHosts?: string[] } {
  const out: { maxBytes?: number; allowHosts?: string[] } = {};
  const ceiling = env[MAX_DOWNLOAD_BYTES_ENV]?.trim();
  if (ceiling) {
    const match = /^(\d+)\s*(KiB|MiB|GiB)?$/i.exec(ceiling);
    const bytes = match ? Number(match[1]) * UNITS[(match[2] ?? '').toUpperCase()]! : NaN;
    if (!(bytes > 0) || !Number.isSafeInteger(bytes)) {
      refuse(MAX_DOWNLOAD_BYTES_ENV, `'${ceiling}' is not a size; give bytes, or a number with KiB, MiB or GiB (e.g. 4GiB)`);
    }
    out.maxBytes = bytes;
  }
  const hosts = env[ALLOW_HOSTS_ENV]?.split(',').map((h) => h.trim()).filter((h) => h !== '');
  if (hosts && hosts.length > 0) out.allowHosts = hosts.map((host) => checkHost(host));
  return out;
}

/** `host` or `host:port` (`[::1]:8080` for IPv6), nothing else: no scheme, no path. */
function checkHost(entry: string): string {
  let url: URL | undefined;
  try {
    url = new URL(`http://${entry}`);
  } catch {
    url = undefined;
  }
  if (!url || url.username || url.pathname !== '/' || url.search || url.hash || entry.includes('/')) {
    refuse(ALLOW_HOSTS_ENV, `'${entry}' is not a host; give comma-separated host names or addresses, each optionally with :port`);
  }
  return entry.toLowerCase();
}

function refuse(variable: string, message: string): never {
  throw new InvalidInputError([{ path: variable, message }], 'invalid configuration');
}
