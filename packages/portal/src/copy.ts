import type { PortalText } from './portal-text';

/**
 * Copies `value` to the clipboard. When the browser refuses (permissions, a page that is not secure), the
 * text of `node` is selected instead so that one key press copies it. Resolves with what to announce.
 */
export async function copyText(
  value: string,
  node: Element | null,
  /** What is copied, in the portal's words (`secret`, `code`, …). */
  what: string,
  text: PortalText,
): Promise<string> {
  try {
    await navigator.clipboard.writeText(value);
    return text.t('copy.done');
  } catch {
    const selection = window.getSelection();
    if (node && selection) selection.selectAllChildren(node);
    return text.t('copy.refused', { what });
  }
}
