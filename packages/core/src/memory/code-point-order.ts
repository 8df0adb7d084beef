/**
 * Binary (UTF-8 byte, that is code point) order, as PostgreSQL's "C" collation
 * and Redis sorted sets compare: `<` compares UTF-16 code units, which puts
 * U+E000–U+FFFF after the surrogate pairs of astral characters. Lifting
 * surrogates above the BMP fixes that and nothing else.
 */
export function compareCodePoints(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let index = 0; index < length; index++) {
    const x = a.charCodeAt(index);
    const y = b.charCodeAt(index);
    if (x !== y) return liftSurrogate(x) - liftSurrogate(y);
  }
  return a.length - b.length;
}

function liftSurrogate(unit: number): number {
  return unit >= 0xd800 && unit <= 0xdfff ? unit + 0x10000 : unit;
}
