import { z } from 'zod';
import { describe, expect, test } from 'vitest';
import { drfErrors } from '../../../src/sandbox/http/drf-errors.js';

/** zod issues become DRF bodies: per-field message lists, nested where the input nests. */
const Schema = z.strictObject({
  name: z.string().max(3),
  size: z.int().min(5).max(15),
  style: z.enum(['a', 'b']),
  tags: z.array(z.string().min(1)).min(1).max(2),
  link: z.url(),
  id: z.guid().optional(),
  caption: z.strictObject({ font: z.enum(['x']).optional(), size: z.int().optional() }).optional(),
  volume: z.number().optional(),
});
const errorsOf = (input: unknown) => drfErrors(Schema.safeParse(input, { reportInput: true }).error!.issues, Schema);
const valid = { name: 'abc', size: 5, style: 'a', tags: ['t'], link: 'https://x.example.com' };

describe('DRF error bodies', () => {
  test.each([
    ['a missing field', { ...valid, name: undefined }, { name: ['This field is required.'] }],
    ['null', { ...valid, name: null }, { name: ['This field may not be null.'] }],
    ['a long string', { ...valid, name: 'abcd' }, { name: ['Ensure this field has no more than 3 characters.'] }],
    ['a number above the range', { ...valid, size: 16 }, { size: ['Ensure this value is less than or equal to 15.'] }],
    ['a number below the range', { ...valid, size: 4 }, { size: ['Ensure this value is greater than or equal to 5.'] }],
    ['a choice not offered', { ...valid, style: 'c' }, { style: ['"c" is not a valid choice. Accepted: a, b.'] }],
    ['a choice left out', { ...valid, style: undefined }, { style: ['This field is required.'] }],
    ['text for an integer', { ...valid, size: 'five' }, { size: ['A valid integer is required.'] }],
    ['a fraction for an integer', { ...valid, size: 5.5 }, { size: ['A valid integer is required.'] }],
    ['text for a number', { ...valid, volume: 'loud' }, { volume: ['A valid number is required.'] }],
    ['an empty list', { ...valid, tags: [] }, { tags: ['This list may not be empty.'] }],
    ['a long list', { ...valid, tags: ['a', 'b', 'c'] }, { tags: ['Ensure this field has no more than 2 elements.'] }],
    ['a blank list item, keyed by index', { ...valid, tags: ['a', ''] }, { tags: { 1: ['This field may not be blank.'] } }],
    ['a bad URL', { ...valid, link: 'nope' }, { link: ['Enter a valid URL.'] }],
    ['a bad UUID', { ...valid, id: 'nope' }, { id: ['Must be a valid UUID.'] }],
    ['a nested integer field', { ...valid, caption: { size: 'big' } }, { caption: { size: ['A valid integer is required.'] } }],
    ['an unknown field', { ...valid, colour: 1 }, { colour: ['This field is not accepted by this operation.'] }],
    ['an unknown nested field', { ...valid, caption: { weight: 1 } }, { caption: { weight: ['This field is not accepted by this operation.'] } }],
  ])('%s', (_name, input, expected) => {
    expect(errorsOf(input)).toEqual(expected);
  });

  test('every broken field is reported at once', () => {
    expect(Object.keys(errorsOf({ name: 'abcd', size: 0 })).sort()).toEqual(['link', 'name', 'size', 'style', 'tags']);
  });
});
