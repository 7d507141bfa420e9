import { UsageError } from '../../errors.js';

/** The schemes that name a PostgreSQL state; anything else given as a state is an SQLite file's path. */
const SCHEMES = /^postgres(?:ql)?:\/\//i;

/** Query parameters a state address may carry (what libpq's URI form means by them). */
const PARAMETERS = new Set(['sslmode', 'sslrootcert', 'sslcert', 'sslkey', 'connect_timeout', 'host', 'port', 'user', 'dbname', 'options']);

/** Whether `location` names a PostgreSQL database rather than an SQLite file. */
export function isPostgresAddress(location: string): boolean {
  return SCHEMES.test(location);
}

/** A PostgreSQL address as parsed: the parts a pool is configured with, and how it may be shown. */
export interface PgAddress {
  user: string | undefined;
  /** Only from the address itself; PGPASSWORD and ~/.pgpass are the client's to read. */
  password: string | undefined;
  host: string;
  port: number;
  database: string;
  params: Map<string, string>;
  /** `postgres://user@host:port/db`: what logs, reports, the state and messages name. Never a password. */
  shown: string;
}

/**
 * Parses a state address `postgres://[user[:password]@]host[:port]/database[?sslmode=…]`, or throws
 * a UsageError naming `where` (the flag or variable it came from) and what would be accepted —
 * saying only the scheme and the parts that carry no secret.
 */
export function parsePgAddress(location: string, where = '--state'): PgAddress {
  let url: URL;
  try {
    url = new URL(location);
  } catch {
    throw refused(where, 'it is not a URL');
  }
  const host = decodeURIComponent(url.hostname.replace(/^\[|\]$/g, '')) || url.searchParams.get('host') || '';
  if (!host) throw refused(where, 'it names no host');
  const portText = url.port || url.searchParams.get('port') || '5432';
  const port = Number(portText);
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw refused(where, `its port "${portText}" is not a number from 1 to 65535`);
  const database = decodeURIComponent(url.pathname.replace(/^\//, '')) || url.searchParams.get('dbname') || '';
  if (!database || database.includes('/')) throw refused(where, 'it names no database (the path after the host, e.g. /reelpipe)');
  const params = new Map<string, string>();
  for (const [name, value] of url.searchParams) {
    if (!PARAMETERS.has(name)) throw refused(where, `its parameter "${name}" is not one of ${[...PARAMETERS].join(', ')}`);
    params.set(name, value);
  }
  const user = url.username ? decodeURIComponent(url.username) : params.get('user');
  const password = url.password ? decodeURIComponent(url.password) : undefined;
  const shownHost = host.includes(':') ? `[${host}]` : host;
  const shown = `postgres://${user ? `${encodeURIComponent(user)}@` : ''}${shownHost}:${port}/${encodeURIComponent(database)}`;
  return { user, password, host, port, database, params, shown };
}

/**
 * The addresses given this process, by the form shown. Why: a location travels through the whole
 * program — messages, logs, run records, the outputs folder's owner file, the report — and any of
 * them could print it. So the address is turned into its shown form (no password, no parameters)
 * where it enters (state/locate.ts), and only the connection (pg-connection.ts) looks the given
 * form up again to connect.
 */
const given = new Map<string, string>();

/** Keeps the address as given and returns its shown form: the location the rest of the program carries. */
export function rememberAddress(location: string, where = '--state'): string {
  const address = parsePgAddress(location, where);
  given.set(address.shown, location);
  return address.shown;
}

/** The address to connect to for a location: as given when it entered as `shown`, else the location itself. */
export function addressToOpen(location: string): string {
  return given.get(location) ?? location;
}

/** How a state's location may be shown anywhere: a path as it is, an address without its password. */
export function shownLocation(location: string): string {
  if (!isPostgresAddress(location)) return location;
  try {
    return parsePgAddress(location).shown;
  } catch {
    return location.replace(/^([a-z]+:\/\/).*$/i, '$1…');
  }
}

function refused(where: string, why: string): UsageError {
  return new UsageError(
    `${where}: a PostgreSQL state address was given, but ${why}. Accepted: postgres://USER@HOST:PORT/DATABASE ` +
      '(or postgresql://…), with an optional ?sslmode=disable|require|verify-full; the password from the address, ' +
      'PGPASSWORD or ~/.pgpass.',
  );
}
