import { css } from 'lit';

/**
 * Styles every view shares. Colours, type and spacing come from CSS custom properties that a host sets
 * on `svc-webhooks-portal` (or any ancestor): they inherit through the shadow roots. The defaults meet
 * WCAG AA contrast on white.
 */
export const baseStyles = css`
  :host {
    display: block;
    font-family: var(--svc-wh-font, system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif);
    font-size: var(--svc-wh-font-size, 14px);
    line-height: 1.45;
    color: var(--svc-wh-color-text, #1d2330);
    --_accent: var(--svc-wh-color-accent, #2b50c8);
    --_accent-text: var(--svc-wh-color-accent-text, #ffffff);
    --_muted: var(--svc-wh-color-muted, #5a6272);
    --_border: var(--svc-wh-color-border, #c9ced8);
    --_surface: var(--svc-wh-color-surface, #ffffff);
    --_surface-alt: var(--svc-wh-color-surface-alt, #f4f6fa);
    --_danger: var(--svc-wh-color-danger, #b3261e);
    --_success: var(--svc-wh-color-success, #1b6e35);
    --_warning: var(--svc-wh-color-warning, #8a5300);
    --_radius: var(--svc-wh-radius, 6px);
    --_space: var(--svc-wh-space, 12px);
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
    color: #ffffff;
  }
  button:disabled {
    opacity: 0.6;
    cursor: not-allowed;
  }
  :focus-visible {
    outline: 3px solid var(--svc-wh-color-focus, #1a73e8);
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
    background: #fdecea;
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
