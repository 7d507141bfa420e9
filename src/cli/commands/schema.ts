import type { RegisterCommand } from './index.js';

/** `reelpipe schema`: the manifest's JSON Schema, for editors. Its modules load on use. */
export const registerSchema: RegisterCommand = (program, io) => {
  program
    .command('schema')
    .description("print the manifest's JSON Schema (for editor completion and checking)")
    .action(async () => {
      const { manifestJsonSchema } = await import('../../manifest/index.js');
      io.stdout(`${JSON.stringify(manifestJsonSchema(), null, 2)}\n`);
    });
};
