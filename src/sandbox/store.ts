import type { Timeline } from './engine/lifecycle.js';

/**
 * Resource families: how jobs are looked up and shown. A family may be created by several
 * operations (a product task by gen_image or regen_video), each a `kind` in the stats.
 */
export type Family =
  | 'ai_short' | 'ai_editing' | 'product' | 'persona' | 'voice' | 'link' | 'html_ads' | 'lipsync'
  | 'boreal' | 'ad_clone' | 'text' | 'asset' | 'template_job';

/** One thing the sandbox made: a job, a link or a cloned voice. */
export interface Job {
  id: string;
  family: Family;
  /** The creating operation, as counted in the stats (`ai_short`, `product_regen`, …). */
  kind: string;
  createdAt: number;
  updatedAt: number;
  status: string;
  /** The creation body as received (after validation), shown by /__sandbox/jobs. */
  request: Record<string, unknown>;
  /** The resource's own fields, shown by its read operation. */
  fields: Record<string, unknown>;
  /** What the job costs in all; charged to the ledger at creation. */
  price: number;
  /** Credits the ledger holds for this job (price less refunds). */
  charged: number;
  /** The resource's credits_used: 0 until processing starts (as the live service shows it). */
  creditsUsed: number;
  /** Output files by name; their URLs are signed on every read. */
  files: Record<string, string>;
  webhookUrl?: string | null;
  /** Every status the job has had, with when: the life cycle as it happened. */
  history: { status: string; at: number }[];
  timeline?: Timeline;
  deleted?: boolean;
  /** Seeded at start with a fixed id (catalogues/fixtures.ts), not made through the API. */
  fixture?: boolean;
}

/** What a list operation asks for: some ids (at most 100), and a window of creation times. */
export interface ListWindow {
  ids?: ReadonlySet<string>;
  /** Created at or after (ms). */
  after: number;
  /** Created before (ms). */
  before: number;
}

/**
 * Every job, by id, in creation order; each family's jobs also in a list by creation time. Why
 * the lists: a list operation answers from its ids or its window, not from every job the sandbox
 * ever made — a scan per list read made a 100,000-job night quadratic in the model (a read of
 * 100 ids cost 30 % of the sandbox's time at 30,000 jobs), where the live service answers from
 * an index.
 */
export class JobStore {
  private readonly byId = new Map<string, Job>();
  private readonly byFamily = new Map<Family, Job[]>();
  /** Families whose list is not in creation order (a job added with an earlier time): scanned whole. */
  private readonly unordered = new Set<Family>();

  add(job: Job): void {
    this.byId.set(job.id, job);
    const list = this.byFamily.get(job.family);
    if (!list) this.byFamily.set(job.family, [job]);
    else {
      if (job.createdAt < (list.at(-1) as Job).createdAt) this.unordered.add(job.family);
      list.push(job);
    }
  }

  /** The live job of `family` with this id (case-insensitive, as a UUID path converter is). */
  get(family: Family | readonly Family[], id: string): Job | undefined {
    const job = this.byId.get(id.toLowerCase());
    const families: readonly Family[] = typeof family === 'string' ? [family] : family;
    return job && !job.deleted && families.includes(job.family) ? job : undefined;
  }

  /** The live jobs of `family` in `window` (every one without it), newest first. */
  list(family: Family, window?: ListWindow): Job[] {
    return newestFirst(this.candidates(family, window).filter((job) => !job.deleted && (!window || inWindow(job, window))));
  }

  /** The family's jobs that may be in `window`: those of its ids, or those created in its time span. */
  private candidates(family: Family, window: ListWindow | undefined): Job[] {
    if (window?.ids) return [...window.ids].flatMap((id) => this.byId.get(id) ?? []).filter((job) => job.family === family);
    const list = this.byFamily.get(family) ?? [];
    if (!window || this.unordered.has(family)) return list;
    return list.slice(firstAtOrAfter(list, window.after), firstAtOrAfter(list, window.before));
  }

  /** Every job made through the API, deleted ones too; fixtures are left out: the sandbox did not make them. */
  all(): Job[] {
    return [...this.byId.values()].filter((job) => !job.fixture);
  }
}

const inWindow = (job: Job, window: ListWindow) => (!window.ids || window.ids.has(job.id)) && job.createdAt >= window.after && job.createdAt < window.before;

/** The place of the first job of `list` (in creation order) created at or after `ms`. */
function firstAtOrAfter(list: readonly Job[], ms: number): number {
  let [low, high] = [0, list.length];
  while (low < high) {
    const mid = (low + high) >>> 1;
    if ((list[mid] as Job).createdAt < ms) low = mid + 1;
    else high = mid;
  }
  return low;
}

/** Lists come newest first, as a bare array (a stable sort: jobs made at the same instant keep their order). */
export const newestFirst = (jobs: readonly Job[]) => [...jobs].sort((a, b) => b.createdAt - a.createdAt);
