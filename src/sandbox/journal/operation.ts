import type { SandboxCore } from '../core.js';
import type { Plan } from '../engine/lifecycle.js';
import type { FaultName } from '../faults/profile.js';
import { FormBody } from '../http/body.js';
import type { Reply } from '../http/reply.js';
import type { JournalJob, JournalOperation } from './format.js';

/** A replay met a decision the journal does not hold: the journal and this sandbox disagree. */
export class ReplayMismatch extends Error {}

/** The request a state-changing operation answered, as the journal keeps it. */
export interface OperationRequest {
  method: string;
  path: string;
  /** The decoded body: a JSON value or a FormBody. */
  body: unknown;
}

/**
 * The decisions of one state-changing operation. Live, it records them as they are made; in a
 * replay, it hands back the journalled ones, so the same handler code rebuilds the same state.
 */
export class OperationScope {
  private readonly ids: string[] = [];
  private readonly draws: Record<string, boolean[]> = {};
  private readonly jobs: JournalJob[] = [];
  private cursor = { ids: 0, jobs: 0, draws: {} as Record<string, number> };

  constructor(private readonly recorded?: JournalOperation) {}

  /** An id: a fresh one (recorded) or the journalled one. */
  id(fresh: () => string): string {
    if (!this.recorded) return this.push(this.ids, fresh());
    const id = this.recorded.ids[this.cursor.ids++];
    if (id === undefined) throw new ReplayMismatch(`the operation needs more ids than the ${this.recorded.ids.length} journalled`);
    return id;
  }

  /** A fault decided at creation: drawn (recorded) or the journalled outcome; unjournalled draws missed. */
  draw(name: FaultName, live: () => boolean): boolean {
    if (!this.recorded) return this.push((this.draws[name] ??= []), live());
    const at = this.cursor.draws[name] ?? 0;
    this.cursor.draws[name] = at + 1;
    return this.recorded.draws[name]?.[at] ?? false;
  }

  /**
   * A job created or continued on `plan`. Live, its price and timings are recorded; in a replay,
   * they must match the journal's, and the journalled timings are used, so a job keeps the
   * durations it was given whatever the speed of the sandbox replaying it.
   */
  job(kind: string, id: string, price: number, plan: Plan | undefined): void {
    const phases = (plan?.phases ?? []).map((p): [string, number] => [p.status, p.ms]);
    if (!this.recorded) return void this.jobs.push({ kind, id, price, phases });
    const entry = this.recorded.jobs[this.cursor.jobs++];
    const shape = (ps: [string, number][]) => ps.map(([status]) => status).join(' → ');
    if (!entry || entry.kind !== kind || entry.id !== id || entry.price !== price || shape(entry.phases) !== shape(phases)) {
      const now = JSON.stringify({ kind, id, price, phases: shape(phases) });
      const then = entry ? JSON.stringify({ ...entry, phases: shape(entry.phases) }) : 'nothing';
      throw new ReplayMismatch(`this sandbox makes ${now} where the journal holds ${then}`);
    }
    plan?.phases.forEach((phase, i) => (phase.ms = entry.phases[i]![1]));
  }

  /** In a replay: every journalled job was made again and the balance came out the same. */
  verify(balance: number): void {
    const recorded = this.recorded!;
    if (this.cursor.jobs !== recorded.jobs.length) {
      throw new ReplayMismatch(`the journal holds ${recorded.jobs.length} jobs for this operation; this sandbox made ${this.cursor.jobs}`);
    }
    if (Math.abs(balance - recorded.balance) > 1e-9) {
      throw new ReplayMismatch(`the balance comes out at ${balance}; the journal says ${recorded.balance}`);
    }
  }

  /** The journal line of a live operation. Draws that never hit are left out: a missing draw is a miss. */
  operation(at: number, request: OperationRequest, balance: number): JournalOperation {
    const body = request.body instanceof FormBody ? { form: request.body.fields } : { body: request.body };
    const draws = Object.fromEntries(Object.entries(this.draws).filter(([, hits]) => hits.includes(true)));
    const method = request.method as JournalOperation['method'];
    return { at: new Date(at).toISOString(), method, path: request.path, ...body, ids: this.ids, draws, jobs: this.jobs, balance };
  }

  private push<T>(list: T[], value: T): T {
    list.push(value);
    return value;
  }
}

/**
 * Runs a state-changing handler at one instant: the clock is held still (so every timestamp it
 * makes agrees), every life-cycle event due by then is applied first, and its decisions are
 * recorded, then journalled before the answer goes out — or, in a replay, taken from `recorded`.
 * Live and replayed operations take exactly this path, which is what makes the replay faithful.
 */
export function runOperation(core: SandboxCore, request: OperationRequest, handler: () => Reply, recorded?: JournalOperation): Reply {
  const at = recorded ? Date.parse(recorded.at) : core.clock.now();
  core.clock.hold(at);
  const scope = new OperationScope(recorded);
  try {
    core.engine.advance();
    core.scope = scope;
    const reply = handler();
    if (recorded) scope.verify(core.ledger.balance);
    else if (core.journal && reply.status < 400) core.journal.append(scope.operation(at, request, core.ledger.balance));
    return reply;
  } finally {
    core.scope = undefined;
    core.clock.release();
  }
}
