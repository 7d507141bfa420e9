import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { AssetCreate } from '../../api/schemas/index.js';
import { ASSET_MODELS, type SandboxAssetModel } from '../catalogues/asset-models.js';
import type { SandboxCore } from '../core.js';
import { workPlan } from '../engine/plans.js';
import { fieldError, json, nonFieldError } from '../http/reply.js';
import { coloursFor, makePng, SAMPLE_MP4 } from '../outputs/media.js';
import { ASSET_CREDITS_PER_OUTPUT } from '../prices.js';
import type { Job } from '../store.js';
import { downloadUrl, findJob, jobBasics, outputUrl, putOutput, subsetWebhook, type Registrar } from './common.js';

/**
 * Asset generation: initializing → generating → done | failed. input_params must satisfy the
 * model's JSON Schema (checked with ajv); an unknown model is DRF's bare-array 400
 * `["AI model not found"]`. One output takes the model's secondsPerOutput (an image about 6 s).
 */
const INIT_SECONDS = 1;
const FILE_EXTENSION = { image: 'png', video: 'mp4', audio: 'm4a', text: 'txt' } as const;

// Each model's validator compiled on its first asset, not when the sandbox loads: compiling them
// all (and JSON Schema's meta-schema) cost every sandbox start about 100 ms, asset jobs or not.
let ajv: Ajv | undefined;
const validators = new Map<string, ValidateFunction>();
function validatorOf(model: SandboxAssetModel): ValidateFunction {
  let validate = validators.get(model.model_name);
  if (!validate) validators.set(model.model_name, (validate = (ajv ??= new Ajv({ allErrors: true })).compile(model.input_params_schema as object)));
  return validate;
}

/** An ajv message, naming the accepted values of an enum. */
function schemaMessage(e: ErrorObject): string {
  const allowed = e.keyword === 'enum' ? `: ${JSON.stringify((e.params as { allowedValues: unknown[] }).allowedValues)}` : '';
  return `${e.message ?? 'invalid'}${allowed}`;
}

/** ajv errors as DRF's nested field errors: `{"input_params": {"prompt": ["This field is required."]}}`. */
function inputErrors(errors: ErrorObject[]): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const e of errors) {
    const params = e.params as { missingProperty?: string; additionalProperty?: string };
    const [key, message] = params.missingProperty
      ? [params.missingProperty, 'This field is required.']
      : params.additionalProperty
        ? [params.additionalProperty, 'This field is not accepted by this model.']
        : [e.instancePath.replace(/^\//, '').replace(/\//g, '.') || 'non_field_errors', schemaMessage(e)];
    (out[key] ??= []).push(message);
  }
  return out;
}

function files(core: SandboxCore, job: Job, model: SandboxAssetModel, count: number): void {
  const extension = FILE_EXTENSION[model.media];
  for (let i = 1; i <= count; i += 1) {
    const name = `asset-${i}.${extension}`;
    putOutput(core, job, name, () => {
      if (model.media === 'image') return makePng(256, 256, ...coloursFor(`${job.id}:${i}`));
      if (model.media === 'text') return Buffer.from(`Sandbox text asset ${i}\n`);
      return SAMPLE_MP4;
    });
    if (model.media !== 'image') putOutput(core, job, `thumbnail-${i}.png`, () => makePng(64, 64, ...coloursFor(`${job.id}:t${i}`)));
  }
}

function assetView(core: SandboxCore, job: Job): Record<string, unknown> {
  const count = job.status === 'done' ? (job.fields.output_nums as number) : 0;
  const media = job.fields.media as string;
  const assets = Array.from({ length: count }, (_, k) => {
    const name = `asset-${k + 1}.${FILE_EXTENSION[media as keyof typeof FILE_EXTENSION]}`;
    const thumbnail = media === 'image' ? name : `thumbnail-${k + 1}.png`;
    const url = downloadUrl(core, job, name);
    return { id: `${job.id}-${k + 1}`, type: media, url, thumbnail_url: outputUrl(core, job, thumbnail), name };
  });
  const { media: _media, ...fields } = job.fields;
  const { progress: _progress, ...basics } = jobBasics(core, job);
  return { ...basics, ...fields, status: job.status, assets };
}

export const registerAssets: Registrar = (router, core) => {
  core.webhookPolicies.asset = subsetWebhook('assets', (job) => assetView(core, job));

  router.add('GET', '/api/asset_generator/schemas/', (ctx) => {
    const wanted = ctx.query.get('model_name')?.split(',').map((s) => s.trim()).filter(Boolean);
    const models = ASSET_MODELS.filter((m) => !wanted || wanted.includes(m.model_name));
    const entries = models.map(({ model_name, generation_type, input_params_schema }) =>
      ({ model_name, generation_type, input_params_schema }));
    return json(200, entries);
  });

  router.add('POST', '/api/asset_generator/', (ctx) => {
    const body = ctx.parse(AssetCreate);
    const model = ASSET_MODELS.find((m) => m.model_name === body.model_name);
    if (!model) throw nonFieldError('AI model not found');
    const validate = validatorOf(model);
    if (!validate(body.input_params)) throw fieldError({ input_params: inputErrors(validate.errors ?? []) });
    const count = body.output_nums ?? 1;
    const job = core.create({
      family: 'asset', kind: 'asset_generation', path: ctx.path, request: body,
      price: ASSET_CREDITS_PER_OUTPUT[model.media] * count, webhookUrl: body.webhook_url,
      fields: {
        model_name: model.model_name, gen_type: model.generation_type, input_params: body.input_params, output_nums: count,
        media: model.media,
        aspect_ratio: body.aspect_ratio ?? null, resolution: body.resolution ?? null, duration: null, webhook_url: body.webhook_url ?? null,
      },
      plan: () => workPlan(core, {
        initial: { status: 'initializing', seconds: INIT_SECONDS },
        work: [{ status: 'generating', seconds: model.secondsPerOutput * count }],
        done: 'done', onDone: (done) => files(core, done, model, count),
      }),
    });
    return json(201, assetView(core, job));
  }, { creates: true });

  router.add('GET', '/api/asset_generator/{id}/', (ctx) => json(200, assetView(core, findJob(core, 'asset', ctx, 'AssetGenerator'))));
};
