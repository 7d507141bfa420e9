import type { Dispatcher, Pool } from 'undici';
import { undici } from '../util/lazy-undici.js';

/** Socket-level limits of the client, and the overall deadline of one attempt. */
export interface Timeouts {
  /**
   * Establishing a connection (TCP and TLS).
   * @default 10000
   */
  connectMs?: number;
  /**
   * From sending the request to receiving the response headers.
   * @default 30000
   */
  headersMs?: number;
  /**
   * Longest silence while reading a response body.
   * @default 30000
   */
  bodyMs?: number;
  /**
   * Overall deadline of one attempt, from handing the request to the pool to the last byte of the
   * answer, headers and body together. Why besides the others: they bound silences, and a service
   * that trickles one byte every 20 s never falls silent for 30 s; this bounds the whole.
   * @default 60000
   */
  attemptMs?: number;
}

export const TIMEOUT_DEFAULTS: Required<Timeouts> = { connectMs: 10_000, headersMs: 30_000, bodyMs: 30_000, attemptMs: 60_000 };

/** The pool to the service, and the dispatcher requests go through (it reports when one starts). */
export interface ServicePool {
  dispatcher: Dispatcher;
  close(): Promise<void>;
}

/**
 * Called when a request is about to be written to a socket: the last moment at which it has
 * provably not been sent. Keyed by the options object handed to `request`.
 */
const onStart = new WeakMap<object, () => void>();

/** Calls `started` when `options` (as passed to the dispatcher's `request`) begins to be written. */
export function whenStarted(options: object, started: () => void): void {
  onStart.set(options, started);
}

/**
 * A keep-alive pool to the service's one origin. Idle sockets are kept a little while so a poll
 * loop reuses them; undici shortens this to the server's own Keep-Alive hint, which avoids reusing
 * a socket the server is about to close (a POST on such a socket would come back in doubt).
 */
export function createPool(origin: string, timeouts: Required<Timeouts>, connections: number): ServicePool {
  // Made at the first request: a run that sends nothing never loads undici (util/lazy-undici.ts).
  let pool: Pool | undefined;
  let dispatcher: Dispatcher | undefined;
  const observe: Dispatcher.DispatcherComposeInterceptor = (dispatch) => (options, handler) =>
    dispatch(options, new StartObserver(handler, () => onStart.get(options)?.()));
  return {
    get dispatcher() {
      pool ??= new (undici().Pool)(origin, {
        connections,
        keepAliveTimeout: 4_000,
        connect: { timeout: timeouts.connectMs },
        headersTimeout: timeouts.headersMs,
        bodyTimeout: timeouts.bodyMs,
      });
      return (dispatcher ??= pool.compose(observe));
    },
    close: async () => pool?.close(),
  };
}

/**
 * Passes every callback on unchanged, and reports `onRequestStart`: undici calls it on the socket
 * right before it writes the request (and aborts there, unwritten, if the signal already fired).
 * Until then nothing of the request has left the process, whatever went wrong (refused, queued
 * behind busy sockets, aborted while connecting).
 */
class StartObserver implements Dispatcher.DispatchHandler {
  constructor(
    private readonly inner: Dispatcher.DispatchHandler,
    private readonly started: () => void,
  ) {}

  onRequestStart(controller: Dispatcher.DispatchController, context: unknown): void {
    this.started();
    this.inner.onRequestStart?.(controller, context);
  }

  onRequestUpgrade(...args: Parameters<NonNullable<Dispatcher.DispatchHandler['onRequestUpgrade']>>): void {
    this.inner.onRequestUpgrade?.(...args);
  }

  onResponseStart(...args: Parameters<NonNullable<Dispatcher.DispatchHandler['onResponseStart']>>): void {
    this.inner.onResponseStart?.(...args);
  }

  onResponseData(...args: Parameters<NonNullable<Dispatcher.DispatchHandler['onResponseData']>>): void {
    this.inner.onResponseData?.(...args);
  }

  onResponseEnd(...args: Parameters<NonNullable<Dispatcher.DispatchHandler['onResponseEnd']>>): void {
    this.inner.onResponseEnd?.(...args);
  }

  onResponseError(...args: Parameters<NonNullable<Dispatcher.DispatchHandler['onResponseError']>>): void {
    this.inner.onResponseError?.(...args);
  }
}
