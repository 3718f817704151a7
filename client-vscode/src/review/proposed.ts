/**
 * The Markdown of a hunk's comment-thread zone (review/render.ts): its proposed lines as an added
 * block, green like a diff's inserted lines and syntax-coloured in the document's language. Pure
 * text, so it is unit-tested without VS Code.
 *
 * The comments API renders a comment's body with VS Code's Markdown renderer. With `supportHtml`
 * its sanitizer keeps a `<span>` whose `style` is exactly `color:…;` / `background-color:…;` /
 * `display:inline-block;` / `border-radius:Npx;` (in that order; colours `#hex` or
 * `var(--vscode-…)`: `allowedMarkdownHtmlAttributes` in VS Code's
 * src/vs/base/browser/markdownRenderer.ts). Such a span, alone on its line, opens an HTML block;
 * after a blank line the fenced code block inside is Markdown again (CommonMark's HTML block
 * type 7), so it keeps its syntax colours, on the theme's own inserted-line green.
 */

/** The span's style: the theme's inserted-line colour (the same green a diff editor uses). */
export const ADDED_STYLE = "background-color:var(--vscode-diffEditor-insertedLineBackground);display:inline-block;border-radius:3px;";

/** The zone's Markdown for the proposed lines (each with or without its line break). */
export function proposedBlock(newLines: readonly string[], languageId: string): string {
  if (newLines.length === 0) {
    return "*The red lines above are removed; nothing replaces them.*";
  }
  const text = newLines.map((line) => line.replace(/\r?\n$/u, "")).join("\n");
  return `<span style="${ADDED_STYLE}">\n\n${fenced(text, languageId)}\n\n</span>`;
}

/** A code fence longer than any run of backticks in the text, so no line can close it. */
export function fenced(text: string, languageId: string): string {
  const longest = Math.max(0, ...[...text.matchAll(/`+/gu)].map((m) => m[0].length));
  const fence = "`".repeat(Math.max(3, longest + 1));
  return `${fence}${languageId}\n${text}\n${fence}`;
}
