import { describe, expect, it } from 'vitest';
import { formatCount, formatCredits, plural } from '../../src/util/format.js';

// The formatters promise toLocaleString('en-US')'s text without loading ICU: compared here.
const credits = (n: number) => n.toLocaleString('en-US', { maximumFractionDigits: 1 });

describe('formatCredits', () => {
  it('groups thousands and keeps a tenth at most, as toLocaleString does', () => {
    expect(formatCredits(1234.5)).toBe('1,234.5');
    expect(formatCredits(50_000)).toBe('50,000');
    expect(formatCredits(999.96)).toBe('1,000');
    expect(formatCredits(0.04)).toBe('0');
    expect(formatCredits(-1234567.25)).toBe('-1,234,567.3');
  });

  it('rounds the number as written (0.15, not the double 0.1499…), halves away from zero, as Intl does', () => {
    for (const n of [0.05, 0.15, 0.25, 1.25, 2.675, 1.45, -1.45, -0.04, -0.05, 1e14 + 0.25, 0.95, 9.95, 99.95]) expect(formatCredits(n), String(n)).toBe(credits(n));
  });

  it('agrees with toLocaleString over many values, edges handed over to it', () => {
    let seed = 7;
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    for (let i = 0; i < 20_000; i++) {
      const scale = 10 ** Math.floor(random() * 16);
      const n = (random() - 0.3) * scale;
      const rounded = [n, Math.round(n * 100) / 100, Math.round(n * 20) / 20, Math.round(n)][i % 4] as number;
      expect(formatCredits(rounded), String(rounded)).toBe(credits(rounded));
    }
    for (const n of [0, -0, NaN, Infinity, -Infinity, 1e15, 1e21, 123456789012345.6, Number.MAX_VALUE, Number.MIN_VALUE]) expect(formatCredits(n), String(n)).toBe(credits(n));
  });
});

describe('formatCount and plural', () => {
  it('print counts as toLocaleString does', () => {
    for (const n of [0, -0, 1, 12, 123, 1234, 12_345, 1_234_567, -9876, Number.MAX_SAFE_INTEGER, 1.5, 1234.5678, NaN, Infinity]) {
      expect(formatCount(n), String(n)).toBe(n.toLocaleString('en-US'));
    }
  });

  it('agrees the noun with the count', () => {
    expect(plural(1, 'job')).toBe('1 job');
    expect(plural(10_000, 'job')).toBe('10,000 jobs');
    expect(plural(0, 'step')).toBe('0 steps');
  });
});
