import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import { createClient, type ServiceClient } from '../../../src/api/index.js';
import { StateStore } from '../../../src/state/index.js';
import { startScriptedServer, type ScriptedServer } from '../../helpers/scripted-server.js';

/** What each runner test gets afresh: a temp folder, a real state file, a scripted service, a client. */
export interface ScriptedRun {
  dir: string;
  store: StateStore;
  server: ScriptedServer;
  client: ServiceClient;
}

/**
 * Registers the per-test set-up and clean-up, and hands each test's fresh pieces to `use`. The
 * client makes one attempt per request, so a test scripts exactly what the runner sees.
 */
export function useScriptedRun(prefix: string, use: (run: ScriptedRun) => void): void {
  let run: ScriptedRun;
  beforeEach(async () => {
    const dir = mkdtempSync(join(tmpdir(), prefix));
    const server = await startScriptedServer();
    run = {
      dir,
      store: StateStore.open(join(dir, 'state.db')),
      server,
      client: createClient({ baseUrl: server.url, apiId: 'test-id', apiKey: 'test-key', retry: { maxAttempts: 1 } }),
    };
    use(run);
  });
  afterEach(async () => {
    await run.client.close();
    await run.server.close();
    run.store.close();
    rmSync(run.dir, { recursive: true, force: true });
  });
}
