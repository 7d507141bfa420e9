import type { Summary } from './figures.js';
export function markdownTable(headers: readonly unknown[], rows: readonly (readonly unknown[])[]): string;
export function fixed(value: number, digits?: number): string;
export function minMedian(summary: Summary, digits?: number, unit?: string): string;
