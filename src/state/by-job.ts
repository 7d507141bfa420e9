/** `rows` as lists by their job's key, in the order read (only jobs that have rows appear). */
export function byJob<V, R>(rows: Iterable<V>, entryOf: (values: V) => [jobKey: string, row: R]): Map<string, R[]> {
  const lists = new Map<string, R[]>();
  for (const values of rows) {
    const [jobKey, row] = entryOf(values);
    const list = lists.get(jobKey);
    if (list) list.push(row);
    else lists.set(jobKey, [row]);
  }
  return lists;
}
