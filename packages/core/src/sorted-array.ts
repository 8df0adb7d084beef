/**
 * Index of the first item of ascending `items` that is not less than `value`
 * (`<` order: strings by code unit, numbers numerically): where `value` would be
 * inserted to keep the array sorted, before any equal item.
 */
export function lowerBound<T extends string | number>(items: readonly T[], value: T): number {
  let low = 0;
  let high = items.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((items[middle] as T) < value) low = middle + 1;
    else high = middle;
  }
  return low;
}
