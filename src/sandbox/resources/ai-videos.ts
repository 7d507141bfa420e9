import { AiEditingCreate, AiShortCreate, CAPTION_DEFAULTS } from '../../api/schemas/index.js';
import { aiVideoCredits, spokenSeconds } from '../../pricing/index.js';
import type { SandboxCore } from '../core.js';
import { workPlan } from '../engine/plans.js';
import { json } from '../http/reply.js';
import { DEFAULT_LENGTHS, mediaSeconds } from '../media-length.js';
import { coloursFor, makePng, SAMPLE_MP4 } from '../outputs/media.js';
import type { Job } from '../store.js';
import { downloadUrl, findJob, jobBasics, listFilter, outputUrl, putOutput, subsetWebhook, type Registrar } from './common.js';

/**
 * AI Shorts and AI Editing: pending → in_queue (no free render slot) → running → done | failed
 * | rejected. Rendering takes about four times the video's length; the video's length is the
 * script's spoken length (AI Shorts) or the input video's (AI Editing).
 */
const PENDING_SECONDS = 2;
const RENDER_SECONDS_PER_VIDEO_SECOND = 4;

function finishVideo(core: SandboxCore) {
  return (job: Job) => {
    putOutput(core, job, 'video.mp4', () => SAMPLE_MP4);
    putOutput(core, job, 'preview.png', () => makePng(90, 160, ...coloursFor(job.id)));
  };
}

function videoView(core: SandboxCore, job: Job): Record<string, unknown> {
  return {
    ...jobBasics(core, job),
    status: job.status,
    video_output: downloadUrl(core, job, 'video.mp4'),
    preview: outputUrl(core, job, 'preview.png'),
    editor_url: null,
    is_hidden: false,
    permission_type: 'private',
    user: 1,
    workspace: null,
    created_from_api: true,
    ...job.fields,
  };
}

type Body = Record<string, unknown>;

function videoJob(core: SandboxCore, kind: 'ai_short' | 'ai_editing', seconds: number, body: Body, fields: Body) {
  return core.create({
    family: kind, kind, path: kind, request: body, price: aiVideoCredits(seconds), webhookUrl: body.webhook_url as string | undefined,
    fields: {
      name: body.name ?? '', script: null, aspect_ratio: body.aspect_ratio ?? '9x16', duration: seconds, brand: body.brand ?? null,
      caption_setting: { ...CAPTION_DEFAULTS, ...(body.caption_setting as object | undefined) },
      background_music_url: body.background_music_url ?? null,
      background_music_volume: body.background_music_volume ?? 0.5, voiceover_volume: body.voiceover_volume ?? 1,
      webhook_url: body.webhook_url ?? null, media_job: core.newId(), ...fields,
    },
    plan: () =>
      workPlan(core, {
        initial: { status: 'pending', seconds: PENDING_SECONDS },
        queueStatus: 'in_queue',
        work: [{ status: 'running', seconds: seconds * RENDER_SECONDS_PER_VIDEO_SECOND }],
        done: 'done',
        onDone: finishVideo(core),
        rejectable: true,
      }),
  });
}

export const registerAiVideos: Registrar = (router, core) => {
  core.webhookPolicies.ai_short = subsetWebhook('video_output', (job) => videoView(core, job));
  core.webhookPolicies.ai_editing = core.webhookPolicies.ai_short;

  router.add('POST', '/api/ai_shorts/', (ctx) => {
    const body = ctx.parse(AiShortCreate);
    const seconds = spokenSeconds(body.script).expected;
    const job = videoJob(core, 'ai_short', seconds, body, { script: body.script, style: body.style, accent: body.accent ?? null });
    return json(201, videoView(core, job));
  }, { creates: true });
  router.add('GET', '/api/ai_shorts/', (ctx) => {
    return json(200, core.store.list('ai_short', listFilter(ctx.query)).map((job) => videoView(core, job)));
  });
  router.add('GET', '/api/ai_shorts/{id}/', (ctx) => json(200, videoView(core, findJob(core, 'ai_short', ctx, 'AIShort'))));

  router.add('POST', '/api/ai_editing/', (ctx) => {
    const body = ctx.parse(AiEditingCreate);
    const seconds = mediaSeconds(body.video_url, core.options.seed, DEFAULT_LENGTHS.inputVideo);
    const job = videoJob(core, 'ai_editing', seconds, body, {
      video_url: body.video_url, editing_style: body.editing_style ?? 'film', is_talking_video: false,
      is_one_person_in_video: false, audio_url: null, size: null,
    });
    return json(201, videoView(core, job));
  }, { creates: true });
  router.add('GET', '/api/ai_editing/{id}/', (ctx) => json(200, videoView(core, findJob(core, 'ai_editing', ctx, 'AIEditing'))));
};
