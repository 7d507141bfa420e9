import type { IncomingMessage, ServerResponse } from 'node:http';
import { checkCredentials } from './auth.js';
import type { SandboxCore } from './core.js';
import { decodeBody, readBody } from './http/body.js';
import { HttpError, noRoute, sendReply, sseError, type Reply } from './http/reply.js';
import { requestContext, type Route, type Router } from './http/router.js';
import { runOperation } from './journal/operation.js';

const SERVER_ERROR_PAGE = '<!doctype html>\n<html lang="en"><head><title>Server Error (500)</title></head><body><h1>Server Error (500)</h1><p></p></body></html>\n';

/**
 * The request pipeline, in the order a real deployment meets a request:
 * life cycles brought up to now → CDN and library media → route → gateway 503 → credentials →
 * throttling 429 → slow answer → body → handler (a state-changing one journalled) → faults after a
 * creation (500, reset) → answer.
 */
export function createRequestHandler(core: SandboxCore, router: Router) {
  return (req: IncomingMessage, res: ServerResponse): void => {
    handle(core, router, req, res).catch((error: unknown) => {
      core.options.logger.error({ err: error }, 'sandbox handler crashed');
      if (!res.headersSent) sendReply(res, { status: 500, raw: SERVER_ERROR_PAGE, contentType: 'text/html; charset=utf-8' });
      else res.destroy();
    });
  };
}

async function handle(core: SandboxCore, router: Router, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://sandbox');
  const method = req.method ?? 'GET';
  core.engine.advance();
  if (url.pathname.startsWith('/cdn/') && (method === 'GET' || method === 'HEAD')) {
    core.stats.request('GET /cdn/{path}');
    await slowAnswer(core, 'slowDownload');
    return core.cdn.serveOutput(req, res, url.pathname.slice('/cdn/'.length), url.searchParams);
  }
  if (url.pathname.startsWith('/media/') && (method === 'GET' || method === 'HEAD')) {
    core.stats.request('GET /media/{name}');
    return core.cdn.serveMedia(req, res, url.pathname.slice('/media/'.length));
  }
  const match = router.match(method, url.pathname);
  if (!match) {
    core.stats.request(`${method} (no route)`);
    return sendReply(res, noRoute(url.pathname));
  }
  if ('allowed' in match) {
    core.stats.request(`${method} (no route)`);
    // DRF authenticates before it dispatches on the method: a wrong method without credentials is 401.
    const failure = match.auth ? checkCredentials(req.headers, core.options.credentials) : undefined;
    const reply: Reply = failure
      ? { status: failure.status, body: { detail: failure.detail } }
      : { status: 405, body: { detail: `Method "${method}" not allowed.` }, headers: { allow: match.allowed.join(', ') } };
    return sendReply(res, match.sse ? sseError(reply) : reply);
  }
  const { route, params } = match;
  core.stats.request(route.key);
  const early = await beforeHandler(core, route, req);
  if (early) return sendReply(res, asSse(route, early));
  const reply = asSse(route, await runHandler(core, route, req, url, params));
  if (route.creates && reply.status < 300) {
    // The job exists and is charged: these faults only lose the answer, as a real outage would.
    if (core.faults.draw('errorAfterCreate')) {
      return sendReply(res, { status: 500, raw: SERVER_ERROR_PAGE, contentType: 'text/html; charset=utf-8' });
    }
    if (core.faults.draw('resetAfterCreate')) return void req.socket.resetAndDestroy();
  }
  sendReply(res, reply);
}

/** Gateway, credentials, throttling and slowness: what may answer before the handler runs. */
async function beforeHandler(core: SandboxCore, route: Route, req: IncomingMessage): Promise<Reply | undefined> {
  const retryAfter = { 'retry-after': String(core.faults.retryAfterSeconds) };
  if (route.faultable && core.faults.draw('unavailable')) {
    return { status: 503, body: { detail: 'Service temporarily unavailable, try again later.' }, headers: retryAfter };
  }
  if (route.auth) {
    const failure = checkCredentials(req.headers, core.options.credentials);
    if (failure) return { status: failure.status, body: { detail: failure.detail } };
  }
  if (route.faultable && core.faults.draw('rateLimit')) {
    const detail = `Request was throttled. Expected available in ${core.faults.retryAfterSeconds} seconds.`;
    return { status: 429, body: { detail }, headers: retryAfter };
  }
  if (route.faultable) await slowAnswer(core, 'slow');
  return undefined;
}

/** When `fault` is drawn, waits `slowMs` ÷ speed on the sandbox's clock before the answer goes on. */
async function slowAnswer(core: SandboxCore, fault: 'slow' | 'slowDownload'): Promise<void> {
  if (core.faults.draw(fault)) await core.options.clock.sleep(core.faults.slowMs / core.options.speed);
}

async function runHandler(core: SandboxCore, route: Route, req: IncomingMessage, url: URL, params: Record<string, string>): Promise<Reply> {
  try {
    const body = await decodeBody(await readBody(req), req.headers['content-type']);
    const ctx = requestContext(route, url.pathname, params, url.searchParams, req.headers, body);
    if (route.method === 'GET') return core.cdn.asRead(() => route.handler(ctx));
    return runOperation(core, { method: route.method, path: url.pathname, body }, () => route.handler(ctx));
  } catch (error) {
    if (error instanceof HttpError) return error.toReply();
    throw error;
  }
}

/** Under /sse/ errors read `{"error": "..."}` instead of DRF's `{"detail": "..."}`. */
function asSse(route: Route, reply: Reply): Reply {
  return route.sse ? sseError(reply) : reply;
}

