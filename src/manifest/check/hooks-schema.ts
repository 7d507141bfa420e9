import { z } from 'zod';

/**
 * The shape of `hooks:` (top level and per step) and `notify:` (docs/hooks.md). A hook is an
 * argument array run without a shell, never a command line: `[cmd, arg, …]`, each element one
 * argument whatever a placeholder puts in it.
 */

/** @default 300 s: long enough for an upload of a large video, short enough that a stuck hook does not hold a run for hours. */
export const DEFAULT_HOOK_TIMEOUT_SECONDS = 300;
/** Why a cap: a hook is a local command; one that needs more than an hour belongs in a queue of its own. */
export const MAX_HOOK_TIMEOUT_SECONDS = 3600;
/** @default 4 output hooks at once: hooks are mostly uploads and copies (waiting on I/O), on a machine of a few cores. */
export const DEFAULT_HOOK_CONCURRENCY = 4;
export const MAX_HOOK_CONCURRENCY = 64;
/** Why bounds: an argument array is written by hand; thousands of arguments or a 1 MB one is a mistake (and near the OS's limit). */
export const MAX_HOOK_ARGS = 256;
export const MAX_HOOK_ARG_CHARS = 8192;
/** Why a cap: each target is posted to, with retries, at the end of every run. */
export const MAX_NOTIFY_TARGETS = 10;

/** When a notification is sent, by how the run ended (its exit code): see docs/hooks.md. */
export const NOTIFY_EVENTS = ['success', 'failure', 'budget', 'unfinished', 'in_doubt', 'always'] as const;
export type NotifyEvent = (typeof NOTIFY_EVENTS)[number];

export const HookCommandSchema = z
  .array(z.string().max(MAX_HOOK_ARG_CHARS))
  .min(1)
  .max(MAX_HOOK_ARGS)
  .refine((argv) => (argv[0] ?? '').trim() !== '', 'the first element is the command to run: it cannot be empty')
  .describe('[command, argument, …]: run without a shell; {{ … }} placeholders are substituted inside each argument, which stays one argument');

const timeout = z.number().positive().max(MAX_HOOK_TIMEOUT_SECONDS).describe(`seconds a hook may run before it is stopped (it then fails); default ${DEFAULT_HOOK_TIMEOUT_SECONDS}`);

export const HooksSchema = z
  .strictObject({
    on_output: HookCommandSchema.optional().describe('run once per downloaded output file of every job (a step may set its own)'),
    on_finish: HookCommandSchema.optional().describe('run once when a run ends, with its totals'),
    timeout_seconds: timeout.optional(),
    concurrency: z.int().min(1).max(MAX_HOOK_CONCURRENCY).optional().describe(`output hooks running at once; default ${DEFAULT_HOOK_CONCURRENCY}`),
  })
  .describe('commands run after each output is downloaded and when a run ends (docs/hooks.md)');

export const StepHooksSchema = z
  .strictObject({
    on_output: HookCommandSchema.optional().describe("run once per downloaded output file of this step's jobs, instead of the manifest's"),
    timeout_seconds: timeout.optional(),
  })
  .describe("this step's own output hook (on_finish is the manifest's: a run ends once)");

export const NotifySchema = z
  .array(
    z.strictObject({
      webhook_url: z.string().min(1).describe('where the run summary is POSTed as JSON; may be "{{ env.NAME }}", read when the run ends'),
      on: z.array(z.enum(NOTIFY_EVENTS)).min(1).default(['always']).describe('which endings to notify: success, failure, budget, unfinished, in_doubt, always (default)'),
    }),
  )
  .max(MAX_NOTIFY_TARGETS)
  .describe("webhooks told of the run's outcome when it ends (Slack-compatible `text`, and the summary object)");

export type HooksInput = z.infer<typeof HooksSchema>;
export type StepHooksInput = z.infer<typeof StepHooksSchema>;
export type NotifyInput = z.infer<typeof NotifySchema>;
