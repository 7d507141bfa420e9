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

/** Every job, by id, in creation order. */
export class JobStore {
  private readonly byId = new Map<string, Job>();

  add(job: Job): void {
    this.byId.set(job.id, job);
  }

  /** The live job of `family` with this id (case-insensitive, as a UUID path converter is). */
  get(family: Family | readonly Family[], id: string): Job | undefined {
    const job = this.byId.get(id.toLowerCase());
    const families: readonly Family[] = typeof family === 'string' ? [family] : family;
    return job && !job.deleted && families.includes(job.family) ? job : undefined;
  }

  list(family: Family): Job[] {
    return [...this.byId.values()].filter((job) => job.family === family && !job.deleted);
  }

  /** Every job made through the API, deleted ones too; fixtures are left out: the sandbox did not make them. */
  all(): Job[] {
    return [...this.byId.values()].filter((job) => !job.fixture);
  }
}
