import { describe, expect, test } from 'vitest';
import { JobStore, type Family, type Job } from '../../src/sandbox/store.js';

let made = 0;
function job(family: Family, createdAt: number, extra: Partial<Job> = {}): Job {
  const id = `00000000-0000-4000-8000-${String(++made).padStart(12, '0')}`;
  return { id, family, kind: family, createdAt, updatedAt: createdAt, status: 'pending', request: {}, fields: {}, price: 0, charged: 0, creditsUsed: 0, files: {}, history: [], ...extra };
}

function storeOf(jobs: Job[]): JobStore {
  const store = new JobStore();
  for (const j of jobs) store.add(j);
  return store;
}

const ids = (jobs: Job[]) => jobs.map((j) => j.id);

describe("the sandbox's lists answer from their ids or their window", () => {
  const [a, b, c, d] = [job('ai_short', 100), job('lipsync', 150), job('ai_short', 200), job('ai_short', 300)];
  const store = storeOf([a!, b!, c!, d!]);

  test('a list without a window is every live job of the family, newest first', () => {
    expect(ids(store.list('ai_short'))).toEqual(ids([d!, c!, a!]));
  });

  test('a list by ids is those of the family among them, newest first, whatever the order asked', () => {
    expect(ids(store.list('ai_short', { ids: new Set([a!.id, d!.id, b!.id, 'ffffffff-0000-4000-8000-000000000000']), after: -Infinity, before: Infinity }))).toEqual(ids([d!, a!]));
  });

  test('ids and a window together: both must hold', () => {
    expect(ids(store.list('ai_short', { ids: new Set([a!.id, c!.id, d!.id]), after: 150, before: 300 }))).toEqual(ids([c!]));
  });

  test('a window is created at or after its start and before its end', () => {
    expect(ids(store.list('ai_short', { after: 100, before: 300 }))).toEqual(ids([c!, a!]));
    expect(ids(store.list('ai_short', { after: 101, before: 301 }))).toEqual(ids([d!, c!]));
    expect(store.list('ai_short', { after: 400, before: Infinity })).toEqual([]);
  });

  test('a deleted job is in no list', () => {
    const gone = job('ai_short', 250, { deleted: true });
    const withGone = storeOf([a!, gone, d!]);
    expect(ids(withGone.list('ai_short', { after: 0, before: Infinity }))).toEqual(ids([d!, a!]));
    expect(withGone.list('ai_short', { ids: new Set([gone.id]), after: -Infinity, before: Infinity })).toEqual([]);
  });

  test('jobs made at the same instant keep the order they were made in', () => {
    const [x, y, z] = [job('html_ads', 500), job('html_ads', 500), job('html_ads', 500)];
    expect(ids(storeOf([x!, y!, z!]).list('html_ads', { after: 500, before: 501 }))).toEqual(ids([x!, y!, z!]));
  });

  test('a job added with an earlier time than the last (a clock set back) is still found in its window', () => {
    const [late, early] = [job('boreal', 1_000), job('boreal', 10)];
    const back = storeOf([late!, early!]);
    expect(ids(back.list('boreal', { after: 0, before: 100 }))).toEqual(ids([early!]));
    expect(ids(back.list('boreal', { after: 0, before: Infinity }))).toEqual(ids([late!, early!]));
  });
});
