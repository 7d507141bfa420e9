import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { manifestId, manifestKeyOf, readManifestId } from '../../src/manifest/index.js';
import { load, manifestWith, problems, tempTree } from './helpers/temp-tree.js';

const SHORT = { id: 'shorts', kind: 'ai_short', with: { script: 'Hello there', aspect_ratio: '9x16', style: 'Cinematic' } };

describe("a manifest's identity", () => {
  test('is its name alone without a project, project/name with one', () => {
    expect(manifestId('nightly')).toBe('nightly');
    expect(manifestId('nightly', 'shop')).toBe('shop/nightly');
    expect(manifestId('nightly', '')).toBe('nightly');
  });

  test('is what a loaded manifest carries, whatever its file is called', async () => {
    expect((await load({ 'manifest.yaml': manifestWith([SHORT]) })).identity).toBe('test');
    expect((await load({ 'manifest.yaml': manifestWith([SHORT], { project: 'shop.eu' }) })).identity).toBe('shop.eu/test');
  });

  test('is read from name: and project: alone, the rest of the manifest valid or not', async () => {
    const { file } = tempTree({
      'broken.yaml': 'version: 7\nproject: shop\nname: nightly\nsteps: nope\n',
      'no-project.yaml': 'name: nightly\n',
      'bad-project.yaml': 'name: nightly\nproject: a/b\n',
      'no-name.yaml': 'project: shop\n',
      'not-yaml.yaml': 'name: [unclosed\n',
      'a-list.yaml': '- name: nightly\n',
    });
    expect(await readManifestId(file('broken.yaml'))).toBe('shop/nightly');
    expect(await readManifestId(file('no-project.yaml'))).toBe('nightly');
    for (const name of ['bad-project.yaml', 'no-name.yaml', 'not-yaml.yaml', 'a-list.yaml', 'gone.yaml']) expect(await readManifestId(file(name))).toBeUndefined();
  });

  test("without a readable identity, a manifest is keyed by its file's real path (as an older reelpipe keyed it)", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'reelpipe-identity-'));
    try {
      writeFileSync(path.join(dir, 'm.yaml'), 'name: nightly\n');
      symlinkSync(path.join(dir, 'm.yaml'), path.join(dir, 'link.yaml'));
      const real = path.join(await import('node:fs/promises').then((fs) => fs.realpath(dir)), 'm.yaml');
      expect(await manifestKeyOf('link.yaml', dir)).toEqual({ id: 'nightly', path: real });
      expect(await manifestKeyOf('gone.yaml', dir)).toEqual({ id: path.join(dir, 'gone.yaml'), path: path.join(dir, 'gone.yaml') });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('project:', () => {
  const rule = 'must be letters, digits, ., _ or -, starting with a letter or digit';
  test.each([
    ['a space', '"my shop"', `manifest.yaml:3:10  project: ${rule}, got "my shop"`],
    ['a slash', 'shop/eu', `manifest.yaml:3:10  project: ${rule}, got "shop/eu"`],
    ['a leading dot', '.shop', `manifest.yaml:3:10  project: ${rule}, got ".shop"`],
    ['a number', '42', 'manifest.yaml:3:10  project: expected a string, got 42'],
  ])('with %s is refused, located, with what is accepted', async (_, value, line) => {
    const yaml = `version: 1\nname: test\nproject: ${value}\nsteps:\n  - id: shorts\n    kind: ai_short\n    with: { script: Hello, aspect_ratio: 9x16, style: Cinematic }\n`;
    expect(await problems({ 'manifest.yaml': yaml })).toEqual([line]);
  });

  test('longer than 100 characters is refused', async () => {
    const [line] = await problems({ 'manifest.yaml': manifestWith([SHORT], { project: 'p'.repeat(101) }) });
    expect(line).toMatch(/^manifest\.yaml:\d+:\d+ {2}project: .*100/);
  });
});
