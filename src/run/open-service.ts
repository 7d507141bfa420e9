import { clientFromEnv, createClient, type ServiceClient } from '../api/index.js';
import { createLogger, type Logger } from '../util/logger.js';

/** The service a command talks to, and how to let it go. */
export interface OpenService {
  client: ServiceClient;
  close(): Promise<void>;
}

export interface OpenServiceOptions {
  env: NodeJS.ProcessEnv;
  /** Talk to an embedded sandbox at this speed, journalled beside `statePath`. @default the real service, from the environment */
  sandbox?: { speed: number };
  /** The state database (the embedded sandbox keeps its journal beside it). */
  statePath: string;
  /** @default createLogger({ env }) */
  logger?: Logger;
  /** Aborts every call in flight and every later one. @default none */
  signal?: AbortSignal;
}

/**
 * The embedded sandbox's journal, beside the state database (`state/sandbox.db` →
 * `state/sandbox-service.jsonl`). Why: the state remembers jobs across runs, so the service must
 * too — a job submitted by one run is read by the next, a killed run's POST is found by
 * reconciliation, and ids never repeat between runs on one state (as with the real service).
 */
export function sandboxJournalPath(statePath: string): string {
  return `${statePath.replace(/\.db$/, '')}-service.jsonl`;
}

/**
 * Connects to the service every command that reads or writes jobs uses: the real one (credentials
 * and address from REELPIPE_* in `env`), or, with `sandbox`, an embedded sandbox on loopback that
 * remembers its jobs in its journal — so `run`, `resolve` and `catalogue` see the same service.
 */
export async function openService(options: OpenServiceOptions): Promise<OpenService> {
  const logger = options.logger ?? createLogger({ env: options.env });
  if (!options.sandbox) {
    const client = clientFromEnv(options.env, { logger, ...(options.signal ? { signal: options.signal } : {}) });
    return { client, close: () => client.close() };
  }
  // Loaded on use: a run against the real service never loads the sandbox's modules.
  const { startSandbox } = await import('../sandbox/index.js');
  const sandbox = await startSandbox({ port: 0, speed: options.sandbox.speed, credits: 1_000_000, seed: 1, journal: sandboxJournalPath(options.statePath) });
  const client = createClient({ baseUrl: sandbox.url, apiId: 'sandbox-id', apiKey: 'sandbox-key', logger, ...(options.signal ? { signal: options.signal } : {}) });
  return {
    client,
    close: async () => {
      await client.close();
      await sandbox.close();
    },
  };
}
