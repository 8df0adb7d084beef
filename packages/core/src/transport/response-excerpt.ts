/**
 * The first `maxBytes` bytes of `bytes` as UTF-8, cut back to a character
 * boundary so a multi-byte character is never split into a replacement mark.
 */
export function utf8Prefix(bytes: Buffer, maxBytes: number): string {
  if (bytes.length <= maxBytes) return bytes.toString('utf8');
  let end = maxBytes;
  // bytes[end] is the first byte left out; while it continues a character, that character starts before the cut.
  while (end > 0 && ((bytes[end] ?? 0) & 0xc0) === 0x80) end -= 1;
  return bytes.subarray(0, end).toString('utf8');
}

/*
 * Receiver-controlled text (the response excerpt, a redirect's Location) is
 * shown to the agency in the API and its portal, and copied into logs. Control
 * characters in it could rewrite a terminal or a log line (ESC sequences, CR),
 * break a store (PostgreSQL refuses NUL in text) or reorder what a reader sees
 * (the Unicode bidirectional overrides and isolates of "Trojan Source"). They
 * are removed before anything is stored; printable text is kept as sent.
 *
 * Removed: C0 controls, DEL, C1 controls, U+202A–U+202E and U+2066–U+2069.
 * An excerpt keeps its tab and line feed (the layout of a JSON or HTML body);
 * a one-line value such as a header keeps neither.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
const CONTROLS = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;
// biome-ignore lint/suspicious/noControlCharactersInRegex: as above, tab (U+0009) and line feed (U+000A) spared.
const CONTROLS_BUT_LAYOUT = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;
/** The same class without the `g` flag, for a stateless test. */
const HAS_CONTROLS_BUT_LAYOUT = new RegExp(CONTROLS_BUT_LAYOUT.source);

/** A receiver's response excerpt as stored: control characters removed, tabs and line feeds kept. */
export function cleanExcerpt(text: string): string {
  // Almost every excerpt is clean: it is returned as is, without a copy.
  return HAS_CONTROLS_BUT_LAYOUT.test(text) ? text.replace(CONTROLS_BUT_LAYOUT, '') : text;
}

/**
 * A one-line piece of receiver text (a header value) without any control
 * character, cut to at most `maxChars` UTF-16 units without splitting a
 * surrogate pair.
 */
export function cleanLine(text: string, maxChars: number): string {
  const clean = text.replace(CONTROLS, '');
  if (clean.length <= maxChars) return clean;
  const cut = /[\ud800-\udbff]/.test(clean.charAt(maxChars - 1)) ? maxChars - 1 : maxChars;
  return clean.slice(0, cut);
}
