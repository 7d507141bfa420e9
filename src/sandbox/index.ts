import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SandboxCore } from './core.js';
import { Router } from './http/router.js';
import { resolveOptions, type SandboxOptions } from './options.js';
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
import { createRequestHandler } from './server.js';
import type { SandboxStats } from './stats.js';

export type { SandboxOptions } from './options.js';
export type { SandboxStats } from './stats.js';
export type { SandboxJobView } from './resources/introspection.js';
export type { FaultProfile, FaultName } from './faults/profile.js';
export { FAULT_NAMES, FAULT_PROFILES } from './faults/profile.js';

/** A running sandbox. */
export interface Sandbox {
  /** `http://HOST:PORT`, the base URL a client uses. */
  url: string;
  port: number;
  stats(): SandboxStats;
  jobs(): SandboxJobView[];
  /** Stops listening, ends open connections and waits for webhooks in flight. */
  close(): Promise<void>;
}

/** Every resource family, in the order their routes are matched. */
const REGISTRARS: Registrar[] = [
  registerIntrospection, registerAiVideos, registerProduct, registerPersonas, registerLinks, registerHtmlAds,
  registerLipsync, registerBoreal, registerAdClone, registerText, registerAssets, registerMusic, registerTemplates,
];

/** Starts the sandbox service on loopback (by default) and resolves once it listens. */
export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const resolved = resolveOptions(options);
  const core = new SandboxCore(resolved);
  const router = new Router();
  for (const register of REGISTRARS) register(router, core);

  const server = createServer({ keepAlive: true }, createRequestHandler(core, router));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(resolved.port, resolved.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const host = resolved.host.includes(':') ? `[${resolved.host}]` : resolved.host;
  const url = `http://${host}:${port}`;
  core.cdn.baseUrl = url;
  resolved.logger.info({ url }, 'sandbox listening');

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
    close: async () => {
      core.engine.close();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
      await core.webhooks.settle();
    },
  };
}
