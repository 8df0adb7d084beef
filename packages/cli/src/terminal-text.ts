/*
 * What the CLI prints comes partly from elsewhere: a receiver's answer, a management API's error message
 * and fields, a delivery body read from a file. A terminal acts on control characters in it: ESC starts
 * a sequence that can set the window title (OSC `ESC ] 0 ; … BEL`), clear the screen (CSI `ESC [ 2 J`),
 * hide text or move the cursor, and a lone CR overwrites the line already printed, so a hostile receiver
 * could fake the CLI's own verdict. C1 characters (U+0080–U+009F, such as U+009B, an 8-bit CSI) do the
 * same on terminals that read them.
 *
 * Every such character is shown instead of dropped: written as JSON writes it in a string (`\u001b`,
 * `\r`, `\u009b`), so the text stays readable, nothing the receiver sent is hidden from the developer
 * debugging it, and the text mode shows what `--json` shows. Escaping the ESC alone is enough to make a
 * whole sequence inert: what follows it (`]0;pwned`, `[2J`) is printable text. It also works character by
 * character, with no state, so a sequence split across two writes is neutralised as well.
 */

// C0 without \t and \n, DEL, and C1; \r\n first, as one line ending.
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is this module's job.
const TERMINAL_CONTROLS = /\r\n|[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

// DEL and C1, which JSON.stringify leaves as they are: they are valid in a JSON string.
const JSON_RAW_CONTROLS = /[\u007f-\u009f]/g;

/** The short escapes JSON.stringify uses; every other control character is `\u00XX`. */
const SHORT_ESCAPES: Readonly<Record<string, string>> = { '\b': '\\b', '\f': '\\f', '\r': '\\r' };

function escapeControl(character: string): string {
  return SHORT_ESCAPES[character] ?? `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`;
}

/**
 * Text made safe to write to a terminal: every character a terminal would act on is written as its
 * JSON escape, visible and inert. Kept as they are: `\n` and `\t` (multi-line bodies and pretty-printed
 * JSON stay readable) and all printable text, non-ASCII and emoji included. `\r\n` becomes `\n`: a line
 * ending, not a carriage return that could overwrite a line.
 *
 * Escaped: C0 (U+0000–U+001F) but `\t` and `\n`, DEL (U+007F) and C1 (U+0080–U+009F), among them ESC,
 * which makes any ESC sequence (CSI, OSC, …) plain text. A backslash already in the text is left as it
 * is, so `\u001b` in the output may also have been those six characters; `--json` tells them apart.
 *
 * @param text - text from anywhere, for a terminal or a log
 * @returns the same text with no C0 (but `\t`, `\n`), DEL or C1 character left in it
 * @example
 * ```ts
 * toTerminalText('\u001b]0;pwned\u0007ok\r\n'); // '\\u001b]0;pwned\\u0007ok\n'
 * ```
 */
export function toTerminalText(text: string): string {
  return text.replace(TERMINAL_CONTROLS, (match) => (match === '\r\n' ? '\n' : escapeControl(match)));
}

/**
 * `value` as pretty-printed JSON (two spaces) with no character a terminal acts on, and the same value
 * when parsed. JSON.stringify escapes C0 itself but leaves DEL and C1 raw; those are escaped here as
 * `\u007f` … `\u009f`, which is exact because outside strings JSON holds no such character. The result
 * then passes {@link toTerminalText} unchanged: nothing is escaped twice.
 *
 * @param value - a JSON-serialisable value (not `undefined`)
 * @example
 * ```ts
 * toTerminalJson({ excerpt: '\u009b2J' }); // '{\n  "excerpt": "\\u009b2J"\n}'
 * ```
 */
export function toTerminalJson(value: unknown): string {
  return JSON.stringify(value, null, 2).replace(JSON_RAW_CONTROLS, escapeControl);
}
