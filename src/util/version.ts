import { readFileSync } from 'node:fs';

/** reelpipe's version, from its package.json (two folders up from src/util and dist/util alike). */
export const VERSION: string = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
