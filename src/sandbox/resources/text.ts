import { TextCreate } from '../../api/schemas/index.js';
import type { SandboxCore } from '../core.js';
import { workPlan } from '../engine/plans.js';
import { json } from '../http/reply.js';
import { TEXT_CREDITS } from '../prices.js';
import type { Job } from '../store.js';
import { findJob, jobBasics, subsetWebhook, type Registrar } from './common.js';

/**
 * Text generation: pending → running → done | failed, in a few seconds and without a render slot.
 * Created under /api/, read under /sse/ where errors read `{"error": ...}`.
 */
const PENDING_SECONDS = 0.5;
const RUNNING_SECONDS = 3;

/** A deterministic answer: JSON when JSON was asked for, else a sentence about the last message. */
function answer(body: TextCreate): string {
  const last = body.messages[body.messages.length - 1]!;
  const topic = last.content.trim().slice(0, 120) || '(empty message)';
  if (body.config?.response_mime_type === 'application/json') return JSON.stringify({ answer: `Sandbox reply about: ${topic}` });
  return `Sandbox reply (${body.model_name}) about: ${topic}`;
}

function textView(core: SandboxCore, job: Job): Record<string, unknown> {
  const { progress: _progress, ...basics } = jobBasics(core, job);
  return { ...basics, ...job.fields, status: job.status };
}

export const registerText: Registrar = (router, core) => {
  core.webhookPolicies.text = subsetWebhook('response_text', (job) => textView(core, job));

  router.add('POST', '/api/text_generator/', (ctx) => {
    const body = ctx.parse(TextCreate);
    const job = core.create({
      family: 'text', kind: 'text_generation', path: ctx.path, request: body, price: TEXT_CREDITS, webhookUrl: body.webhook_url,
      fields: {
        model_name: body.model_name, messages: body.messages, config: body.config ?? {},
        system_instruction: body.system_instruction ?? null,
        response_function_calls: [], response_text: null,
      },
      plan: () => workPlan(core, {
        initial: { status: 'pending', seconds: PENDING_SECONDS },
        work: [{ status: 'running', seconds: RUNNING_SECONDS, slot: false }],
        done: 'done', onDone: (done) => void (done.fields.response_text = answer(body)),
      }),
    });
    return json(201, textView(core, job));
  }, { creates: true });

  router.add('GET', '/sse/text_generator/{id}/', (ctx) =>
    json(200, textView(core, findJob(core, 'text', ctx, 'TextGenerationTask'))), { sse: true });
};
