import { TemplateJobCreate, TemplateRender } from '../../api/schemas/index.js';
import { TEMPLATES, type SandboxTemplate, type VariableType } from '../catalogues/templates.js';
import type { SandboxCore } from '../core.js';
import { workPlan } from '../engine/plans.js';
import { badField, fieldError, json, nonFieldError, notFound } from '../http/reply.js';
import { coloursFor, makePng, SAMPLE_MP4 } from '../outputs/media.js';
import { templateRenderCredits } from '../prices.js';
import type { Job } from '../store.js';
import { downloadUrl, findJob, iso, outputUrl, putOutput, type Registrar } from './common.js';

/**
 * Custom template jobs. A preview is ready about 10 s after creation; the render then takes about
 * four times the template's length and needs a render slot:
 *   preview_async:  pending (preview fills in) … rests pending until render
 *   render:         pending → in_queue → running → done | failed | rejected
 *   create+render:  pending (preview fills in) → in_queue → running → done | failed | rejected
 * Status never goes back, so a poll loop may treat done and failed as final.
 */
const PREVIEW_SECONDS = 10;
const RENDER_SECONDS_PER_VIDEO_SECOND = 4;
const MODEL = 'CustomTemplateJob';

const entry = (core: SandboxCore, t: SandboxTemplate) => ({
  template_id: t.template_id, name: t.name, preview: core.cdn.mediaUrl(`template-${t.template_id}.png`), aspect_ratio: t.aspect_ratio,
  created_at: iso(Date.UTC(2026, 0, 1)), updated_at: iso(Date.UTC(2026, 0, 1)),
});

