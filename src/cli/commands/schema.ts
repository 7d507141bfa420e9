import { manifestJsonSchema } from '../../manifest/index.js';
import type { RegisterCommand } from './index.js';

/** `reelpipe schema`: the manifest's JSON Schema, for editors. */
export const registerSchema: RegisterCommand = (program, io) => {
  program
    .command('schema')
    .description("print the manifest's JSON Schema (for editor completion and checking)")
    .action(() => {
      io.stdout(`${JSON.stringify(manifestJsonSchema(), null, 2)}\n`);
    });
};
