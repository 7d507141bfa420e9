import { describe, expect, test } from 'vitest';
import { ReadMemo, WriteCount } from '../../src/state/read-memo.js';
import type { MoneySums } from '../../src/state/money-sums.js';

const JOBS = [{ key: 'a' }];

/** A reader that counts how often it is asked, answering new sums each time. */
function counted() {
  const reader = { reads: 0, read: async (): Promise<MoneySums> => { reader.reads++; return { byJob: new Map(), runs: new Map() } as unknown as MoneySums; } };
  return reader;
}

describe("what the store keeps of a manifest's money", () => {
  test('answered again from memory while the version holds, read afresh once it moves', async () => {
    let version = '1';
    const memo = new ReadMemo(() => version);
    const reader = counted();
    const first = await memo.moneyOf(JOBS, reader.read);
    expect(await memo.moneyOf(JOBS, reader.read)).toBe(first);
    expect(reader.reads).toBe(1);
    version = '2';
    await memo.moneyOf(JOBS, reader.read);
    expect(reader.reads).toBe(2);
    // Another plan's jobs (another array) are read afresh.
    await memo.moneyOf([{ key: 'a' }], reader.read);
    expect(reader.reads).toBe(3);
  });

  test('after a write, what is kept goes once the version moved on, and stays while it did not', async () => {
    let version = '1';
    const memo = new ReadMemo(() => version);
    const reader = counted();
    const first = await memo.moneyOf(JOBS, reader.read);
    memo.dropStale();
    expect(await memo.moneyOf(JOBS, reader.read)).toBe(first);
    version = '2';
    memo.dropStale();
    // Gone, not merely outdated: back at the first version (which a real store never goes back to), it is read again.
    version = '1';
    expect(await memo.moneyOf(JOBS, reader.read)).not.toBe(first);
    expect(reader.reads).toBe(2);
  });

  test('the write count tells each move (a write that failed too), not a write that changed nothing', async () => {
    let told = 0;
    const writes = new WriteCount(() => told++);
    await writes.counted(async () => 'wrote');
    await expect(writes.counted(async () => { throw new Error('refused'); })).rejects.toThrow('refused');
    await writes.counted(async () => 'nothing', () => false);
    expect({ count: writes.count, told }).toEqual({ count: 2, told: 2 });
  });
});
