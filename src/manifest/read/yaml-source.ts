import { isMap, isNode, isPair, isScalar, LineCounter, parseDocument, type Document } from 'yaml';
import type { InputIssue } from '../../errors.js';
import { documentData, documentProblems, TOO_DEEP } from './yaml-problems.js';

/**
 * The manifest's YAML, kept with a LineCounter so any path into it (a zod issue's path, a rule's
 * path) maps back to the line and column a user should fix.
 */
export interface YamlSource {
  /** The file name as the user gave it: issues carry it verbatim. */
  file: string;
  doc: Document;
  data: unknown;
  /** Line/column of the value at `path`, or of its nearest ancestor when the value is missing. */
  locate(path: readonly (string | number)[]): { line: number; column: number };
  /** Line/column of the key `key` inside the map at `path` (for unknown-field issues). */
  locateKey(path: readonly (string | number)[], key: string): { line: number; column: number };
  /**
   * For a value missing at `path`: the key of the deepest map on the path that is written (a
   * step's `with:`), or that map itself when it has no key (a step in the list).
   */
  locateMissing(path: readonly (string | number)[]): { line: number; column: number };
}

export type Located = (path: readonly (string | number)[], message: string, keyOf?: string) => InputIssue;

export function parseYaml(file: string, text: string): { source: YamlSource; issues: InputIssue[] } {
  const counter = new LineCounter();
  const position = (offset: number) => {
    const { line, col } = counter.linePos(offset);
    return { line, column: col };
  };
  let doc: Document;
  try {
    doc = parseDocument(text, { lineCounter: counter, prettyErrors: false, uniqueKeys: true });
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    return { source: sourceOf(file, parseDocument(''), undefined, position), issues: [{ file, line: 1, message: `YAML: ${TOO_DEEP}` }] };
  }
  const problems = documentProblems(doc, position);
  if (problems.length > 0) return { source: sourceOf(file, doc, undefined, position), issues: problems.map((p) => ({ file, ...p })) };
  const values = documentData(doc, position);
  if ('problem' in values) return { source: sourceOf(file, doc, undefined, position), issues: [{ file, ...values.problem }] };
  return { source: sourceOf(file, doc, values.data, position), issues: [] };
}

function sourceOf(file: string, doc: Document, data: unknown, position: (offset: number) => { line: number; column: number }): YamlSource {
  const keyPosition = (map: unknown, key: string) => {
    if (!isMap(map)) return undefined;
    const pair = map.items.find((p) => isPair(p) && isScalar(p.key) && String(p.key.value) === key);
    return pair && isScalar(pair.key) && pair.key.range ? position(pair.key.range[0]) : undefined;
  };
  const nodeAt = (path: readonly (string | number)[]) => {
    for (let depth = path.length; depth >= 0; depth--) {
      const node = doc.getIn(path.slice(0, depth), true);
      if (isNode(node) && node.range) return node;
    }
    return doc.contents;
  };
  const start = (path: readonly (string | number)[]) => position(nodeAt(path)?.range?.[0] ?? 0);
  return {
    file,
    doc,
    data,
    locate: start,
    locateKey: (path, key) => keyPosition(nodeAt(path), key) ?? start(path),
    locateMissing: (path) => {
      for (let depth = path.length - 1; depth >= 1; depth--) {
        if (!isNode(doc.getIn(path.slice(0, depth), true))) continue;
        const key = path[depth - 1];
        return (typeof key === 'string' ? keyPosition(nodeAt(path.slice(0, depth - 1)), key) : undefined) ?? start(path.slice(0, depth));
      }
      return start([]);
    },
  };
}

/** Dotted form of a path, as issues show it: `steps.2.with.aspect_ratio`. */
export const dotted = (path: readonly (string | number)[]) => path.map(String).join('.');

/** An issue about a required value missing at `path`, shown where the map it belongs in is written. */
export function missingIn(source: YamlSource): (path: readonly (string | number)[], message: string) => InputIssue {
  return (path, message) => ({ file: source.file, ...source.locateMissing(path), path: dotted(path), message });
}

/** An issue at the value of `path` (or at its key `keyOf` below it). */
export function locatedIn(source: YamlSource): Located {
  return (path, message, keyOf) => ({
    file: source.file,
    ...(keyOf === undefined ? source.locate(path) : source.locateKey(path, keyOf)),
    path: dotted(keyOf === undefined ? path : [...path, keyOf]),
    message,
  });
}
