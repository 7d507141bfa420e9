import type { Summary } from './figures.js';
export interface Target { name: string; goal: string; measured: string; median?: number; met: boolean | undefined }
interface Format { digits?: number; unit?: string }
export const FLAT_TOLERANCE: number;
export const LINEAR_TOLERANCE: number;
export const TARGET_HEADERS: string[];
export function verdictWord(met: boolean | undefined): string;
export function atMost(name: string, summary: Summary, limit: number, format?: Format): Target;
export function ahead(name: string, summary: Summary, other: Summary, otherName: string, format?: Pick<Format, 'digits'>): Target;
export function flatOrFalling(name: string, values: readonly number[], format?: Format): Target;
export function linear(name: string, perJob: readonly number[], format?: Format): Target;
export function targetRows(targets: readonly Target[]): string[][];
