import { describe, expect, test } from 'vitest';
import { PackedStrings } from '../../src/util/packed-strings.js';

describe('a packed set of strings', () => {
  test('gives each distinct string the next id, and the same id again for the same text', () => {
    const set = new PackedStrings();
    expect([set.add('a'), set.add('bb'), set.add('a'), set.add(''), set.add('bb')]).toEqual([0, 1, 0, 2, 1]);
    expect(set.size).toBe(3);
    expect([set.get(0), set.get(1), set.get(2)]).toEqual(['a', 'bb', '']);
  });

  test('finds a string by its text, and says -1 for one never added', () => {
    const set = new PackedStrings();
    set.add('shorts:3f9a1c2b7d4e');
    expect(set.find('shorts:3f9a1c2b7d4e')).toBe(0);
    expect(set.find('shorts:3f9a1c2b7d4f')).toBe(-1);
    expect(set.find('shorts:3f9a1c2b7d4')).toBe(-1);
  });

  test('keeps text that is not ASCII as it was, and tells apart strings of equal byte length', () => {
    const set = new PackedStrings();
    const words = ['Café crème', 'Cafe creme', 'CafX crème', '日本語', '😀', 'e\u0301'];
    const ids = words.map((w) => set.add(w));
    expect(new Set(ids).size).toBe(words.length);
    expect(words.map((w) => set.find(w))).toEqual(ids);
    expect(ids.map((id) => set.get(id))).toEqual(words);
  });

  test('holds 100,000 keys through its growth, each found at its id', () => {
    const set = new PackedStrings();
    const keys = Array.from({ length: 100_000 }, (_, i) => `jobs:${i.toString(16).padStart(12, '0')}`);
    keys.forEach((key, i) => expect(set.add(key)).toBe(i));
    expect(keys.every((key, i) => set.find(key) === i && set.get(i) === key)).toBe(true);
    expect(set.byteSize / keys.length).toBeLessThan(40);
  });
});
