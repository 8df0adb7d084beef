/** A step of the demo did not behave as expected: the demo stops and exits 1. */
export class DemoCheckFailed extends Error {
  override name = 'DemoCheckFailed';
}

/** Prints a numbered section title. */
export function section(title: string): void {
  console.log(`\n${title}`);
}

/** Prints an indented detail line (receiver log, a table row). */
export function detail(line: string): void {
  console.log(`    ${line}`);
}

/**
 * Asserts one expectation of the demo: prints `✔ what` when it holds, throws
 * {@link DemoCheckFailed} with what was seen instead when it does not.
 */
export function check(condition: boolean, what: string, seen?: unknown): void {
  if (!condition) {
    const shown = seen === undefined ? '' : `\n      saw: ${JSON.stringify(seen)}`;
    throw new DemoCheckFailed(`${what}${shown}`);
  }
  console.log(`  ✔ ${what}`);
}
