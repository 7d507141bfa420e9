import { randomUUID } from 'node:crypto';
import { readlinkSync } from 'node:fs';
import { hostname } from 'node:os';
import { LockedError } from '../../errors.js';
import type { StateStore } from './job-store.js';

/** How often a holder refreshes its heartbeat (LockOptions.heartbeatMs). */
export const LOCK_HEARTBEAT_MS = 10_000;
/** A heartbeat older than this means the holder is gone (LockOptions.staleAfterMs). */
export const LOCK_STALE_AFTER_MS = 60_000;

/** Options of acquireLock. */
export interface LockOptions {
  /** The lock's name: one run per state database and manifest, so the manifest's absolute path. */
  name: string;
  /** @default os.hostname() */
  host?: string;
  /** @default process.pid */
  pid?: number;
  /**
   * A heartbeat older than this means the holder is gone even if its pid looks alive (another
   * host, or a reused pid).
   * @default 60_000
   */
  staleAfterMs?: number;
  /** How often the holder refreshes its heartbeat. @default 10_000 */
  heartbeatMs?: number;
  /**
   * This process's pid namespace; null where it cannot be known.
   * @default the target of /proc/self/ns/pid (Linux), else null
   */
  pidNamespace?: string | null;
  /** Whether a pid is alive on this host. @default signal 0 probe */
  isAlive?: (pid: number) => boolean;
  /**
   * Who holds the lock. Why not host + pid: in containers every run may be pid 1 on the same
   * fixed hostname, so only a random token tells two holders apart.
   * @default a random UUID per acquisition
   */
  token?: string;
  /** Called once, from a heartbeat, when the lock turns out to be held by someone else now. @default none */
  onLost?: () => void;
  /**
   * Called once, from a heartbeat, when the heartbeat itself cannot be written (a full disk, an
   * I/O error): the run must stop, since nothing more can be recorded safely. @default none
   */
  onFault?: (error: Error) => void;
}

export interface HeldLock {
  /** Refreshes the heartbeat now (also done on a timer); false once the lock was taken from us. */
  beat(): boolean;
  release(): void;
}

/** A row of the locks table, as stored. */
export interface LockRow {
  name: string;
  host: string;
  pid: number;
  run_id: number | null;
  acquired_at: number;
  heartbeat_at: number;
  token: string | null;
  pid_ns: string | null;
}

/** This process's pid namespace (`pid:[4026531836]`), or null off Linux. */
export function currentPidNamespace(): string | null {
  try {
    return readlinkSync('/proc/self/ns/pid');
  } catch {
    return null;
  }
}

export function pidIsAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Takes the run lock, or throws LockedError (exit 75) at once if a live run holds it.
 *
 * Policy, why a lock may be broken: a holder on this host whose pid is dead crashed or was
 * killed (kill -9 releases nothing) — but a pid means something only inside its own pid
 * namespace: containers sharing a hostname but not a pid namespace see a live holder's pid as
 * dead. So a dead pid breaks the lock at once only when the holder recorded our pid namespace;
 * otherwise (another namespace, or one not known) only once its heartbeat is also older than two
 * heartbeat intervals. Any holder whose heartbeat is older than `staleAfterMs` stopped beating,
 * wherever it runs. Both are recorded as `lock:broken` with who held it.
 */
export function acquireLock(store: StateStore, options: LockOptions): HeldLock {
  const host = options.host ?? hostname();
  const pid = options.pid ?? process.pid;
  const staleAfter = options.staleAfterMs ?? LOCK_STALE_AFTER_MS;
  const isAlive = options.isAlive ?? pidIsAlive;
  const token = options.token ?? randomUUID();
  const heartbeatMs = options.heartbeatMs ?? LOCK_HEARTBEAT_MS;
  const pidNs = options.pidNamespace === undefined ? currentPidNamespace() : options.pidNamespace;
  // A holder's pid can be probed only from its own pid namespace (same host, same namespace).
  const sameNamespace = (held: LockRow) => pidNs !== null && held.pid_ns === pidNs;
  store.atomically(() => {
    const now = store.clock.now();
    const held = store.db.prepare('SELECT * FROM locks WHERE name = ?').get(options.name) as LockRow | undefined;
    if (held) {
      const dead = held.host === host && !isAlive(held.pid) && (sameNamespace(held) || now - held.heartbeat_at > 2 * heartbeatMs);
      const stale = now - held.heartbeat_at > staleAfter;
      if (!dead && !stale) {
        throw new LockedError(
          `another run (pid ${held.pid} on ${held.host}${held.run_id === null ? '' : `, run ${held.run_id}`}) is working on ${options.name}; ` +
            'try again when it has finished',
        );
      }
      store.event('lock:broken', null, { name: options.name, host: held.host, pid: held.pid, reason: dead ? 'dead pid' : 'stale heartbeat' });
      store.db.prepare('DELETE FROM locks WHERE name = ?').run(options.name);
    }
    store.db
      .prepare('INSERT INTO locks (name, run_id, host, pid, acquired_at, heartbeat_at, token, pid_ns) VALUES (?, ?, ?, ?, ?, ?, ?, ?)')
      .run(options.name, store.runId, host, pid, now, now, token, pidNs);
    store.event('lock:acquired', null, { name: options.name, host, pid });
  });
  return holdLock(store, options.name, token, heartbeatMs, options);
}

/**
 * The holder's side. Policy: every heartbeat checks the lock is still ours (by token); if another
 * run broke it (our heartbeat looked stale), `onLost` tells the run to stop at once — two runs of
 * one manifest must never work side by side — and nothing more is written to the lock.
 */
function holdLock(store: StateStore, name: string, token: string, heartbeatMs: number, on: Pick<LockOptions, 'onLost' | 'onFault'>): HeldLock {
  let lost = false;
  let faulted = false;
  const write = (): boolean => {
    const info = store.db.prepare('UPDATE locks SET heartbeat_at = ? WHERE name = ? AND token = ?').run(store.clock.now(), name, token);
    if (info.changes > 0) return true;
    lost = true;
    store.event('lock:lost', null, { name });
    on.onLost?.();
    return false;
  };
  // Why a heartbeat never throws: it runs on a timer, where a throw would kill the process
  // uncaught, leaving no summary; a fault is handed to the run, which stops and reports it.
  const beat = (): boolean => {
    if (lost || !store.db.open) return !lost;
    try {
      return write();
    } catch (error) {
      if (!faulted) {
        faulted = true;
        on.onFault?.(error instanceof Error ? error : new Error(String(error)));
      }
      return true;
    }
  };
  const timer = setInterval(beat, heartbeatMs);
  timer.unref();
  let released = false;
  return {
    beat,
    release: () => {
      if (released) return;
      released = true;
      clearInterval(timer);
      if (!store.db.open) return;
      store.atomically(() => {
        store.db.prepare('DELETE FROM locks WHERE name = ? AND token = ?').run(name, token);
        store.event('lock:released', null, { name });
      });
    },
  };
}