const KIND_CHECKS: Record<VariableType, (v: unknown) => string | undefined> = {
  text: (v) => (typeof v === 'string' || typeof v === 'number' ? undefined : 'A text variable takes a string.'),
  image: (v) => (typeof v === 'string' && /^https?:\/\//.test(v) ? undefined : 'An image variable takes an image URL.'),
  video: (v) => (typeof v === 'string' && /^https?:\/\//.test(v) ? undefined : 'A video variable takes a video URL.'),
  audio: (v) => (typeof v === 'string' && /^https?:\/\//.test(v) ? undefined : 'An audio variable takes an audio URL.'),
  avatar: (v) => (typeof v === 'object' && v !== null && 'avatar_id' in v ? undefined : 'An avatar variable takes {"avatar_id": UUID}.'),
  voiceover: (v) => (typeof v === 'object' && v !== null && 'voice_id' in v ? undefined : 'A voiceover variable takes {"voice_id": UUID}.'),
};

/** Checks the variables against the template; text variables not supplied become empty strings (spec). */
function resolveVariables(template: SandboxTemplate, given: Record<string, unknown>): Record<string, unknown> {
  const names = Object.keys(template.variables);
  const errors: Record<string, string[]> = {};
  for (const [name, value] of Object.entries(given)) {
    const variable = template.variables[name];
    const problem = variable ? KIND_CHECKS[variable.type](value) : `Unknown variable; this template takes: ${names.join(', ')}.`;
    if (problem) errors[name] = [problem];
  }
  if (Object.keys(errors).length > 0) throw fieldError({ variables: errors });
  const texts = Object.fromEntries(names.filter((n) => template.variables[n]!.type === 'text').map((n) => [n, '']));
  return { ...texts, ...given };
}

function jobView(core: SandboxCore, job: Job): Record<string, unknown> {
  return {
    id: job.id, status: job.status, template_id: job.fields.template_id, name: job.fields.name, variables: job.fields.variables,
    preview: outputUrl(core, job, 'preview.png'), video_output: downloadUrl(core, job, 'video.mp4'), credits_used: job.creditsUsed,
    failed_reason: (job.fields.failed_reason as string | undefined) ?? '', progress: core.engine.progress(job),
    model_version: job.fields.model_version, webhook_url: job.webhookUrl ?? null, created_at: iso(job.createdAt),
    updated_at: iso(job.updatedAt),
  };
}

/** Progress at a ready preview: the preview's share of the whole walk (preview, dispatch, render). */
const previewShare = (t: SandboxTemplate) =>
  Math.round((PREVIEW_SECONDS / (PREVIEW_SECONDS + 1 + t.seconds * RENDER_SECONDS_PER_VIDEO_SECOND)) * 100);

const previewReady = (core: SandboxCore) => (job: Job) =>
  putOutput(core, job, 'preview.png', () => makePng(90, 160, ...coloursFor(job.id)));

function renderPlan(core: SandboxCore, template: SandboxTemplate, previewSeconds: number) {
  return workPlan(core, {
    initial: { status: 'pending', seconds: previewSeconds },
    queueStatus: 'in_queue',
    work: [{ status: 'running', seconds: template.seconds * RENDER_SECONDS_PER_VIDEO_SECOND }],
    done: 'done', onDone: (job) => putOutput(core, job, 'video.mp4', () => SAMPLE_MP4), rejectable: true,
  });
}

function createJob(core: SandboxCore, body: TemplateJobCreate, path: string, render: boolean): Job {
  const template = TEMPLATES.find((t) => t.template_id === body.template_id);
  if (!template) throw badField('template_id', `No template "${body.template_id}". See GET /api/custom_templates/.`);
  const variables = resolveVariables(template, body.variables);
  const job = core.create({
    family: 'template_job', kind: render ? 'custom_template' : 'custom_template_preview', path, request: body,
    price: render ? templateRenderCredits(template.seconds) : 0, webhookUrl: body.webhook_url,
    fields: {
      template_id: template.template_id, name: body.name ?? template.name, variables,
      model_version: body.model_version ?? 'standard', rendering: render,
    },
    plan: () => {
      if (!render) {
        const phases = [{ status: 'pending', ms: core.ms(PREVIEW_SECONDS), leave: previewReady(core) }];
        return { phases, restProgress: previewShare(template), end: { status: 'pending', rest: true } };
      }
      const plan = renderPlan(core, template, PREVIEW_SECONDS);
      plan.phases[0]!.leave = previewReady(core);
      return plan;
    },
  });
  return job;
}

export const registerTemplates: Registrar = (router, core) => {
  // Spec, Events: custom templates report "the video is ready" (and, so a waiter learns, a failure).
  core.webhookPolicies.template_job = (job, to) => {
    if (!['done', 'failed', 'rejected'].includes(to)) return undefined;
    const view = jobView(core, job);
    return { id: job.id, status: to, failed_reason: view.failed_reason, video_output: view.video_output, preview: view.preview };
  };

  router.add('GET', '/api/custom_templates/', () => json(200, TEMPLATES.map((t) => entry(core, t))));
  router.add('GET', '/api/custom_templates/{template_id}/', (ctx) => {
    const template = TEMPLATES.find((t) => t.template_id === ctx.params.template_id);
    if (!template) throw notFound('CustomTemplate');
    const variables = Object.fromEntries(
      Object.entries(template.variables).map(([name, v]) => [name, { type: v.type, description: v.description }]),
    );
    return json(200, { ...entry(core, template), variables });
  });

  router.add('POST', '/api/custom_template_jobs/', (ctx) =>
    json(201, jobView(core, createJob(core, ctx.parse(TemplateJobCreate), ctx.path, true))), { creates: true });
  router.add('POST', '/api/custom_template_jobs/preview_async/', (ctx) =>
    json(201, jobView(core, createJob(core, ctx.parse(TemplateJobCreate), ctx.path, false))), { creates: true });

  router.add('POST', '/api/custom_template_jobs/{id}/render/', (ctx) => {
    const job = findJob(core, 'template_job', ctx, MODEL);
    const body = ctx.parse(TemplateRender);
    if (job.fields.rendering) throw nonFieldError('This job is already rendering or rendered.');
    if (!job.files['preview.png']) throw nonFieldError('The preview is not ready yet: poll the job until preview is set.');
    const template = TEMPLATES.find((t) => t.template_id === job.fields.template_id)!;
    core.continue(job, {
      kind: 'custom_template_render', path: ctx.path, request: body, price: templateRenderCredits(template.seconds),
      webhookUrl: body.webhook_url, fields: { rendering: true }, plan: () => renderPlan(core, template, 0),
    });
    return json(200, jobView(core, job));
  }, { creates: true });

  router.add('GET', '/api/custom_template_jobs/{id}/', (ctx) => json(200, jobView(core, findJob(core, 'template_job', ctx, MODEL))));
};
