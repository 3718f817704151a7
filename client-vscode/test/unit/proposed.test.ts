import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ADDED_STYLE, fenced, proposedBlock } from "../../src/review/proposed";

describe("the proposed lines' zone (review/proposed.ts)", () => {
  it("puts the lines, whole and indented, in a fenced block of the document's language on the inserted-line green", () => {
    const block = proposedBlock(['    """Adds two."""\n', '    assert x is not None, "x is required"\n'], "python");
    assert.equal(
      block,
      `<span style="${ADDED_STYLE}">\n\n` + '```python\n    """Adds two."""\n    assert x is not None, "x is required"\n```' + "\n\n</span>",
    );
  });

  it("styles the span only with what VS Code's Markdown sanitizer keeps on a span, in its order", () => {
    // color?, background-color? (#hex or a theme variable), display:inline-block?, border-radius?
    assert.match(ADDED_STYLE, /^background-color:var\(--vscode(-[a-zA-Z0-9]+)+\);display:inline-block;border-radius:[0-9]+px;$/u);
    assert.ok(ADDED_STYLE.includes("diffEditor-insertedLineBackground"), "the green a diff editor uses for added lines");
  });

  it("keeps a blank line on each side of the fence, so the code inside the HTML block is Markdown again", () => {
    const [open, blank, fence] = proposedBlock(["x = 1"], "python").split("\n");
    assert.match(open ?? "", /^<span style="[^"]*">$/u);
    assert.equal(blank, "");
    assert.equal(fence, "```python");
    assert.ok(proposedBlock(["x = 1"], "python").endsWith("```\n\n</span>"));
  });

  it("says what a removal-only hunk does, with no HTML", () => {
    assert.equal(proposedBlock([], "python"), "*The red lines above are removed; nothing replaces them.*");
  });

  it("fences text holding backticks with a longer fence, so no line closes it early", () => {
    assert.equal(fenced("a = ```x```", "md"), "````md\na = ```x```\n````");
    assert.equal(fenced("plain", "py"), "```py\nplain\n```");
  });

  it("drops only the line breaks (\\n and \\r\\n), never the lines' own spaces", () => {
    assert.ok(proposedBlock(["  a  \r\n", "\tb\n"], "txt").includes("```txt\n  a  \n\tb\n```"));
  });
});
