/**
 * Text files must be UTF-8: what is read is sent to the service, and a Latin-1 `Caf\xe9` decoded
 * leniently becomes `Caf\uFFFD`, a broken word in a paid video. So bytes are decoded strictly, and
 * a file in another encoding is named with the line where it shows. A UTF-8 byte order mark is
 * fine (and kept: the CSV and JSONL readers skip it).
 */
export interface EncodingProblem {
  line: number;
  column?: number;
  message: string;
}

const SAVE_AS = 'save it as UTF-8';

/** Byte order marks of the encodings a spreadsheet or an editor may save text in; UTF-32 first (its LE mark starts like UTF-16's). */
const BOMS: [string, number[]][] = [
  ['UTF-32LE', [0xff, 0xfe, 0x00, 0x00]],
  ['UTF-32BE', [0x00, 0x00, 0xfe, 0xff]],
  ['UTF-16LE', [0xff, 0xfe]],
  ['UTF-16BE', [0xfe, 0xff]],
];

/** Why 4 KB: enough text to tell UTF-16 from a stray NUL, read from the start only. */
const SNIFF_BYTES = 4096;

export function decodeUtf8(bytes: Uint8Array): { text: string } | { problem: EncodingProblem } {
  const bom = BOMS.find(([, mark]) => mark.every((b, i) => bytes[i] === b));
  if (bom) return { problem: { line: 1, message: `the file is ${bom[0]} (it starts with a ${bom[0]} byte order mark); ${SAVE_AS}` } };
  const utf16 = utf16WithoutBom(bytes.subarray(0, SNIFF_BYTES));
  if (utf16) return { problem: { line: 1, message: `the file looks like ${utf16} without a byte order mark (every other byte is NUL); ${SAVE_AS}` } };
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return { problem: invalidUtf8(bytes, firstInvalidByte(bytes)) };
  }
  const nul = text.indexOf('\0');
  if (nul >= 0) return { problem: { ...positionIn(text, nul), message: 'a NUL byte, which text never holds: is this a binary file?' } };
  return { text };
}

/** UTF-16 text without a mark: mostly ASCII, so one byte of each pair is NUL, on the same side. */
function utf16WithoutBom(sample: Uint8Array): string | undefined {
  const pairs = Math.floor(sample.length / 2);
  if (pairs === 0) return undefined;
  let [even, odd] = [0, 0];
  for (let i = 0; i < pairs * 2; i += 2) {
    if (sample[i] === 0) even++;
    if (sample[i + 1] === 0) odd++;
  }
  if (odd > pairs * 0.3 && even < pairs * 0.1) return 'UTF-16LE';
  if (even > pairs * 0.3 && odd < pairs * 0.1) return 'UTF-16BE';
  return undefined;
}

/** The offset of the first byte that does not start or continue a valid UTF-8 sequence. */
export function firstInvalidByte(bytes: Uint8Array): number {
  for (let i = 0; i < bytes.length; ) {
    const c = bytes[i] as number;
    if (c < 0x80) {
      i++;
      continue;
    }
    const length = c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
    if (length === 0) return i;
    // The second byte's range is narrower after E0, ED, F0 and F4 (no overlong forms, no surrogates).
    const [low, high] = c === 0xe0 ? [0xa0, 0xbf] : c === 0xed ? [0x80, 0x9f] : c === 0xf0 ? [0x90, 0xbf] : c === 0xf4 ? [0x80, 0x8f] : [0x80, 0xbf];
    const second = bytes[i + 1];
    if (second === undefined || second < low || second > high) return i;
    for (let k = 2; k < length; k++) {
      const next = bytes[i + k];
      if (next === undefined || next < 0x80 || next > 0xbf) return i;
    }
    i += length;
  }
  return bytes.length;
}

/**
 * Where the bad byte is, and what the file probably is: a high byte standing alone between plain
 * characters is how Latin-1 and Windows-1252 write é, ü or €.
 */
function invalidUtf8(bytes: Uint8Array, at: number): EncodingProblem {
  let lineStart = 0;
  let line = 1;
  for (let i = bytes.indexOf(0x0a); i >= 0 && i < at; i = bytes.indexOf(0x0a, i + 1)) [line, lineStart] = [line + 1, i + 1];
  const column = new TextDecoder('utf-8').decode(bytes.subarray(lineStart, at)).length + 1;
  const byte = bytes[at] as number;
  const next = bytes[at + 1];
  const single = byte >= 0x80 && (next === undefined || next < 0x80 || next > 0xbf);
  const guess = single ? '; the file looks like Latin-1 or Windows-1252, which write é or ü as one such byte' : '';
  return { line, column, message: `not UTF-8: byte 0x${byte.toString(16).toUpperCase().padStart(2, '0')} is not valid UTF-8${guess}; ${SAVE_AS}` };
}

function positionIn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  const lineStart = before.lastIndexOf('\n') + 1;
  return { line: before.split('\n').length, column: offset - lineStart + 1 };
}
