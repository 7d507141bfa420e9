import { visit, type Document, type YAMLError } from 'yaml';

/**
 * What can go wrong turning YAML text into values, each said where the user can fix it: an
 * unclosed quote at the quote that opens (yaml finds it at the end of the file), aliases that
 * expand too far ("billion laughs"), values nested too deep for the parser's stack.
 */
type Position = (offset: number) => { line: number; column: number };
export interface YamlProblem {
  line: number;
  column: number;
  message: string;
}

/**
 * Why a limit on aliases: `&a [*b, *b, …]` nested nine deep ("billion laughs") is a few hundred
 * bytes that expand into billions of values. Each alias may bring at most this many nodes.
 */
export const MAX_ALIAS_COUNT = 1000;

/** Why caught: values nested thousands deep overflow the parser's stack; that is bad input, not a crash. */
export const TOO_DEEP = 'values are nested too deeply to read';

/** The document's own errors and warnings, one line each. */
export function documentProblems(doc: Document, position: Position): YamlProblem[] {
  return [...doc.errors, ...doc.warnings].map((error) => {
    if (/Maximum call stack/.test(error.message)) return { ...position(error.pos[0]), message: `YAML: ${TOO_DEEP}` };
    const quote = quoteOpening(doc, error);
    if (quote === undefined) return { ...position(error.pos[0]), message: `YAML: ${firstLine(error.message)}` };
    const mark = /closing (\S)quote/.exec(error.message)?.[1] ?? '"';
    return { ...position(quote), message: `YAML: the ${mark} opened here is never closed` };
  });
}

/** The document's values, or the problem that stopped them: too many aliases, too deep. */
export function documentData(doc: Document, position: Position): { data: unknown } | { problem: YamlProblem } {
  try {
    return { data: doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT }) };
  } catch (error) {
    if (error instanceof RangeError) return { problem: { ...position(0), message: `YAML: ${TOO_DEEP}` } };
    if (!(error instanceof ReferenceError)) throw error;
    const why = `aliases expand into too much data (each alias may bring at most ${MAX_ALIAS_COUNT} values); write the values out, or share them with defaults:`;
    return { problem: { ...position(firstAlias(doc) ?? 0), message: `YAML: ${why}` } };
  }
}

function firstAlias(doc: Document): number | undefined {
  let found: number | undefined;
  visit(doc, {
    Alias(_, node) {
      found = node.range?.[0];
      return visit.BREAK;
    },
  });
  return found;
}

/** The quoted value that runs to where yaml found its quote missing: its quote is where it opens. */
function quoteOpening(doc: Document, error: YAMLError): number | undefined {
  if (error.code !== 'MISSING_CHAR' || !/quote/.test(error.message)) return undefined;
  let found: number | undefined;
  visit(doc, {
    Scalar(_, node) {
      const quoted = node.type === 'QUOTE_DOUBLE' || node.type === 'QUOTE_SINGLE';
      if (quoted && node.range && node.range[0] < error.pos[0] && node.range[1] >= error.pos[0]) found = node.range[0];
    },
  });
  return found;
}

function firstLine(message: string): string {
  return (message.split('\n')[0] ?? message).replace(/ at line \d+, column \d+:?$/, '');
}
