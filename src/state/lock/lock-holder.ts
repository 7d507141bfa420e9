import { userInfo } from 'node:os';
import { thisHost } from '../../util/host-name.js';
import type { Store } from '../store.js';
import { currentPidNamespace, LOCK_HEARTBEAT_MS, LOCK_STALE_AFTER_MS, pidIsAlive, type LockRow } from './lock-policy.js';

/** Whether the holder's process is running, as far as this machine can tell. */
export type HolderProcess = 'alive' | 'gone' | 'another host' | 'another pid namespace';

/** Who holds a run lock, for `reelpipe unlock` to show before anything is broken. */
export interface LockHolder {
  name: string;
  host: string;
  pid: number;
  runId: number | null;
  acquiredAt: number;
  heartbeatAt: number;
  /** Milliseconds since the holder last beat. */
  heartbeatAgeMs: number;
  process: HolderProcess;
  /** No heartbeat for longer than LOCK_STALE_AFTER_MS: the next run breaks the lock by itself. */
  stale: boolean;
  /** The holder's random token: what tells this holding apart from a later one. */
  token: string | null;
}

/** Where the probe stands: this host, its pid namespace, and how to test a pid. */
export interface ProbeOptions {
  /** @default os.hostname() */
  host?: string;
  /** @default this process's pid namespace */
  pidNamespace?: string | null;
  /** @default a signal 0 probe */
  isAlive?: (pid: number) => boolean;
}

/**
 * The holder of the lock `name`, or undefined when nobody holds it. Policy, the process: a pid
 * means something only on its own host and in its own pid namespace (see acquireLock), so
 * elsewhere it is reported as not knowable rather than guessed.
 */
export async function readLockHolder(store: Store, name: string, probe: ProbeOptions = {}): Promise<LockHolder | undefined> {
  const row = await store.lockRow(name);
  if (!row) return undefined;
  const now = store.clock.now();
  return {
    name,
    host: row.host,
    pid: row.pid,
    runId: row.run_id,
    acquiredAt: row.acquired_at,
    heartbeatAt: row.heartbeat_at,
    heartbeatAgeMs: Math.max(0, now - row.heartbeat_at),
    process: processOf(row, probe),
    stale: now - row.heartbeat_at > LOCK_STALE_AFTER_MS,
    token: row.token,
  };
}

function processOf(row: LockRow, probe: ProbeOptions): HolderProcess {
  if (row.host !== (probe.host ?? thisHost())) return 'another host';
  const ours = probe.pidNamespace === undefined ? currentPidNamespace() : probe.pidNamespace;
  if (ours === null || row.pid_ns !== ours) return 'another pid namespace';
  return (probe.isAlive ?? pidIsAlive)(row.pid) ? 'alive' : 'gone';
}

/**
 * Breaks the lock `name` by hand (`reelpipe unlock --force`) and records `lock:forced` with the
 * holder and who forced it. Only the holding seen is deleted (by its token): a lock taken
 * anew in between is left alone. Returns whether a lock was deleted. A run still alive notices at
 * its next heartbeat and stops (exit 75).
 */
export function forceUnlock(store: Store, holder: LockHolder, by = whoAmI()): Promise<boolean> {
  return store.forceUnlock(holder.name, holder.token, {
    holder: { host: holder.host, pid: holder.pid, runId: holder.runId, heartbeatAgeMs: holder.heartbeatAgeMs, process: holder.process },
    by,
  });
}

/** Who is forcing: the user, host and pid of this process, for the event log. */
export function whoAmI(): { user: string; host: string; pid: number } {
  let user = 'unknown';
  try {
    user = userInfo().username;
  } catch {
    // No passwd entry for this uid (some containers): the host and pid still say who.
  }
  return { user, host: thisHost(), pid: process.pid };
}

/** The heartbeat interval and staleness bound, for messages. */
export const LOCK_TIMING = { heartbeatMs: LOCK_HEARTBEAT_MS, staleAfterMs: LOCK_STALE_AFTER_MS } as const;
