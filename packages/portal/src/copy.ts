/**
 * Copies `value` to the clipboard. When the browser refuses (permissions, a page that is not secure), the
 * text of `node` is selected instead so that one key press copies it. Resolves with what to announce.
 */
export async function copyText(value: string, node: Element | null, what: string): Promise<string> {
  try {
    await navigator.clipboard.writeText(value);
    return 'Copied to the clipboard.';
  } catch {
    const selection = window.getSelection();
    if (node && selection) selection.selectAllChildren(node);
    return `Copying was not allowed here. The ${what} is selected: press Ctrl+C (⌘C on a Mac) to copy it.`;
  }
}
