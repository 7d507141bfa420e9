import { FIXTURES, type SandboxFixture } from './catalogues/fixtures.js';
import type { SandboxCore } from './core.js';
import { coloursFor, makePng, SAMPLE_MP4 } from './outputs/media.js';
import { putOutput } from './resources/common.js';
import type { Job } from './store.js';

/**
 * Puts every fixture (catalogues/fixtures.ts) in the store, finished, with its outputs. Runs at every
 * start, before a journal is replayed, so journalled operations on fixtures (a regen, a deletion)
 * find them and replay as they happened: a fixture deleted once stays deleted.
 */
export function seedFixtures(core: SandboxCore): void {
  for (const fixture of FIXTURES) {
    const job = fixtureJob(fixture);
    core.store.add(job);
    core.reserveId(job.id);
    for (const [name, media] of Object.entries(fixture.files)) {
      putOutput(core, job, name, media === 'png' ? () => makePng(160, 160, ...coloursFor(`${job.id}:${name}`)) : () => SAMPLE_MP4);
    }
  }
}

function fixtureJob(fixture: SandboxFixture): Job {
  const started = Date.parse(fixture.started);
  const history = fixture.walk.map(([status, seconds]) => ({ status, at: started + seconds * 1000 }));
  const last = history[history.length - 1]!;
  return {
    id: fixture.id, family: fixture.family, kind: fixture.kind, createdAt: started, updatedAt: last.at, status: last.status,
    request: {}, fields: structuredClone(fixture.fields), price: fixture.creditsUsed, charged: 0, creditsUsed: fixture.creditsUsed,
    files: {}, webhookUrl: null, history, fixture: true,
  };
}
