import { UsageError } from '../../errors.js';
import { invokedAs } from '../invoked-as.js';
import type { RegisterCommand } from './index.js';

/**
 * `reelpipe init`: writes a starter manifest and CSV (src/init/starter-files.ts) into
 * `pipelines/` of the current folder. Policy: never overwrites — if any of the files exists,
 * nothing is written (exit 2), so running it twice cannot clobber a pipeline being edited.
 */
export const registerInit: RegisterCommand = (program, io) => {
  program
    .command('init')
    .description('write a starter pipeline (pipelines/starter.yaml and its CSV) into the current folder')
    .action(async () => {
      const [{ existsSync, mkdirSync, writeFileSync }, { dirname, join }, { STARTER_FILES }] = await Promise.all([
        import('node:fs'), import('node:path'), import('../../init/starter-files.js'),
      ]);
      const taken = STARTER_FILES.filter((file) => existsSync(join(io.cwd, file.path))).map((file) => file.path);
      if (taken.length > 0) throw new UsageError(`${taken.join(' and ')} already exist${taken.length === 1 ? 's' : ''} in ${io.cwd}: nothing was written (move ${taken.length === 1 ? 'it' : 'them'} away to start again)`);
      for (const file of STARTER_FILES) {
        const path = join(io.cwd, file.path);
        mkdirSync(dirname(path), { recursive: true });
        // 'wx': fails rather than overwrite, should the file appear between the check and the write.
        writeFileSync(path, file.text, { flag: 'wx' });
        io.stdout(`wrote ${file.path}\n`);
      }
      // The form the user just ran (node bin/reelpipe.js in a clone, reelpipe on the PATH, npx reelpipe in a project that depends on it).
      const cli = invokedAs(process.argv[1], io.cwd, io.env.PATH);
      io.stdout(
        `next: ${cli} validate pipelines/starter.yaml\n` +
          `      ${cli} run pipelines/starter.yaml --sandbox   (a free trial on the built-in sandbox)\n`,
      );
    });
};
