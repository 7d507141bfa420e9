import { describe, expect, test } from 'vitest';
import { invokedAs } from '../../src/cli/invoked-as.js';

describe('invokedAs: the CLI named as the user called it, for next-step hints', () => {
  test.each([
    ['in a clone, from its root', '/home/ann/reelpipe/bin/reelpipe.js', '/home/ann/reelpipe', '/usr/bin', 'node bin/reelpipe.js'],
    ['in a clone, from a folder in it', '/home/ann/reelpipe/bin/reelpipe.js', '/home/ann/reelpipe/pipelines', '/usr/bin', 'node /home/ann/reelpipe/bin/reelpipe.js'],
    ['a clone, from elsewhere', '/home/ann/reelpipe/bin/reelpipe.js', '/srv/ads', '/usr/bin', 'node /home/ann/reelpipe/bin/reelpipe.js'],
    ['a relative launcher path', 'bin/reelpipe.js', '/home/ann/reelpipe', '/usr/bin', 'node bin/reelpipe.js'],
    ['a clone whose path needs quoting', "/home/ann/my tools/ann's/bin/reelpipe.js", '/srv/ads', '/usr/bin', `node '/home/ann/my tools/ann'\\''s/bin/reelpipe.js'`],
    ['on the PATH', '/usr/local/bin/reelpipe', '/srv/ads', '/usr/bin:/usr/local/bin', 'reelpipe'],
    ['in a folder not on the PATH', '/opt/reelpipe/reelpipe', '/srv/ads', '/usr/bin:/usr/local/bin', 'node /opt/reelpipe/reelpipe'],
    ['a project depending on it, from inside it', '/srv/ads/node_modules/.bin/reelpipe', '/srv/ads/pipelines', '/srv/ads/node_modules/.bin:/usr/bin', 'npx reelpipe'],
    ['another project’s copy, from outside it (npx would fetch from the registry)', '/srv/ads/node_modules/reelpipe/bin/reelpipe.js', '/srv/video', '/usr/bin', 'node /srv/ads/node_modules/reelpipe/bin/reelpipe.js'],
    ['no launcher path (embedded)', undefined, '/srv/ads', '/usr/bin', 'reelpipe'],
  ])('%s', (_how, script, cwd, path, expected) => {
    expect(invokedAs(script, cwd, path)).toBe(expected);
  });
});
