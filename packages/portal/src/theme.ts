import { css } from 'lit';

/**
 * Styles every view shares. Colours, type and spacing come from CSS custom properties that a host sets
 * on `svc-webhooks-portal` (or any ancestor): they inherit through the shadow roots. Unset, they take
 * the portal's light or dark palette ({@link themeStyles}); both meet WCAG AA contrast.
 */
export const baseStyles = css`
  :host {
    display: block;
    font-family: var(--svc-wh-font, system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif);
    font-size: var(--svc-wh-font-size, 14px);
    line-height: 1.45;
    color: var(--svc-wh-color-text, var(--_auto-text, #1d2330));
    --_accent: var(--svc-wh-color-accent, var(--_auto-accent, #2b50c8));
    --_accent-text: var(--svc-wh-color-accent-text, var(--_auto-accent-text, #ffffff));
    --_muted: var(--svc-wh-color-muted, var(--_auto-muted, #5a6272));
    --_border: var(--svc-wh-color-border, var(--_auto-border, #c9ced8));
    --_surface: var(--svc-wh-color-surface, var(--_auto-surface, #ffffff));
    --_surface-alt: var(--svc-wh-color-surface-alt, var(--_auto-surface-alt, #f4f6fa));
    --_danger: var(--svc-wh-color-danger, var(--_auto-danger, #b3261e));
    --_success: var(--svc-wh-color-success, var(--_auto-success, #1b6e35));
    --_warning: var(--svc-wh-color-warning, var(--_auto-warning, #8a5300));
    --_radius: var(--svc-wh-radius, 6px);
    --_space: var(--svc-wh-space, 12px);
    --_focus: var(--svc-wh-color-focus, var(--_auto-focus, #1a73e8));
    --_danger-text: var(--_auto-danger-text, #ffffff);
    --_danger-surface: var(--_auto-danger-surface, #fdecea);
  }
  *,
  *::before,
  *::after {
    box-sizing: border-box;
  }
  h2,
  h3 {
    margin: 0 0 var(--_space);
    font-size: 1.15em;
  }
  h3 {
    font-size: 1em;
  }
  p {
    margin: 0 0 var(--_space);
  }
  .muted {
    color: var(--_muted);
  }
  .card {
    background: var(--_surface);
    border: 1px solid var(--_border);
    border-radius: var(--_radius);
    padding: calc(var(--_space) * 1.25);
    margin-bottom: var(--_space);
  }
  .row {
    display: flex;
    flex-wrap: wrap;
    gap: calc(var(--_space) * 0.75);
    align-items: flex-end;
  }
  label {
    display: flex;
    flex-direction: column;
    gap: 4px;
    font-weight: 600;
  }
  label.inline {
    flex-direction: row;
    align-items: center;
    font-weight: 400;
  }
  input,
  select,
  textarea {
    font: inherit;
    color: inherit;
    background: var(--_surface);
    border: 1px solid var(--_border);
    border-radius: var(--_radius);
    padding: 6px 8px;
    min-height: 36px;
    max-width: 100%;
  }
  input[type='checkbox'],
  input[type='radio'] {
    min-height: auto;
    width: 18px;
    height: 18px;
    padding: 0;
  }
  button {
    font: inherit;
    font-weight: 600;
    border-radius: var(--_radius);
    border: 1px solid var(--_accent);
    background: var(--_accent);
    color: var(--_accent-text);
    padding: 6px 14px;
    min-height: 36px;
    cursor: pointer;
  }
  button.secondary {
    background: var(--_surface);
    color: var(--_accent);
  }
  button.danger {
    background: var(--_danger);
    border-color: var(--_danger);
    color: var(--_danger-text);
  }
  button:disabled {
    opacity: 0.6;
    cursor: not-allowed;
  }
  :focus-visible {
    outline: 3px solid var(--_focus);
    outline-offset: 2px;
  }
  .badge {
    display: inline-block;
    padding: 1px 8px;
    border-radius: 999px;
    font-size: 0.85em;
    font-weight: 600;
    border: 1px solid currentColor;
  }
  .badge.success,
  .badge.healthy {
    color: var(--_success);
  }
  .badge.failed,
  .badge.disabled {
    color: var(--_danger);
  }
  .badge.pending,
  .badge.failing {
    color: var(--_warning);
  }
  /* Nothing to judge yet (an endpoint that never got a delivery): no colour claims a state. */
  .badge.idle {
    color: var(--_muted);
  }
  .state {
    padding: var(--_space);
    border-radius: var(--_radius);
    background: var(--_surface-alt);
  }
  .state.error {
    color: var(--_danger);
    background: var(--_danger-surface);
  }
  pre,
  code {
    font-family: var(--svc-wh-font-mono, ui-monospace, SFMono-Regular, Menlo, Consolas, monospace);
    font-size: 0.9em;
  }
  pre {
    background: var(--_surface-alt);
    border: 1px solid var(--_border);
    border-radius: var(--_radius);
    padding: var(--_space);
    overflow: auto;
    max-height: 24em;
    white-space: pre-wrap;
    word-break: break-word;
  }
  table {
    width: 100%;
    border-collapse: collapse;
  }
  th,
  td {
    text-align: left;
    padding: 6px 8px;
    border-bottom: 1px solid var(--_border);
    vertical-align: top;
  }
  th {
    font-size: 0.85em;
    color: var(--_muted);
  }
  .visually-hidden {
    position: absolute;
    width: 1px;
    height: 1px;
    overflow: hidden;
    clip: rect(0 0 0 0);
    white-space: nowrap;
  }
`;

/** The dark palette: each colour meets WCAG AA on the dark surfaces, as the light defaults do on white. */
const DARK_PALETTE = css`
    color-scheme: dark;
    --_auto-text: #e6e9ef;
    --_auto-muted: #a9b1c0;
    --_auto-accent: #8fa8ff;
    --_auto-accent-text: #10131a;
    --_auto-border: #444c5a;
    --_auto-surface: #1b1f27;
    --_auto-surface-alt: #252b35;
    --_auto-success: #6fd08c;
    --_auto-warning: #f0b35a;
    --_auto-danger: #ff8a80;
    --_auto-danger-text: #10131a;
    --_auto-danger-surface: #3a2224;
    --_auto-focus: #8ab4f8;
    --_auto-page: #12151b;
`;

/**
 * The palettes behind the custom properties a host leaves unset: light, or dark when the reader's system
 * prefers it (`prefers-color-scheme`) unless the element's `theme` attribute forces `light` or `dark`.
 * Set on the portal element; the views inherit them.
 */
export const themeStyles = css`
  /* Dark text needs a dark ground: the element brings its own, in case the page around it is light. */
  :host {
    color-scheme: light;
    background: var(--svc-wh-color-page, var(--_auto-page, transparent));
  }
  :host([theme='dark']) {
    ${DARK_PALETTE}
  }
  @media (prefers-color-scheme: dark) {
    :host(:not([theme='light'])) {
      ${DARK_PALETTE}
    }
  }
`;
