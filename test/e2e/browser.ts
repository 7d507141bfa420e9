import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';

/** Debian's chromium, which `.ci/run` installs when it is missing. */
export const CHROMIUM = '/usr/bin/chromium';

/**
 * Flags for a closed network: without the background-networking ones, chromium's own update,
 * sync and field-trial requests are refused and slow every launch; a fresh profile each time.
 */
const ARGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
];

export interface Browser {
  context: BrowserContext;
  close(): Promise<void>;
}

/**
 * A real headless Chromium. Fails — never skips — when it is not installed: the report test is
 * the only check that the page works in a browser, so CI must not pass without it.
 */
export async function openBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`${CHROMIUM} not found: install it (apt-get install -y chromium; .ci/run does) to run the report test`);
  }
  const profile = mkdtempSync(join(tmpdir(), 'reelpipe-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM, headless: true, args: ARGS, viewport: { width: 1280, height: 900 },
  });
  return {
    context,
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
