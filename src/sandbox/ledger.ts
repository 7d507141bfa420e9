import { tenths } from '../pricing/index.js';
import type { Job } from './store.js';

/**
 * The account's credits. A job's whole price is taken at creation, so parallel creations can never
 * overspend, and refunds go back where the spec says failed work is refunded. Faults never touch
 * the ledger: a job created under "500 after create" is real and charged.
 */
export class Ledger {
  charged = 0;
  refunded = 0;

  constructor(public balance: number) {}

  canCover(price: number): boolean {
    return price <= this.balance;
  }

  charge(job: Job, price: number): void {
    this.balance = tenths(this.balance - price);
    this.charged = tenths(this.charged + price);
    job.charged = tenths(job.charged + price);
  }

  /** Gives back up to what the job holds. */
  refund(job: Job, amount: number): void {
    const back = Math.min(amount, job.charged);
    if (back <= 0) return;
    this.balance = tenths(this.balance + back);
    this.refunded = tenths(this.refunded + back);
    job.charged = tenths(job.charged - back);
  }
}
