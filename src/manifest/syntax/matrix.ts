/**
 * Matrix expansion, with GitHub Actions' semantics so it reads as users expect:
 *  1. the cartesian product of the axes (first axis outermost);
 *  2. `exclude`: drop every combination matching all key/values of an entry;
 *  3. `include`: add an entry's extra keys to every combination whose axis values it does not
 *     contradict; an entry that fits no combination becomes a combination of its own.
 */
export type Scalar = string | number | boolean | null;
export type Combination = Record<string, Scalar>;

export interface MatrixInput {
  include?: Combination[];
  exclude?: Combination[];
  [axis: string]: Scalar[] | Combination[] | undefined;
}

export function axesOf(matrix: MatrixInput): [string, Scalar[]][] {
  return Object.entries(matrix).filter(
    (entry): entry is [string, Scalar[]] => entry[0] !== 'include' && entry[0] !== 'exclude' && Array.isArray(entry[1]),
  );
}

export function expandMatrix(matrix: MatrixInput): Combination[] {
  const axes = axesOf(matrix);
  let combinations: Combination[] = axes.length > 0 ? [{}] : [];
  for (const [axis, values] of axes) {
    combinations = combinations.flatMap((c) => values.map((v) => ({ ...c, [axis]: v })));
  }
  const matches = (c: Combination, entry: Combination) => Object.entries(entry).every(([k, v]) => c[k] === v);
  combinations = combinations.filter((c) => !(matrix.exclude ?? []).some((entry) => matches(c, entry)));

  const axisNames = new Set(axes.map(([axis]) => axis));
  for (const entry of matrix.include ?? []) {
    const fits = (c: Combination) =>
      Object.entries(entry).every(([k, v]) => !axisNames.has(k) || c[k] === v);
    const targets = axisNames.size > 0 ? combinations.filter(fits) : [];
    if (targets.length === 0) combinations.push({ ...entry });
    for (const c of targets) Object.assign(c, entry);
  }
  return combinations;
}

/** Every key a combination can have: the axes and the keys include entries add. */
export function matrixKeys(matrix: MatrixInput): Set<string> {
  const keys = new Set(axesOf(matrix).map(([axis]) => axis));
  for (const entry of matrix.include ?? []) for (const key of Object.keys(entry)) keys.add(key);
  return keys;
}

/**
 * Where the value of `key` in `combination` is written, as a path inside the matrix: `[axis, i]`
 * for an axis value (its first place in the axis), else `['include', j, key]` for the last
 * include entry that gave it (later entries win, as expandMatrix applies them). A value that came
 * from an axis is said at the axis, where it is written first, even when an include entry repeats it.
 */
export function valueOrigin(matrix: MatrixInput, combination: Combination, key: string): (string | number)[] | undefined {
  const value = combination[key];
  const axes = axesOf(matrix);
  const axis = axes.find(([name]) => name === key)?.[1];
  const index = axis?.indexOf(value as Scalar) ?? -1;
  if (index >= 0) return [key, index];
  const gave = (entry: Combination) =>
    Object.hasOwn(entry, key) && entry[key] === value && axes.every(([name]) => !Object.hasOwn(entry, name) || entry[name] === combination[name]);
  const include = matrix.include ?? [];
  for (let j = include.length - 1; j >= 0; j--) if (gave(include[j] as Combination)) return ['include', j, key];
  return undefined;
}
