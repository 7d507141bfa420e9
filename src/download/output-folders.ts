import { lstatSync, mkdirSync } from 'node:fs';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { DownloadRefusedError } from '../errors.js';

/**
 * The folders inside one outputs folder that files are written into, each made and checked once
 * (see `ensure`): a run writing 10,000 files into one step folder checks that folder once, not
 * 10,000 times. Make one per run (or per call, outside a run).
 */
export class OutputFolders {
  readonly root: string;
  private readonly checked = new Set<string>();

  constructor(root: string) {
    this.root = resolve(root);
  }

  /**
   * Makes every folder from the outputs folder (exclusive) down to `dir` (inclusive), refusing any
   * that exists as a symbolic link or a file. Why: with `ln -s ../victim out/shorts`, outputs
   * would be written into `victim/`, wherever it is; a folder inside the outputs folder is
   * reelpipe's, so a link there is a mistake or an attack, never a layout to honour. The outputs
   * folder itself may be a link (outputs kept on another disk is the operator's choice). A link
   * swapped in after this check is not caught: that needs a local attacker racing the run.
   */
  ensure(dir: string): void {
    const target = resolve(dir);
    if (this.checked.has(target)) return;
    const rel = relative(this.root, target);
    if (rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel)) throw new DownloadRefusedError(`${dir} is not inside the outputs folder ${this.root}`);
    mkdirSync(this.root, { recursive: true });
    let current = this.root;
    for (const part of rel === '' ? [] : rel.split(sep)) {
      current = join(current, part);
      const info = lstatSync(current, { throwIfNoEntry: false });
      if (info?.isSymbolicLink()) {
        throw new DownloadRefusedError(
          `refused to write through ${current}: it is a symbolic link inside the outputs folder ${this.root} ` +
            '(outputs are never written through a link, which could point anywhere); replace it with a real folder',
        );
      }
      if (info && !info.isDirectory()) throw new DownloadRefusedError(`cannot write into ${current}: it is a file, not a folder`);
      if (!info) {
        try {
          mkdirSync(current);
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
        }
      }
    }
    this.checked.add(target);
  }
}
