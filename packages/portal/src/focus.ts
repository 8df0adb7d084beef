import type { LitElement } from 'lit';

/**
 * Moves the focus to `selector` in the view's shadow root once its pending render is done. An action
 * disables its button while it runs, which drops the focus to `<body>` (WCAG 2.4.3): each action then
 * puts it on its outcome, a message made focusable with `tabindex="-1"`. Nothing happens when the
 * element is not rendered.
 */
export async function focusWhenRendered(view: LitElement, selector: string): Promise<void> {
  await view.updateComplete;
  view.renderRoot.querySelector<HTMLElement>(selector)?.focus();
}
