import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type BrowserContext } from 'playwright-core';

/** Debian's chromium, which the test command's setup (test/helpers/global-setup.ts) installs when it is missing and it can. */
export const CHROMIUM = '/usr/bin/chromium';

/**
 * Flags for a closed network: without the background-networking ones, chromium's own update,
 * sync and field-trial requests are refused and slow every launch; a fresh profile each time.
 */
const ARGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
];

/** What the pages asked for since `watchRequests`, sorted by whether it stays in the folder. */
export interface RequestLog {
  /** Requests inside the folder: let through. */
  inside: string[];
  /** Requests anywhere else (another folder, another scheme, the network): recorded and aborted. */
  outside: string[];
  /** Addresses a page's Content-Security-Policy refused: they never reach the network, so no route sees them. */
  blocked: string[];
}

export interface Browser {
  context: BrowserContext;
  /**
   * From now on every request of every page, frame and worker of the context is routed: one inside
   * `folder` goes on, any other is recorded and aborted (so nothing leaves, even when a check is
   * about to fail). Returns the log the requests are recorded in, until the next call.
   */
  watchRequests(folder: string): RequestLog;
  close(): Promise<void>;
}

/**
 * Why both a route and a CSP listener: a request the page's CSP refuses is never sent — it shows
 * neither as a route nor always as a `request` event — yet it is the page trying to reach out.
 */
const CSP_LISTENER = `document.addEventListener('securitypolicyviolation', function (e) {
  if (/^[a-z][a-z0-9+.-]*:/i.test(e.blockedURI)) window.__reelpipeBlocked(e.blockedURI);
}, true);`;

/**
 * A real headless Chromium. Fails — never skips — when it is not installed: the report test is
 * the only check that the page works in a browser, so CI must not pass without it.
 */
export async function openBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`${CHROMIUM} not found: install it (apt-get install -y chromium; npm test does, as root) to run the report test`);
  }
  const profile = mkdtempSync(join(tmpdir(), 'reelpipe-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM, headless: true, args: ARGS, viewport: { width: 1280, height: 900 },
  });
  let folder: string | null = null;
  let log: RequestLog = { inside: [], outside: [], blocked: [] };
  await context.route('**', (route) => {
    const url = route.request().url();
    if (folder !== null && url.startsWith(folder)) {
      log.inside.push(url);
      return route.continue();
    }
    log.outside.push(url);
    return route.abort('blockedbyclient');
  });
  await context.exposeBinding('__reelpipeBlocked', (_source, url: string) => void log.blocked.push(url));
  await context.addInitScript(CSP_LISTENER);
  return {
    context,
    watchRequests: (path) => {
      folder = `${pathToFileURL(path).href.replace(/\/$/, '')}/`;
      log = { inside: [], outside: [], blocked: [] };
      return log;
    },
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
