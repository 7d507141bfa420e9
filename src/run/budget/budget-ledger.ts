/** What the ledger knows at the start of a run: the manifest's charges (state/sqlite/money.ts). */
export interface LedgerStart {
  /** The cap, in credits; null for no cap. */
  cap: number | null;
  /** What every charge of the manifest counts against the cap (earlier versions and forgotten jobs included). */
  spent: number;
  /** Reservations of the charges still open (jobs at the service or in doubt), by job key. */
  held: ReadonlyMap<string, number>;
}

/** A job whose real cost passed what was reserved for it (its estimate's high end). */
export interface Overrun {
  key: string;
  used: number;
  reserved: number;
}

/**
 * Money at run time. `spent` is what finished jobs cost (the service's `credits_used`); a job that
 * was (or may have been) created but whose cost is not final holds a reservation of its
 * estimate's high end. Policy: nothing is submitted that could push spent + reserved past the
 * cap, so if every job in flight costs at most its estimate's high end, the cap holds. A real
 * cost above the estimate can only be known once it is paid: the ledger then counts the real
 * cost, records the overrun, and `overCap` tells the runner to send nothing more.
 */
export class BudgetLedger {
  readonly cap: number | null;
  /** What was spent when the run started: spent at its end less this is what the run itself spent. */
  readonly spentAtStart: number;
  private spentTotal = 0;
  private readonly reserved = new Map<string, number>();
  /** Jobs whose real cost passed their reservation, in the order they were settled. */
  readonly overruns: Overrun[] = [];

  constructor(start: LedgerStart) {
    this.cap = start.cap;
    // The same sums the budget gate weighs a plan with (plan/budget.ts), so the two never disagree.
    this.spentTotal = start.spent;
    for (const [key, held] of start.held) if (held > 0) this.reserved.set(key, held);
    this.spentAtStart = round(this.spentTotal);
  }

  get spent(): number {
    return round(this.spentTotal);
  }

  get reservedTotal(): number {
    return round([...this.reserved.values()].reduce((sum, n) => sum + n, 0));
  }

  /** Credits the cap still allows, or Infinity without a cap. */
  get headroom(): number {
    return this.cap === null ? Infinity : round(this.cap - this.spentTotal - this.reservedTotal);
  }

  /** Reserves `amount` for `key` if the cap allows it; false means "do not submit". */
  reserve(key: string, amount: number): boolean {
    if (amount > this.headroom + 1e-9) return false;
    this.reserved.set(key, amount);
    return true;
  }

  /**
   * The job ended: its cost replaces the reservation. Policy: with no reported cost (null) the
   * reservation itself — the operator's estimate — is taken as the cost, never 0: assuming a job
   * was free is the one mistake that can overrun the cap unseen. A real cost above the
   * reservation is counted in full and recorded as an overrun.
   */
  settle(key: string, creditsUsed: number | null): void {
    const reserved = this.reserved.get(key) ?? 0;
    this.reserved.delete(key);
    this.spentTotal += creditsUsed ?? reserved;
    if (creditsUsed !== null && creditsUsed > reserved + 1e-9) this.overruns.push({ key, used: creditsUsed, reserved });
  }

  /** Whether spent + reserved has passed the cap (only a real cost above its estimate can do that). */
  get overCap(): boolean {
    return this.cap !== null && this.spentTotal + this.reservedTotal > this.cap + 1e-9;
  }

  /** Nothing was created (rejected, provably not sent): the reservation goes back. */
  release(key: string): void {
    this.reserved.delete(key);
  }

  /** Whether `key` holds a reservation. */
  has(key: string): boolean {
    return this.reserved.has(key);
  }
}

const round = (n: number) => Math.round(n * 100) / 100;
