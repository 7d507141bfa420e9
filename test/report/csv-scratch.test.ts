import { describe, expect, test } from 'vitest';
import { ChunkWriter } from '../../src/report/chunk-writer.js';
import { CsvScratch } from '../../src/report/csv-scratch.js';
import { resultsCsv } from '../../src/report/results-files.js';
import { reportJob } from './fixtures/report-data.js';

/** results.csv's lines written as the jobs come, before every column is known, then put together. */
const jobs = [
  reportJob({ key: 'shorts:1', row: { sku: 'A' } }),
  reportJob({ key: 'shorts:2', row: { sku: 'B', script: 'Crêpes, "at dawn"' } }),
  reportJob({ key: 'clones:1', step: 'clones', label: 'clone-de', origin: null, row: null, matrix: { language: 'de' } }),
  reportJob({ key: 'extras:1', step: 'extras', row: { id: 'X', note: ' lead' }, matrix: { language: 'fr', ratio: '9x16' } }),
];

/** Everything `fill` writes through a ChunkWriter, as bytes (copied: the writer's batch is reused). */
function bytesOf(fill: (writer: ChunkWriter) => void): Buffer {
  const parts: Buffer[] = [];
  const writer = new ChunkWriter((data) => parts.push(Buffer.from(data)));
  fill(writer);
  writer.flush();
  return Buffer.concat(parts);
}

describe('results.csv made as the jobs come', () => {
  test.each([1, 2, 7, 4096])('is the file made with every column known first, read back in blocks of %i bytes', (size) => {
    let scratch: CsvScratch | undefined;
    const written = bytesOf((writer) => {
      scratch = new CsvScratch(writer);
      for (const job of jobs) scratch.add(job);
    });
    function* blocks() {
      for (let at = 0; at < written.length; at += size) yield written.subarray(at, at + size);
    }
    expect(bytesOf((writer) => scratch?.assemble(blocks(), writer)).toString('utf8')).toBe(resultsCsv({ jobs }));
  });
});
