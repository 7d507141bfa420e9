import { LocalFaultError, StateMismatchError, UsageError } from '../../errors.js';

/**
 * What a PostgreSQL error means for the command, in one place:
 *   - `config`: the address, the credentials or the rights are wrong (exit 2: a person fixes the configuration);
 *   - `link`: the server is unreachable, restarting, or the connection dropped (retried within a
 *     bound; past it exit 74, a local fault: the machine or its database, not the input);
 *   - `other`: anything else (a bug or a constraint: thrown as it is).
 * Messages name the database as shown (no password) and never echo the address given.
 */
export type PgFaultKind = 'config' | 'link' | 'other';

const LINK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'EPIPE', '57P01', '57P02', '57P03', '53300']);
const CONFIG_CODES = new Map([
  ['28P01', 'the password was refused'],
  ['28000', 'the server refused this user'],
  ['3D000', 'the database does not exist (create it first: createdb, or CREATE DATABASE)'],
  ['42501', 'the user lacks a right reelpipe needs (see docs/state.md for the role to grant)'],
  ['3F000', 'the schema does not exist'],
]);

export function faultKind(error: unknown): PgFaultKind {
  const code = (error as { code?: string }).code ?? '';
  if (CONFIG_CODES.has(code)) return 'config';
  if (LINK_CODES.has(code) || code.startsWith('08')) return 'link';
  const message = (error as Error).message ?? '';
  // node-postgres reports a dropped socket and a connect timeout with plain messages.
  if (/Connection terminated|connection timeout|timeout expired|Client has encountered a connection error|not queryable|ECONNRESET/i.test(message)) return 'link';
  if (/password authentication|no pg_hba\.conf entry|SASL|client password must be a string/i.test(message)) return 'config';
  return 'other';
}

/** The error a command ends with for `error` met at the database `shown`. */
export function pgFault(shown: string, error: unknown, doing: string): Error {
  const kind = faultKind(error);
  const reason = reasonOf(error);
  if (kind === 'config') {
    return new UsageError(`--state ${shown}: ${reason} while ${doing}. Check the user, its password (PGPASSWORD or ~/.pgpass) and its rights; nothing was sent.`);
  }
  if (kind === 'link') {
    return new LocalFaultError(`the state database ${shown} cannot be reached (${reason}) while ${doing}. Nothing more was sent; once it is back, run the same command again.`, { cause: error });
  }
  return error instanceof Error ? error : new Error(String(error));
}

/** A database written by a newer reelpipe. */
export function newerDatabase(shown: string, version: number, newest: number): StateMismatchError {
  return new StateMismatchError(`the state database ${shown} is at schema version ${version}, written by a newer reelpipe (this one knows up to ${newest}): run that version, or upgrade this one`);
}

function reasonOf(error: unknown): string {
  const code = (error as { code?: string }).code ?? '';
  const known = CONFIG_CODES.get(code);
  if (known) return known;
  const message = ((error as Error).message ?? String(error)).split('\n')[0]!;
  // A driver message may quote the connection string's parts; keep only what names no secret.
  return message.replace(/postgres(ql)?:\/\/\S+/gi, 'postgres://…').slice(0, 200);
}

/**
 * The commit of a transaction was sent, and its answer lost with the connection: the transaction
 * may or may not have committed. The caller reads back what it wrote before anything depends on
 * it (an intent is never followed by its POST until its row is seen).
 */
export class CommitUnknownError extends LocalFaultError {}
