/**
 * Byte equality whose running time depends only on the length: it never stops at the first
 * difference, so timing cannot reveal how many leading bytes of a forged signature were right.
 * Lengths are compared first; a signature's length is public. For the Web Crypto entry, which has no
 * `timingSafeEqual`.
 */
export function constantTimeEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let i = 0; i < a.length; i++) difference |= (a[i] as number) ^ (b[i] as number);
  return difference === 0;
}
