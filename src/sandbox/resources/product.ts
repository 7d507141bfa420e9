import { ProductGenImage, ProductGenVideo, ProductRegen } from '../../api/schemas/index.js';
import { REGEN_CREDITS } from '../../pricing/index.js';
import type { SandboxCore } from '../core.js';
import { workPlan } from '../engine/plans.js';
import { json, nonFieldError } from '../http/reply.js';
import { coloursFor, makePng, SAMPLE_MP4 } from '../outputs/media.js';
import { PRODUCT_IMAGE_CREDITS, PRODUCT_VIDEO_CREDITS } from '../prices.js';
import type { RequestContext } from '../http/router.js';
import type { Job } from '../store.js';
import { downloadUrl, findJob, isoOffset, putOutput, type Registrar } from './common.js';

/**
 * Product to video tasks:
 *   gen_image:   initializing → image_generating → image_generated (rests: waits for gen_video)
 *   gen_video:   image_generated → video_generating → video_generated
 *   regen_video: a new task: initializing → video_generating → video_generated
 * and failed from any working state. About 15 s for the image and 2 minutes for the video.
 */
const INIT_SECONDS = 2;
const IMAGE_SECONDS = 15;
const VIDEO_SECONDS = 120;
const MODEL = 'ProductToVideo';
/** Progress at image_generated: the image's share of the whole walk (17 s of 137 s). */
const IMAGE_SHARE = Math.round(((INIT_SECONDS + IMAGE_SECONDS) / (INIT_SECONDS + IMAGE_SECONDS + VIDEO_SECONDS)) * 100);

function productView(core: SandboxCore, job: Job): Record<string, unknown> {
  const f = job.fields;
  return {
    regen_source_id: f.regen_source_id ?? null, regen_type: f.regen_type ?? null,
    failed_reason: (f.failed_reason as string | undefined) ?? '', id: job.id, type: f.type, product_url: f.product_url,
    aspect_ratio: f.aspect_ratio, override_avatar: f.override_avatar ?? null, motion_style: f.motion_style ?? '',
    product_showcase_url: f.product_showcase_url ?? null, image_prompt: f.image_prompt ?? '', video_prompt: f.video_prompt ?? '',
    status: job.status, generated_video_url: downloadUrl(core, job, 'video.mp4'), generated_photo_url: downloadUrl(core, job, 'photo.png'),
    created_at: isoOffset(job.createdAt), updated_at: isoOffset(job.updatedAt), webhook_url: job.webhookUrl ?? null,
    credits_used: job.creditsUsed, progress: core.engine.progress(job),
  };
}

const photo = (core: SandboxCore) => (job: Job) =>
  putOutput(core, job, 'photo.png', () => makePng(160, 160, ...coloursFor(`${job.id}:photo`)));
const video = (core: SandboxCore) => (job: Job) => putOutput(core, job, 'video.mp4', () => SAMPLE_MP4);

/**
 * gen_video: a further step of a task resting at image_generated, charged and fault-drawn like a
 * creation. Product tasks have no rejected state (spec), so only jobFailure can end one early.
 */
function continueWithVideo(core: SandboxCore, job: Job, body: ProductGenVideo, path: string): void {
  core.continue(job, {
    kind: 'product_video', path, request: body, price: PRODUCT_VIDEO_CREDITS, webhookUrl: body.webhook_url,
    fields: { video_prompt: body.video_prompt ?? '', motion_style: body.motion_style ?? '' },
    plan: () => workPlan(core, {
      initial: { status: 'image_generated', seconds: 0 },
      work: [{ status: 'video_generating', seconds: VIDEO_SECONDS }],
      done: 'video_generated', onDone: video(core),
    }),
  });
}

/** gen_image: a new task that rests at image_generated until gen_video. */
function createImageTask(core: SandboxCore, ctx: RequestContext): Job {
  const body = ctx.parse(ProductGenImage);
  return core.create({
    family: 'product', kind: 'product_image', path: ctx.path, request: body, price: PRODUCT_IMAGE_CREDITS, webhookUrl: body.webhook_url,
    fields: {
      product_url: body.product_url, type: body.type ?? 'product_anyshot', aspect_ratio: body.aspect_ratio ?? '9x16',
      override_avatar: body.override_avatar ?? null, image_prompt: body.image_prompt ?? '',
      product_showcase_url: body.product_url,
    },
    plan: () => workPlan(core, {
      initial: { status: 'initializing', seconds: INIT_SECONDS },
      work: [{ status: 'image_generating', seconds: IMAGE_SECONDS }],
      done: 'image_generated', onDone: photo(core), rest: true, restProgress: IMAGE_SHARE,
    }),
  });
}

export const registerProduct: Registrar = (router, core) => {
  // Spec, Events: the product task webhook carries the task's fields, when it succeeds or fails.
  core.webhookPolicies.product = (job, to) =>
    ['image_generated', 'video_generated', 'failed'].includes(to) ? productView(core, job) : undefined;

  router.add('POST', '/api/product_to_videos/gen_image/', (ctx) => json(201, productView(core, createImageTask(core, ctx))), {
    creates: true,
  });

  router.add('POST', '/api/product_to_videos/{id}/gen_video/', (ctx) => {
    const job = findJob(core, 'product', ctx, MODEL);
    const body = ctx.parse(ProductGenVideo);
    if (job.status !== 'image_generated') {
      throw nonFieldError(`The task's image is not ready: its status is ${job.status}, gen_video needs image_generated.`);
    }
    continueWithVideo(core, job, body, ctx.path);
    return json(200, productView(core, job));
  }, { creates: true });

  router.add('POST', '/api/product_to_videos/{id}/regen_video/', (ctx) => {
    const source = findJob(core, 'product', ctx, MODEL);
    const body = ctx.parse(ProductRegen);
    if (source.status !== 'video_generated') {
      throw nonFieldError(`Only a finished task can be regenerated: its status is ${source.status}.`);
    }
    const job = core.create({
      family: 'product', kind: 'product_regen', path: ctx.path, request: body, price: REGEN_CREDITS, webhookUrl: body.webhook_url,
      fields: {
        ...source.fields, failed_reason: undefined, regen_source_id: source.id, regen_type: 'regen_video',
        video_prompt: body.video_prompt ?? source.fields.video_prompt,
      },
      plan: (created) => {
        putOutput(core, created, 'photo.png', () => core.cdn.bytesOf(source.files['photo.png']!) ?? Buffer.alloc(0));
        return workPlan(core, {
          initial: { status: 'initializing', seconds: INIT_SECONDS },
          work: [{ status: 'video_generating', seconds: VIDEO_SECONDS }],
          done: 'video_generated', onDone: video(core),
        });
      },
    });
    return json(200, productView(core, job));
  }, { creates: true });

  router.add('GET', '/api/product_to_videos/{id}/', (ctx) => json(200, productView(core, findJob(core, 'product', ctx, MODEL))));
};
