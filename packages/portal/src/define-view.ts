/** Registers a view's element once, so that two copies of the bundle on a page do not throw. */
export function defineView(tagName: string, element: CustomElementConstructor): void {
  if (!customElements.get(tagName)) customElements.define(tagName, element);
}
