import { readlinkSync } from 'node:fs';
import { LockedError } from '../../errors.js';

/**
 * The run lock's rules, whatever store keeps the lock: one run per state and manifest, who holds
 * it, and when a holder is gone so its lock may be broken. The store applies them in the
 * transaction that takes the lock (Store.takeLock); the holder's heartbeat is acquire-lock.ts's.
 */

/** How often a holder refreshes its heartbeat (LockOptions.heartbeatMs). */
export const LOCK_HEARTBEAT_MS = 10_000;
/** A heartbeat older than this means the holder is gone (LockOptions.staleAfterMs). */
export const LOCK_STALE_AFTER_MS = 60_000;

/** Options of acquireLock. */
export interface LockOptions {
  /** The lock's name: one run per state database and manifest, so the manifest's identity (`project/name`: manifest/identity.ts). */
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
  /** The lock's name: the manifest's, or a member's (run-members.ts). */
  readonly name: string;
  /** Who holds it (LockOptions.token). */
  readonly token: string;
  /** The run joined, when this is a member's lock (another live run held the manifest's); null: this process took the manifest's lock. */
  readonly joined: { runId: number; host: string } | null;
  /** Refreshes the heartbeat now (also done on a timer); false once the lock was taken from us. */
  beat(): Promise<boolean>;
  release(): Promise<void>;
  /**
   * Gives the lock up as a member leaving its run: true when no other member is left, so this
   * process ends the run (its report, hooks, notifications). A lock of one process: release(), true.
   */
  leave(): Promise<boolean>;
  /**
   * Whether a creating request may start now: the lock not lost, and its lease not run out by this
   * process's own monotonic clock (acquire-lock.ts says how it is measured). Checked right before
   * each creating request is written, and before each retry of it.
   */
  valid(): boolean;
  /** valid(), after a heartbeat if the lease ran out without the lock being lost (a slow database): false once lost. */
  fresh(): Promise<boolean>;
}

/** A lock as held, as the store keeps it. */
export interface LockRow {
  name: string;
  host: string;
  pid: number;
  run_id: number | null;
  acquired_at: number;
  heartbeat_at: number;
  token: string | null;
  pid_ns: string | null;
  /** The holder's lease (ms), as it took the lock; null for a row an older reelpipe wrote. */
  lease_ms?: number | null;
}

/** Who asks for the lock, and how it judges a holder (LockOptions with its defaults applied). */
export interface LockTaker {
  host: string;
  pidNamespace: string | null;
  isAlive: (pid: number) => boolean;
  heartbeatMs: number;
  staleAfterMs: number;
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
 * Why `held` may be broken by `taker` at `now` ('dead pid', 'stale heartbeat'), or the LockedError
 * (exit 75) that refuses the lock.
 *
 * Policy, why a lock may be broken: a holder on this host whose pid is dead crashed or was
 * killed (kill -9 releases nothing) — but a pid means something only inside its own pid
 * namespace: containers sharing a hostname but not a pid namespace see a live holder's pid as
 * dead. So a dead pid breaks the lock at once only when the holder recorded our pid namespace;
 * otherwise (another namespace, or one not known) only once its heartbeat is also older than its
 * lease (two heartbeat intervals for a row an older reelpipe wrote, which recorded none). Any
 * holder whose heartbeat is older than the lease — the taker's `staleAfterMs`, or the holder's own
 * when it recorded a longer one — stopped beating,
 * wherever it runs. Both are recorded as `lock:broken` with who held it.
 */
export function breakReason(held: LockRow, taker: LockTaker, now: number): 'dead pid' | 'stale heartbeat' | LockedError {
  // A holder's pid can be probed only from its own pid namespace (same host, same namespace).
  const sameNamespace = taker.pidNamespace !== null && held.pid_ns === taker.pidNamespace;
  // The holder's own lease, when it recorded one: it starts no creating request past it by its own
  // clock (acquire-lock.ts), so a lock broken before it — by a taker with a shorter lease, or a
  // pid that only looks dead from another namespace — could let it pay for a job again.
  const lease = Math.max(taker.staleAfterMs, held.lease_ms ?? 0);
  const silent = now - held.heartbeat_at;
  const dead = held.host === taker.host && !taker.isAlive(held.pid) && (sameNamespace || silent > (held.lease_ms === null || held.lease_ms === undefined ? 2 * taker.heartbeatMs : lease));
  if (dead) return 'dead pid';
  if (silent > lease) return 'stale heartbeat';
  return heldBy(held, held.name);
}

/** The refusal (exit 75) naming who holds `manifest`: its run lock's holder, or a member of the run sharing it (run-members.ts). */
export function heldBy(held: Pick<LockRow, 'pid' | 'host' | 'run_id'>, manifest: string): LockedError {
  return new LockedError(
    `another run (pid ${held.pid} on ${held.host}${held.run_id === null ? '' : `, run ${held.run_id}`}) is working on ${manifest}; ` +
      'try again when it has finished',
  );
}
