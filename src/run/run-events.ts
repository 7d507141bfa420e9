import { EventEmitter } from 'node:events';
import type { JobStatus } from '../state/index.js';

/**
 * What a run announces while it works, `subject:verb` like the state log. The progress printer
 * listens to these, and tests await them instead of sleeping.
 */
export interface RunEventMap {
  'job:status': { key: string; step: string; kind: string; status: JobStatus; remoteId?: string | null; detail?: string };
  'job:download-failed': { key: string; step: string; message: string };
  'run:stopping': { reason: StopReason; message: string };
  'run:note': { message: string };
}

/** Why submitting stopped before every job was submitted. */
export type StopReason = 'interrupted' | 'deadline' | 'budget' | 'credits' | 'auth' | 'lock-lost';

export class RunEvents {
  private readonly emitter = new EventEmitter();

  on<E extends keyof RunEventMap>(event: E, listener: (payload: RunEventMap[E]) => void): this {
    this.emitter.on(event, listener);
    return this;
  }

  off<E extends keyof RunEventMap>(event: E, listener: (payload: RunEventMap[E]) => void): this {
    this.emitter.off(event, listener);
    return this;
  }

  emit<E extends keyof RunEventMap>(event: E, payload: RunEventMap[E]): void {
    this.emitter.emit(event, payload);
  }

  /** Resolves with the first payload of `event` that satisfies `test`. */
  once<E extends keyof RunEventMap>(event: E, test: (payload: RunEventMap[E]) => boolean = () => true): Promise<RunEventMap[E]> {
    return new Promise((resolve) => {
      const listener = (payload: RunEventMap[E]) => {
        if (!test(payload)) return;
        this.off(event, listener);
        resolve(payload);
      };
      this.on(event, listener);
    });
  }
}
