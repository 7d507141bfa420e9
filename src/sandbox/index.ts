import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SandboxCore } from './core.js';
import { Router } from './http/router.js';
import { JournalFile } from './journal/journal-file.js';
import { replayJournal } from './journal/replay.js';
import { resolveOptions, type ResolvedOptions, type SandboxOptions } from './options.js';
import { registerAdClone } from './resources/ad-clone.js';
import { registerAiVideos } from './resources/ai-videos.js';
import { registerAssets } from './resources/assets.js';
import { registerBoreal } from './resources/boreal.js';
import type { Registrar } from './resources/common.js';
import { registerHtmlAds } from './resources/html-ads.js';
import { jobView, registerIntrospection, snapshotStats, type SandboxJobView } from './resources/introspection.js';
import { registerLinks } from './resources/links.js';
import { registerLipsync } from './resources/lipsync.js';
import { registerMusic } from './resources/music.js';
import { registerPersonas } from './resources/personas.js';
import { registerProduct } from './resources/product.js';
import { registerTemplates } from './resources/templates.js';
import { registerText } from './resources/text.js';
import { seedFixtures } from './seed-fixtures.js';
import { createRequestHandler } from './server.js';
import type { SandboxStats } from './stats.js';

export type { SandboxOptions } from './options.js';
export type { SandboxStats } from './stats.js';
export type { SandboxJobView } from './resources/introspection.js';
export type { FaultProfile, FaultName } from './faults/profile.js';
export { FAULT_NAMES, FAULT_PROFILES } from './faults/profile.js';
export { FIXTURE_IDS } from './catalogues/fixtures.js';

/** A running sandbox. */
export interface Sandbox {
  /** `http://HOST:PORT`, the base URL a client uses. */
  url: string;
  port: number;
  stats(): SandboxStats;
  jobs(): SandboxJobView[];
  /** Stops listening, ends open connections, waits for webhooks in flight and closes the journal. Idempotent. */
  close(): Promise<void>;
}

/** Every resource family, in the order their routes are matched. */
const REGISTRARS: Registrar[] = [
  registerIntrospection, registerAiVideos, registerProduct, registerPersonas, registerLinks, registerHtmlAds,
  registerLipsync, registerBoreal, registerAdClone, registerText, registerAssets, registerMusic, registerTemplates,
];

/** Starts the sandbox service on loopback (by default) and resolves once it listens. */
export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const { resolved, journal } = openJournal(resolveOptions(options));
  const core = new SandboxCore(resolved);
  core.journal = journal;
  const router = new Router();
  for (const register of REGISTRARS) register(router, core);

  const server = createServer({ keepAlive: true }, createRequestHandler(core, router));
  try {
    await listen(server, resolved.port, resolved.host);
  } catch (error) {
    journal?.close();
    throw error;
  }
  const { port } = server.address() as AddressInfo;
  const host = resolved.host.includes(':') ? `[${resolved.host}]` : resolved.host;
  const url = `http://${host}:${port}`;
  core.cdn.baseUrl = url; // before the replay: scraped links name this sandbox's media
  seedFixtures(core); // before the replay too: journalled operations may act on fixtures
  // Replayed synchronously right after listening: no request is read before it is done.
  if (journal) replayOrClose(core, router, journal, server);
  resolved.logger.info({ url }, 'sandbox listening');
  let closing: Promise<void> | undefined;

  return {
    url,
    port,
    stats: () => {
      core.engine.advance();
      return snapshotStats(core);
    },
    jobs: () => {
      core.engine.advance();
      return core.store.all().map(jobView);
    },
    close: () => (closing ??= shutDown(core, server, journal)),
  };
}

async function shutDown(core: SandboxCore, server: Server, journal: JournalFile | undefined): Promise<void> {
  core.engine.close();
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeAllConnections();
  await closed;
  await core.webhooks.settle();
  journal?.close();
}

const listen = (server: Server, port: number, host: string) =>
  new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });

/**
 * With a journal, opens it; an existing journal fixes the seed, the render capacity and the
 * starting balance (its header's), since its jobs were priced and timed under them.
 */
function openJournal(resolved: ResolvedOptions): { resolved: ResolvedOptions; journal?: JournalFile } {
  if (!resolved.journal) return { resolved };
  const settings = { seed: resolved.seed, credits: resolved.credits, capacity: resolved.capacity };
  const journal = JournalFile.open(resolved.journal, settings, resolved.clock.now(), resolved.logger);
  const { seed, credits, capacity } = journal.header;
  if (seed !== settings.seed || credits !== settings.credits || capacity !== settings.capacity) {
    resolved.logger.warn({ file: journal.file, seed, credits, capacity }, 'sandbox journal: its header\'s seed, credits and capacity win over the options');
  }
  return { resolved: { ...resolved, seed, credits, capacity }, journal };
}

function replayOrClose(core: SandboxCore, router: Router, journal: JournalFile, server: Server): void {
  try {
    replayJournal(core, router, journal);
  } catch (error) {
    core.engine.close();
    server.close();
    journal.close();
    throw error;
  }
}
