import { z } from 'zod';

/**
 * The journal's format, version 1: JSON lines. The first line is the header; every further line
 * is one operation that changed the sandbox's state, written before its answer was sent.
 *
 *   {"journal":"reelpipe-sandbox","version":1,"created_at":"…","seed":1,"credits":10000,"capacity":4}
 *   {"at":"…","method":"POST","path":"/api/ai_shorts/","body":{…},"ids":[…],"draws":{…},"jobs":[…],"balance":9995}
 *
 * An operation line holds the request (method, path, decoded body, or `form` for a form body)
 * and every decision the sandbox made while answering it: the instant (`at`), the ids it handed
 * out in order (`ids`), the fault draws decided at creation (`draws`, per fault name in order),
 * the jobs it created or continued with their price and life-cycle timings (`jobs`), and the
 * balance after it (`balance`). Replaying the request with those decisions rebuilds the state.
 */
export const JOURNAL_VERSION = 1;

export const JournalHeader = z.object({
  journal: z.literal('reelpipe-sandbox'),
  version: z.number().int(),
  created_at: z.string(),
  seed: z.number().int(),
  credits: z.number().min(0),
  capacity: z.number().int().min(1),
});
export type JournalHeader = z.infer<typeof JournalHeader>;

/** A job created (or a resting job continued) by an operation: what it cost and how long each phase lasts. */
export const JournalJob = z.object({
  kind: z.string(),
  id: z.string(),
  price: z.number(),
  /** [status, milliseconds] of each phase of its plan, already divided by the speed of the time. */
  phases: z.array(z.tuple([z.string(), z.number().min(0)])),
});
export type JournalJob = z.infer<typeof JournalJob>;

export const JournalOperation = z.object({
  at: z.iso.datetime(),
  method: z.enum(['POST', 'PUT', 'PATCH', 'DELETE']),
  path: z.string().startsWith('/'),
  body: z.unknown().optional(),
  form: z.record(z.string(), z.array(z.string())).optional(),
  ids: z.array(z.string()),
  draws: z.record(z.string(), z.array(z.boolean())),
  jobs: z.array(JournalJob),
  balance: z.number(),
});
export type JournalOperation = z.infer<typeof JournalOperation>;

/** One problem found reading a journal, at its line. */
export interface JournalProblem {
  line: number;
  message: string;
}

/** A line checked against a schema: the value, or a message naming the first bad field. */
export function parseLine<S extends z.ZodType>(schema: S, text: string): { value: z.output<S> } | { message: string } {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return { message: `not a JSON line (${(error as Error).message})` };
  }
  const parsed = schema.safeParse(json);
  if (parsed.success) return { value: parsed.data };
  const issue = parsed.error.issues[0]!;
  const where = issue.path.length > 0 ? `${issue.path.join('.')}: ` : '';
  return { message: `${where}${issue.message}` };
}
