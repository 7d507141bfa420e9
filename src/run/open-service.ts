import { clientFromEnv, createClient, type ServiceClient } from '../api/index.js';
import { join } from 'node:path';
import type { SandboxRuns, StateFiles } from '../state/index.js';
import { createLogger, type Logger } from '../util/logger.js';

/** The service a command talks to, and how to let it go. */
export interface OpenService {
  client: ServiceClient;
  close(): Promise<void>;
}

/**
 * The sandbox a command works with: the embedded one, started in-process at `speed`
 * (`--sandbox`, `--sandbox-speed`), or the standalone one at `url` (`--sandbox-url`).
 */
export type SandboxChoice = { speed: number } | { url: string };

/** A sandbox choice made concrete: a standalone sandbox's speed is read from it (resolveSandbox). */
export interface SandboxTarget {
  speed: number;
  /** The standalone sandbox's address; none for the embedded one. */
  url?: string;
}

export interface OpenServiceOptions {
  env: NodeJS.ProcessEnv;
  /**
   * Talk to a sandbox: the embedded one at this speed, journalled beside `statePath`, or the
   * standalone one at `url`. @default the real service, from the environment
   */
  sandbox?: SandboxTarget;
  /** Where the state's runs keep their files (the embedded sandbox its journal). */
  files: StateFiles;
  /** @default createLogger({ env }) */
  logger?: Logger;
  /** Aborts every call in flight and every later one. @default none */
  signal?: AbortSignal;
}

/** Whose runs a sandbox choice makes a command's: the embedded sandbox's, or the standalone one's at its address (state/locate.ts). */
export function sandboxRuns(choice: SandboxChoice | undefined): SandboxRuns {
  return choice === undefined ? false : 'url' in choice ? { url: choice.url } : true;
}

/** Reads what a standalone sandbox's choice leaves open (its speed, from its /__sandbox/stats); refuses an address that is no sandbox. */
export async function resolveSandbox(choice: SandboxChoice): Promise<SandboxTarget> {
  if (!('url' in choice)) return choice;
  const { probeSandbox } = await import('../api/sandbox-probe.js');
  return { url: choice.url, ...(await probeSandbox(choice.url)) };
}

/**
 * The embedded sandbox's journal, in the project's `state/` and named for the state
 * (`state/sandbox-service.jsonl` for `state/sandbox.db`: state/locate.ts stateFiles). Why: the
 * state remembers jobs across runs, so the service must too — a job submitted by one run is read
 * by the next, a killed run's POST is found by reconciliation, and ids never repeat between runs
 * on one state (as with the real service).
 */
export function sandboxJournalPath(files: StateFiles): string {
  return join(files.folder, `${files.name}-service.jsonl`);
}

/**
 * Credentials sent to a sandbox when the environment gives none. A sandbox started without
 * `--api-id/--api-key` (the embedded one always is) accepts any pair, but asks that both be sent.
 */
const STAND_IN_CREDENTIALS = { apiId: 'sandbox-id', apiKey: 'sandbox-key' } as const;

/**
 * A client of the standalone sandbox at `url`. REELPIPE_BASE_URL is never read: the address given
 * wins. Credentials: REELPIPE_API_ID and REELPIPE_API_KEY when set (a sandbox started with
 * `--api-id/--api-key` accepts only its own pair; one of the two alone is refused, as for the
 * service), else the embedded sandbox's stand-ins, which a sandbox started without them accepts.
 */
export function standaloneSandboxClient(url: string, env: NodeJS.ProcessEnv, options: { logger?: Logger; signal?: AbortSignal } = {}): ServiceClient {
  const given = Boolean(env.REELPIPE_API_ID?.trim() || env.REELPIPE_API_KEY?.trim());
  return clientFromEnv(env, { baseUrl: url, ...(given ? {} : STAND_IN_CREDENTIALS), ...options });
}

/**
 * Connects to the service every command that reads or writes jobs uses: the real one (credentials
 * and address from REELPIPE_* in `env`); with `sandbox`, an embedded sandbox on loopback that
 * remembers its jobs in its journal — so `run`, `resolve` and `catalogue` see the same service —
 * or the standalone sandbox at its `url`.
 */
export async function openService(options: OpenServiceOptions): Promise<OpenService> {
  const logger = options.logger ?? createLogger({ env: options.env });
  const signal = options.signal ? { signal: options.signal } : {};
  if (!options.sandbox || options.sandbox.url !== undefined) {
    const client = options.sandbox?.url !== undefined
      ? standaloneSandboxClient(options.sandbox.url, options.env, { logger, ...signal })
      : clientFromEnv(options.env, { logger, ...signal });
    return { client, close: () => client.close() };
  }
  // Loaded on use: a run against the real service never loads the sandbox's modules.
  const { startSandbox } = await import('../sandbox/index.js');
  const sandbox = await startSandbox({ port: 0, speed: options.sandbox.speed, credits: 1_000_000, seed: 1, journal: sandboxJournalPath(options.files) });
  const client = createClient({ baseUrl: sandbox.url, ...STAND_IN_CREDENTIALS, logger, ...signal });
  return {
    client,
    close: async () => {
      await client.close();
      await sandbox.close();
    },
  };
}
