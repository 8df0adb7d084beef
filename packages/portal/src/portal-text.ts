import { DEFAULT_STRINGS, type PortalStringKey, type PortalStrings } from './strings';

/** Values a string's `{name}` placeholders are filled with. */
export type TextValues = Readonly<Record<string, string | number>>;

/**
 * The words and dates of one portal: the English defaults under the host's overrides, and dates in the
 * same locale as the words, so a page translated to German does not show American dates. Plain data,
 * shared by every view of the element.
 */
export class PortalText {
  private readonly strings: Readonly<Record<string, string>>;
  private readonly dateTime: Intl.DateTimeFormat;
  private readonly date: Intl.DateTimeFormat;
  private readonly time: Intl.DateTimeFormat;

  constructor(overrides: PortalStrings | null = null, locale = 'en') {
    this.strings = { ...DEFAULT_STRINGS, ...onlyStrings(overrides) };
    const tag = validLocale(locale);
    this.locale = tag;
    this.dateTime = new Intl.DateTimeFormat(tag, { dateStyle: 'medium', timeStyle: 'medium' });
    this.date = new Intl.DateTimeFormat(tag, { dateStyle: 'medium' });
    this.time = new Intl.DateTimeFormat(tag, { timeStyle: 'medium' });
  }

  /** The BCP 47 tag dates are formatted in (`en` when the one given is not a valid tag). */
  readonly locale: string;

  /** The string of `key` with its `{name}` placeholders filled; a placeholder with no value stays as written. */
  t(key: PortalStringKey, values?: TextValues): string {
    const template = this.strings[key] ?? DEFAULT_STRINGS[key];
    if (values === undefined) return template;
    return template.replace(/\{(\w+)\}/g, (whole, name: string) =>
      values[name] === undefined ? whole : String(values[name]),
    );
  }

  /** Epoch ms as a date and time in the portal's locale; an em dash for none. */
  formatTime(epochMs: number | null | undefined): string {
    if (epochMs === null || epochMs === undefined) return '—';
    return this.dateTime.format(epochMs);
  }

  /** Epoch ms as its date and clock time apart, for a narrow column that may put them on two lines. */
  formatTimeParts(epochMs: number): { date: string; time: string } {
    return { date: this.date.format(epochMs), time: this.time.format(epochMs) };
  }
}

/** The overrides that are strings of a known key: an attribute's JSON may hold anything. */
function onlyStrings(overrides: PortalStrings | null): Record<string, string> {
  if (overrides === null || typeof overrides !== 'object') return {};
  const kept: Record<string, string> = {};
  for (const [key, value] of Object.entries(overrides)) {
    if (typeof value === 'string' && Object.hasOwn(DEFAULT_STRINGS, key)) kept[key] = value;
  }
  return kept;
}

function validLocale(locale: string): string {
  try {
    return Intl.getCanonicalLocales(locale)[0] ?? 'en';
  } catch {
    return 'en';
  }
}

/** The English text every view starts with, until the portal element hands it its own. */
export const ENGLISH = new PortalText();
