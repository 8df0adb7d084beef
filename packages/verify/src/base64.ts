/**
 * Base64 (RFC 4648, standard and URL-safe alphabets) without `Buffer`, for the code both entries share:
 * Standard Webhooks carries its secrets, keys and signatures as base64, and the Web Crypto entry may
 * not touch `Buffer`. `atob` and `btoa` exist in Node 16+, every edge runtime and browsers. The Node
 * entry's hot path decodes signatures with `Buffer` itself; these run once per key (cached) or on
 * failure paths.
 */

// Standard alphabet; padding optional. atob accepts unpadded input, so both forms decode alike.
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** Whether `text` is non-empty base64 of the standard alphabet, padded or not (never a partial quantum). */
export function isBase64(text: string): boolean {
  if (text.length === 0 || !BASE64.test(text)) return false;
  const padding = text.endsWith('==') ? 2 : text.endsWith('=') ? 1 : 0;
  // With padding the length is a multiple of 4; without, a remainder of 1 cannot encode whole bytes.
  return padding > 0 ? text.length % 4 === 0 : text.length % 4 !== 1;
}

/** Bytes of base64 text that {@link isBase64} accepted. */
export function decodeBase64(text: string): Uint8Array<ArrayBuffer> {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/** Standard, padded base64 of bytes: the form Standard Webhooks signatures and keys use. */
export function encodeBase64(bytes: Uint8Array): string {
  let binary = '';
  for (let i = 0; i < bytes.length; i++) binary += String.fromCharCode(bytes[i] as number);
  return btoa(binary);
}

/** Standard base64 to base64url without padding (JWK members, RFC 7517). */
export function toBase64Url(base64: string): string {
  return base64.replace(/=+$/, '').replace(/\+/g, '-').replace(/\//g, '_');
}

/** base64url (padded or not) to standard, padded base64. */
export function fromBase64Url(base64url: string): string {
  const base64 = base64url.replace(/-/g, '+').replace(/_/g, '/');
  return base64 + '='.repeat((4 - (base64.length % 4)) % 4);
}
