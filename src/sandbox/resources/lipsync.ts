import { LipsyncCreate, type LipsyncVideoInput } from '../../api/schemas/index.js';
import { lipsyncCredits, spokenSeconds } from '../../pricing/index.js';
import type { SandboxCore } from '../core.js';
import { workPlan } from '../engine/plans.js';
import type { DrfErrors } from '../http/drf-errors.js';
import { fieldError, json } from '../http/reply.js';
import { coloursFor, makePng, SAMPLE_MP4 } from '../outputs/media.js';
import type { Job } from '../store.js';
import { downloadUrl, findJob, jobBasics, listFilter, outputUrl, putOutput, subsetWebhook, type Registrar } from './common.js';

/**
 * AI Avatar v2 (lipsync): pending → in_queue → running → done | failed | rejected. The video lasts
 * as long as its scenes' text takes to say; rendering takes about three times that (a short
 * lipsync about 30 s). A failed lipsync is refunded and shows 0 credits (spec, Errors).
 */
const PENDING_SECONDS = 2;
const RENDER_SECONDS_PER_VIDEO_SECOND = 3;

function lipsyncView(core: SandboxCore, job: Job): Record<string, unknown> {
  return {
    ...jobBasics(core, job),
    ...job.fields,
    status: job.status,
    // Lipsync items report progress as a string (behaviour notes).
    progress: String(core.engine.progress(job)),
    output: downloadUrl(core, job, 'video.mp4'),
    video_thumbnail: outputUrl(core, job, 'thumbnail.png'),
    preview: outputUrl(core, job, 'thumbnail.png'),
    editor_url: null,
  };
}

/**
 * Every scene's avatar must be one of the account's avatars (GET /api/personas_v2/{id}/), as an
 * HTML ad's or an ad clone's link must be one of its links. Why `done` only: an avatar still in
 * processing or review has no footage to speak with, and a rejected one never will.
 */
function checkAvatars(core: SandboxCore, scenes: readonly LipsyncVideoInput[]): void {
  const errors: DrfErrors = {};
  scenes.forEach((scene, i) => {
    const avatar = core.store.get('persona', scene.character.avatar_id);
    const problem = !avatar ? 'Invalid avatar ID' : avatar.status === 'done' ? undefined : `Avatar is not ready to use (status ${avatar.status}).`;
    if (problem) errors[String(i)] = { character: { avatar_id: [problem] } };
  });
  if (Object.keys(errors).length > 0) throw fieldError({ video_inputs: errors });
}

export const registerLipsync: Registrar = (router, core) => {
  core.webhookPolicies.lipsync = subsetWebhook('output', (job) => lipsyncView(core, job));

  router.add('POST', '/api/lipsyncs_v2/', (ctx) => {
    const body = ctx.parse(LipsyncCreate);
    checkAvatars(core, body.video_inputs);
    const model = body.model_version ?? 'standard';
    const seconds = spokenSeconds(body.video_inputs.map((scene) => scene.voice.input_text).join(' ')).expected;
    const job = core.create({
      family: 'lipsync', kind: 'lipsync_v2', path: ctx.path, request: body, price: lipsyncCredits(model, seconds),
      webhookUrl: body.webhook_url,
      fields: {
        name: body.name ?? '', aspect_ratio: body.aspect_ratio ?? '9x16', video_inputs: body.video_inputs, model_version: model,
        duration: seconds, media_job: core.newId(), webhook_url: body.webhook_url ?? null,
      },
      plan: () => workPlan(core, {
        initial: { status: 'pending', seconds: PENDING_SECONDS },
        queueStatus: 'in_queue',
        work: [{ status: 'running', seconds: seconds * RENDER_SECONDS_PER_VIDEO_SECOND }],
        done: 'done',
        onDone: (done) => {
          putOutput(core, done, 'video.mp4', () => SAMPLE_MP4);
          putOutput(core, done, 'thumbnail.png', () => makePng(90, 160, ...coloursFor(done.id)));
        },
        rejectable: true,
        refundOnFailure: true,
      }),
    });
    return json(201, lipsyncView(core, job));
  }, { creates: true });

  router.add('GET', '/api/lipsyncs_v2/', (ctx) => {
    return json(200, core.store.list('lipsync', listFilter(ctx.query)).map((job) => lipsyncView(core, job)));
  });
  router.add('GET', '/api/lipsyncs_v2/{id}/', (ctx) => json(200, lipsyncView(core, findJob(core, 'lipsync', ctx, 'LipsyncV2'))));
};
