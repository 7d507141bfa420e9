import { phaseOf, type StatusMap } from './status-maps.js';
import type { OutputSpec, RemoteView, Resource } from './types.js';

export const text = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);
const credits = (value: unknown): number | null => (typeof value === 'number' && Number.isFinite(value) ? value : null);

/**
 * Reads status, credits, failure reason and outputs the same way for every kind. Why a finished
 * job without its output is still `pending`: the spec says done means the URL is populated, so
 * a done without one is a read that raced the service's write; the next poll will have it.
 */
export function viewOf(
  resource: Resource,
  map: StatusMap,
  outputs: OutputSpec[],
  { statusField = 'status', needsOutput = true } = {},
): RemoteView {
  const remoteStatus = String(resource[statusField] ?? 'unknown');
  let phase = phaseOf(map, resource[statusField]);
  if (phase === 'done' && needsOutput && outputs.length === 0) phase = 'pending';
  return {
    phase,
    remoteStatus,
    creditsUsed: credits(resource.credits_used),
    failedReason: phase === 'failed' || phase === 'rejected' ? (text(resource.failed_reason) ?? `ended ${remoteStatus} without a reason`) : null,
    outputs,
  };
}

/** A single-URL output, or none while the field is empty. */
export function urlOutput(resource: Resource, field: string, media: OutputSpec['media']): OutputSpec[] {
  const url = text(resource[field]);
  return url ? [{ media, url }] : [];
}

/** A finished-at-creation resource: done with no files. */
export function instantView(resource: Resource): RemoteView {
  return { phase: 'done', remoteStatus: 'created', creditsUsed: credits(resource.credits_used), failedReason: null, outputs: [] };
}
