import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Diagnostic, Range } from "vscode-languageclient";
import { asFixThisArgs, buildFixArgs, diagnosticsUnder, effectiveRange, overlaps } from "../../src/fixArgs";

function range(sl: number, sc: number, el: number, ec: number): Range {
  return { start: { line: sl, character: sc }, end: { line: el, character: ec } };
}

function diagnostic(r: Range, message: string, source?: string): Diagnostic {
  return source === undefined ? { range: r, message } : { range: r, message, source };
}

describe("buildFixArgs", () => {
  const uri = "file:///ws/app.py";

  it("carries the range, the trimmed instruction and the diagnostics under the selection", () => {
    const inside = diagnostic(range(3, 0, 3, 5), "undefined name 'x'", "pyflakes");
    const outside = diagnostic(range(20, 0, 20, 5), "unused import", "pyflakes");
    const args = buildFixArgs(uri, range(2, 0, 4, 0), "  handle the empty list \n", [inside, outside]);
    assert.deepEqual(args, {
      uri,
      range: range(2, 0, 4, 0),
      instruction: "handle the empty list",
      diagnostics: [inside],
    });
  });

  it("leaves out an empty instruction, no diagnostics, and the server's own pending-edit diagnostics", () => {
    const own = diagnostic(range(3, 0, 3, 5), "pending edit", "rune");
    assert.deepEqual(buildFixArgs(uri, range(3, 0, 3, 9), "   ", [own]), { uri, range: range(3, 0, 3, 9) });
  });

  it("without a range sends every diagnostic of the document", () => {
    const d = diagnostic(range(40, 0, 40, 1), "E501");
    assert.deepEqual(buildFixArgs(uri, undefined, undefined, [d]), { uri, diagnostics: [d] });
  });
});

describe("effectiveRange", () => {
  it("keeps a real selection", () => {
    assert.deepEqual(effectiveRange(range(1, 2, 3, 4), 80), range(1, 2, 3, 4));
  });

  it("widens a bare cursor to its whole line", () => {
    assert.deepEqual(effectiveRange(range(7, 12, 7, 12), 30), range(7, 0, 7, 30));
  });
});

describe("overlaps / diagnosticsUnder", () => {
  it("counts touching edges as overlapping and disjoint ranges as not", () => {
    assert.equal(overlaps(range(1, 0, 1, 5), range(1, 5, 2, 0)), true);
    assert.equal(overlaps(range(1, 0, 1, 4), range(1, 5, 2, 0)), false);
    assert.equal(overlaps(range(5, 0, 5, 1), range(1, 0, 4, 99)), false);
    assert.equal(overlaps(range(0, 0, 9, 0), range(3, 3, 3, 3)), true);
  });

  it("filters by overlap", () => {
    const a = diagnostic(range(1, 0, 1, 1), "a");
    const b = diagnostic(range(9, 0, 9, 1), "b");
    assert.deepEqual(diagnosticsUnder([a, b], range(0, 0, 2, 0)), [a]);
  });
});

describe("asFixThisArgs", () => {
  it("accepts the code action's argument object", () => {
    const value = { uri: "file:///a.py", range: range(0, 0, 1, 0), diagnostics: [] };
    assert.equal(asFixThisArgs(value), value);
  });

  it("rejects anything without a uri", () => {
    assert.equal(asFixThisArgs(undefined), undefined);
    assert.equal(asFixThisArgs("file:///a.py"), undefined);
    assert.equal(asFixThisArgs({ uri: "" }), undefined);
    assert.equal(asFixThisArgs({ range: range(0, 0, 0, 0) }), undefined);
  });
});
