// A cell starting with = + - @ (or a tab or return) is a formula to a spreadsheet: an attendee named
// "=HYPERLINK(…)" must stay text when an organizer opens an export (OWASP "CSV injection").
// Spreadsheets also read the full-width forms (＝＋－＠) as operators, and skip invisible characters
// (zero-width space, joiners, word joiner, byte order mark) and spaces before them.
const formulaStart = /^[\s\u200B-\u200D\u2060\uFEFF]*[=+\-@\uFF1D\uFF0B\uFF0D\uFF20]|^[\t\r]/;

/** The cell as a spreadsheet shows it as text: a leading quote when it would start a formula. */
export function spreadsheetSafe(cell: string): string {
  return formulaStart.test(cell) ? `'${cell}` : cell;
}
