import pg from 'pg';

/**
 * One statement's text and parameters, built together: each value becomes the next `$n` — or,
 * built `inline`, is written into the text as an escaped literal (a statement sent with others in
 * one round trip, PgDb.tx's lead and commitWith, takes no parameters). A list
 * of rows travels as ONE parameter, a JSON array read back with `jsonb_to_recordset` (typed by
 * its column list), so a wave of a hundred jobs is one statement with a handful of parameters.
 * Why JSON and not one array per column: rows whose columns are optional stay one object each,
 * and a double read from JSON text converts exactly (shortest round-trip digits both ways).
 */
export class Sql {
  readonly params: unknown[] = [];
  private readonly parts: string[] = [];
  private readonly named = new Map<string, string>();

  constructor(readonly inline = false) {}

  /** The placeholder of `value`, cast to `type` when given (a parameter in a SELECT list has no type of its own). */
  $(value: unknown, type?: string): string {
    let placeholder: string;
    if (this.inline) placeholder = literal(value);
    else {
      this.params.push(value);
      placeholder = `$${this.params.length}`;
    }
    return type === undefined ? placeholder : `${placeholder}::${type}`;
  }

  /**
   * The placeholder of a value many parts of the statement use (the manifest, the time), made on
   * first use: a parameter no part uses would have no type, and PostgreSQL refuses it.
   */
  shared(name: string, value: unknown, type: string): string {
    let placeholder = this.named.get(name);
    if (placeholder === undefined) this.named.set(name, (placeholder = this.$(value, type)));
    return placeholder;
  }

  /**
   * `rows` as a table `alias`: `columns` is the record's definition, e.g. `key text, idx bigint`.
   * Its LIMIT (the rows' count) is how the planner learns how many there are: a function's rows
   * are otherwise guessed at 100, and a wave of a few jobs was joined to its tables by scanning
   * every row of the manifest (a cost that grew with the batch, at every wave).
   */
  rows(rows: readonly object[], columns: string, alias = 'v'): string {
    return `(SELECT * FROM jsonb_to_recordset(${this.$(JSON.stringify(rows))}::jsonb) AS r(${columns}) LIMIT ${rows.length}) AS ${alias}`;
  }

  /**
   * `rows` as a table `alias` with one more column, `as`, computed for each row by `expression`
   * (which names the row as `alias`): a row's target found first, so the table it updates is
   * joined on that target's key, by its index, not searched for each row (see rows).
   */
  rowsWith(rows: readonly object[], columns: string, expression: string, as: string, alias = 'v'): string {
    return `(SELECT ${alias}.*, ${expression} AS ${as} FROM ${this.rows(rows, columns, alias)}) AS ${alias}`;
  }

  /** Adds a data-modifying CTE (`name AS (sql)`) to the statement. */
  with(name: string, sql: string): this {
    this.parts.push(`${name} AS (${sql})`);
    return this;
  }

  /** Whether any CTE was added. */
  get empty(): boolean {
    return this.parts.length === 0;
  }

  /** The statement: the CTEs added, then `main`. */
  text(main: string): string {
    return this.parts.length === 0 ? main : `WITH ${this.parts.join(',\n')}\n${main}`;
  }
}

/** `value` as an SQL literal: a string escaped (pg.escapeLiteral), a list as an ARRAY (cast it), a number or a boolean as written. */
function literal(value: unknown): string {
  if (value === null || value === undefined) return 'NULL';
  if (typeof value === 'string') return pg.escapeLiteral(value);
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value === 'boolean') return value ? 'TRUE' : 'FALSE';
  if (Array.isArray(value)) return `ARRAY[${value.map(literal).join(', ')}]`;
  throw new Error(`pg-sql.ts: no literal for ${typeof value}`);
}

/** `values` without repeats, in first-seen order. */
export const unique = <T>(values: Iterable<T>): T[] => [...new Set(values)];
