import { PersonaCreate } from '../../api/schemas/index.js';
import type { SandboxCore } from '../core.js';
import type { Phase, Plan } from '../engine/lifecycle.js';
import { FAULT_FAILED_REASON, FAULT_REJECTED_REASON } from '../engine/plans.js';
import { json } from '../http/reply.js';
import { SAMPLE_MP4 } from '../outputs/media.js';
import { PERSONA_CREDITS } from '../prices.js';
import type { Job } from '../store.js';
import { findJob, iso, outputUrl, putOutput, type Registrar } from './common.js';

/**
 * Custom avatars: pending → processing → voice_creating → video_validating → crop_and_matte →
 * reviewing → done, or failed (processing broke) or rejected (the human review said no). Review
 * takes a day and a half, so only a high --speed finishes one in a test. Avatars use no render
 * slot: their processing is a pipeline of its own, and holding a slot through review would block
 * every other job for days.
 */
const STEPS: [string, number][] = [
  ['pending', 5], ['processing', 60], ['voice_creating', 120], ['video_validating', 60], ['crop_and_matte', 300],
  ['reviewing', 36 * 3600],
];
const MODEL = 'PersonaV2';

function personaView(core: SandboxCore, job: Job): Record<string, unknown> {
  const f = job.fields;
  return {
    id: job.id, gender: f.gender, creator_name: f.creator_name, consent_video: f.gdown_url,
    lipsync_input_url: outputUrl(core, job, 'lipsync-input.mp4'), lipsync_input: f.lipsync_input ?? '',
    matching_voice_non_null: job.status === 'done' ? f.voice_id : '', process_status: job.status,
    failed_reason: (f.failed_reason as string | undefined) ?? '', created_at: iso(job.createdAt), updated_at: iso(job.updatedAt),
    video_scene: f.video_scene ?? '', keywords: f.keywords ?? '', gdown_url: f.gdown_url, labels: f.labels ?? [],
    original_voice_provider: f.original_voice_provider ?? 'provider-a', webhook_url: job.webhookUrl ?? null,
  };
}

function personaPlan(core: SandboxCore): Plan {
  const phases: Phase[] = STEPS.map(([status, seconds]) => ({ status, ms: core.ms(seconds) }));
  if (core.decide('jobRejection')) {
    return { phases, end: { status: 'rejected', enter: (job) => void (job.fields.failed_reason = FAULT_REJECTED_REASON) } };
  }
  if (core.decide('jobFailure')) {
    return { phases: phases.slice(0, 3), end: { status: 'failed', enter: (job) => void (job.fields.failed_reason = FAULT_FAILED_REASON) } };
  }
  return {
    phases,
    end: { status: 'done', enter: (job) => putOutput(core, job, 'lipsync-input.mp4', () => SAMPLE_MP4) },
  };
}

export const registerPersonas: Registrar = (router, core) => {
  // Spec, Events: the avatar is reported when "the creator is created"; failures too, so a waiting client learns.
  core.webhookPolicies.persona = (job, to) =>
    ['done', 'failed', 'rejected'].includes(to)
      ? { id: job.id, status: to, process_status: to, failed_reason: (job.fields.failed_reason as string | undefined) ?? '' }
      : undefined;

  router.add('POST', '/api/personas_v2/', (ctx) => {
    const body = ctx.parse(PersonaCreate);
    const job = core.create({
      family: 'persona', kind: 'persona', path: ctx.path, request: body, price: PERSONA_CREDITS, webhookUrl: body.webhook_url,
      fields: { ...body, voice_id: core.newId() },
      plan: () => personaPlan(core),
    });
    return json(201, personaView(core, job));
  }, { creates: true });

  router.add('GET', '/api/personas_v2/{id}/', (ctx) => json(200, personaView(core, findJob(core, 'persona', ctx, MODEL))));

  router.add('DELETE', '/api/personas/{id}/', (ctx) => {
    const job = findJob(core, 'persona', ctx, 'Persona');
    core.engine.cancel(job);
    job.deleted = true;
    return { status: 204 };
  });
};
