import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import { createClient, type ServiceClient } from '../../../src/api/index.js';
import { openStore, readEvents, type EventRow, type EventType, type Store } from '../../../src/state/index.js';
import { startScriptedServer, type ScriptedServer } from '../../helpers/scripted-server.js';
import { peek } from '../../state/peek.js';

/** What each runner test gets afresh: a temp folder, a real state file, a scripted service, a client. */
export interface ScriptedRun {
  dir: string;
  /** The state file the store is open on (for a read-only look at what it committed: `eventsIn`). */
  statePath: string;
  store: Store;
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
    const statePath = join(dir, 'state.db');
    const server = await startScriptedServer();
    run = {
      dir,
      statePath,
      store: await openStore(statePath),
      server,
      client: createClient({ baseUrl: server.url, apiId: 'test-id', apiKey: 'test-key', retry: { maxAttempts: 1 } }),
    };
    use(run);
  });
  afterEach(async () => {
    await run.client.close();
    await run.server.close();
    await run.store.close();
    rmSync(run.dir, { recursive: true, force: true });
  });
}

/**
 * The events the state file at `path` has committed, read on a connection of its own: the Store
 * answers in rows, not its log, so a test reads the log apart (test/state/peek.ts).
 */
export function eventsIn(path: string, filter: { jobKey?: string; type?: EventType } = {}): EventRow[] {
  const db = peek(path);
  try {
    return readEvents(db, filter);
  } finally {
    db.close();
  }
}
