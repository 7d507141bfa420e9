import { spawn } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, join, resolve } from 'node:path';
import { fileFault } from '../file-fault.js';
import type { CliIo } from '../io.js';
import { addStateFlags, type StateFlags } from '../state-flags.js';
import { manifestTarget } from './target.js';
import type { RegisterCommand } from './index.js';
import { wholePositive } from './run-flags.js';

interface ReportFlags extends StateFlags {
  run?: number;
  out?: string;
  open?: boolean;
}

/**
 * `reelpipe report MANIFEST [--run ID] [--out FILE] [--open]`: writes the report (one
 * self-contained HTML file) and results.csv / results.json beside it, from the plan and the state
 * database, as every run does at its end. Read-only on the state; no network.
 */
export const registerReport: RegisterCommand = (program, io) => {
  addStateFlags(
    program
      .command('report')
      .description('write the HTML report and results.csv / results.json of a manifest (OUTPUTS/report/)')
      .argument('<manifest>', 'the manifest YAML file')
      .option('--run <id>', 'the run the report is about (default: the newest)', wholePositive('--run'))
      .option('--out <file>', 'write the HTML here instead of OUTPUTS/report/index.html (results files go beside it)')
      .option('--open', 'open the report in the default browser (xdg-open or open)'),
  )
    .action(async (file: string, flags: ReportFlags) => {
      const { writeRunReport } = await import('../../report/write-report.js');
      const { plan, statePath } = await manifestTarget(io, file, flags);
      const written = await writeRunReport({
        plan,
        statePath,
        runId: flags.run,
        out: flags.out === undefined ? undefined : resolve(io.cwd, flags.out),
      }).catch((error: unknown) => {
        throw fileFault(error, 'the report could not be written', "its folder must be one reelpipe can create and write (OUTPUTS/report/, or --out's)") ?? error;
      });
      io.stdout(`report: ${written.html}\nresults: ${written.csv}, ${written.json}\n`);
      if (flags.open) openInBrowser(written.html, io);
    });
};

/** Hands the file to the desktop's opener, without waiting for it; says so when there is none. */
function openInBrowser(path: string, io: CliIo): void {
  const opener = ['xdg-open', 'open'].find((name) => onPath(name, io.env.PATH ?? ''));
  if (!opener) {
    io.stderr(`--open: neither xdg-open nor open is on PATH; open ${path} in a browser\n`);
    return;
  }
  const child = spawn(opener, [path], { detached: true, stdio: 'ignore' });
  child.on('error', (error) => io.stderr(`--open: ${opener} failed: ${error.message}; open ${path} in a browser\n`));
  child.unref();
}

function onPath(name: string, path: string): boolean {
  return path.split(delimiter).some((dir) => {
    try {
      accessSync(join(dir, name), constants.X_OK);
      return dir !== '';
    } catch {
      return false;
    }
  });
}
