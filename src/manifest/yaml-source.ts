import { isMap, isNode, isPair, isScalar, LineCounter, parseDocument, type Document } from 'yaml';
import type { InputIssue } from '../errors.js';

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
}

export type Located = (path: readonly (string | number)[], message: string, keyOf?: string) => InputIssue;

export function parseYaml(file: string, text: string): { source: YamlSource; issues: InputIssue[] } {
  const counter = new LineCounter();
  const doc = parseDocument(text, { lineCounter: counter, prettyErrors: false, uniqueKeys: true });
  const position = (offset: number) => {
    const { line, col } = counter.linePos(offset);
    return { line, column: col };
  };
  const issues: InputIssue[] = [...doc.errors, ...doc.warnings].map((error) => ({
    file,
    ...position(error.pos[0]),
    message: `YAML: ${firstLine(error.message)}`,
  }));

  const nodeAt = (path: readonly (string | number)[]) => {
    for (let depth = path.length; depth >= 0; depth--) {
      const node = doc.getIn(path.slice(0, depth), true);
      if (isNode(node) && node.range) return node;
    }
    return doc.contents;
  };
  const source: YamlSource = {
    file,
    doc,
    data: doc.toJS({ maxAliasCount: 1000 }),
    locate: (path) => position(nodeAt(path)?.range?.[0] ?? 0),
    locateKey: (path, key) => {
      const map = nodeAt(path);
      if (isMap(map)) {
        const pair = map.items.find((p) => isPair(p) && isScalar(p.key) && String(p.key.value) === key);
        if (pair && isScalar(pair.key) && pair.key.range) return position(pair.key.range[0]);
      }
      return position(map?.range?.[0] ?? 0);
    },
  };
  return { source, issues };
}

function firstLine(message: string): string {
  return (message.split('\n')[0] ?? message).replace(/ at line \d+, column \d+:?$/, '');
}

/** Dotted form of a path, as issues show it: `steps.2.with.aspect_ratio`. */
export const dotted = (path: readonly (string | number)[]) => path.map(String).join('.');

/** An issue at the value of `path` (or at its key `keyOf` below it). */
export function locatedIn(source: YamlSource): Located {
  return (path, message, keyOf) => ({
    file: source.file,
    ...(keyOf === undefined ? source.locate(path) : source.locateKey(path, keyOf)),
    path: dotted(keyOf === undefined ? path : [...path, keyOf]),
    message,
  });
}
