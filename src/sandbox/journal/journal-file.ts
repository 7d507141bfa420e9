import { appendFileSync, closeSync, mkdirSync, openSync, readFileSync, truncateSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Logger } from 'pino';
import { InvalidInputError, type InputIssue } from '../../errors.js';
import { JOURNAL_VERSION, JournalHeader, JournalOperation, parseLine } from './format.js';
import { JournalLock } from './journal-lock.js';

/** What the journal fixes for the whole life of the service it records. */
export type JournalSettings = Pick<JournalHeader, 'seed' | 'credits' | 'capacity'>;

/** An operation read back, with the line it is on (for errors). */
export interface JournalEntry {
  line: number;
  operation: JournalOperation;
}

/**
 * The journal file: read once when the sandbox starts, then appended to, one line per operation.
 * One process at a time has it open (JournalLock): a second is refused with LockedError.
 *
 * Durability: each line is written with one synchronous append before the answer is sent, so a
 * killed process loses nothing it answered (the kernel's page cache outlives the process). There
 * is no fsync per line: an OS crash or power cut may lose the last lines. Why: an fsync costs
 * milliseconds per creation on most disks, and the sandbox stands in for a service during tests
 * and rehearsals, where a killed process is the failure to survive, not a lost machine.
 */
export class JournalFile {
  private constructor(
    readonly file: string,
    readonly header: JournalHeader,
    readonly entries: JournalEntry[],
    private readonly fd: number,
    private readonly lock: JournalLock,
  ) {}

  /**
   * Opens a journal, creating it (with `settings` in its header) when missing or empty. A torn
   * last line, the trace of a crash mid-write, is cut off with a warning; any other bad line
   * refuses the whole file, naming file and line, because replaying around it would invent a state.
   */
  static open(file: string, settings: JournalSettings, now: number, logger: Logger): JournalFile {
    mkdirSync(dirname(file), { recursive: true });
    // Before reading: cutting a torn last line is a write too.
    const lock = JournalLock.take(file);
    let fd: number | undefined;
    try {
      const lines = readLines(file, logger);
      fd = openSync(file, 'a');
      if (lines.length === 0) {
        const header: JournalHeader = { journal: 'reelpipe-sandbox', version: JOURNAL_VERSION, created_at: new Date(now).toISOString(), ...settings };
        appendFileSync(fd, `${JSON.stringify(header)}\n`);
        return new JournalFile(file, header, [], fd, lock);
      }
      const { header, entries } = parseJournal(file, lines);
      return new JournalFile(file, header, entries, fd, lock);
    } catch (error) {
      if (fd !== undefined) closeSync(fd);
      lock.release();
      throw error;
    }
  }

  /** Appends one operation; returns once the line is in the kernel's hands. */
  append(operation: JournalOperation): void {
    appendFileSync(this.fd, `${JSON.stringify(operation)}\n`);
  }

  /** Closes the file and releases the lock. */
  close(): void {
    closeSync(this.fd);
    this.lock.release();
  }
}

/** The file's complete lines; a torn last line is cut off (and warned about), a missing final newline added. */
function readLines(file: string, logger: Logger): string[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw new InvalidInputError([{ file, message: `cannot read the sandbox journal: ${(error as Error).message}` }]);
  }
  const lines = text.split('\n');
  const last = lines.pop()!;
  if (last === '') return lines;
  const schema = lines.length === 0 ? JournalHeader : JournalOperation;
  if ('value' in parseLine(schema, last)) {
    appendFileSync(file, '\n');
    return [...lines, last];
  }
  logger.warn({ file, line: lines.length + 1 }, 'sandbox journal: torn last line (a crash mid-write) ignored');
  truncateSync(file, Buffer.byteLength(text) - Buffer.byteLength(last));
  return lines;
}

function parseJournal(file: string, lines: string[]): { header: JournalHeader; entries: JournalEntry[] } {
  const issues: InputIssue[] = [];
  const head = parseLine(JournalHeader, lines[0]!);
  if (!('value' in head)) {
    const expected = `expected the header {"journal":"reelpipe-sandbox","version":${JOURNAL_VERSION},…}`;
    throw new InvalidInputError([{ file, line: 1, message: `${head.message}; ${expected}` }], 'not a sandbox journal');
  }
  if (head.value.version !== JOURNAL_VERSION) {
    const message = `journal version ${head.value.version} is not supported; this sandbox reads version ${JOURNAL_VERSION}`;
    throw new InvalidInputError([{ file, line: 1, path: 'version', message }], 'sandbox journal cannot be replayed');
  }
  const entries: JournalEntry[] = [];
  lines.slice(1).forEach((text, i) => {
    const parsed = parseLine(JournalOperation, text);
    if ('value' in parsed) entries.push({ line: i + 2, operation: parsed.value });
    else issues.push({ file, line: i + 2, message: `${parsed.message}; a damaged journal is not replayed (only a torn last line is skipped)` });
  });
  if (issues.length > 0) throw new InvalidInputError(issues.slice(0, 10), 'sandbox journal cannot be replayed');
  return { header: head.value, entries };
}
