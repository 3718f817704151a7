import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { offersFixThis } from "../../src/codeActions";

const at = (path: string, emptyRange: boolean, diagnostics = 0, scheme = "file") => ({ scheme, path, emptyRange, diagnostics });

describe("offersFixThis", () => {
  it("offers it on a selection or a diagnostic in a file", () => {
    assert.equal(offersFixThis(at("/ws/app.py", false)), true);
    assert.equal(offersFixThis(at("/ws/app.py", true, 1)), true);
  });

  it("not on a bare cursor without a problem", () => {
    assert.equal(offersFixThis(at("/ws/app.py", true)), false);
  });

  it("never in settings files, receipts or documents that are not files", () => {
    assert.equal(offersFixThis(at("/ws/.vscode/settings.json", false, 1)), false);
    assert.equal(offersFixThis(at("/home/u/.config/Code/User/settings.json", false)), false);
    assert.equal(offersFixThis(at("/ws/team.code-workspace", false)), false);
    assert.equal(offersFixThis(at("/home/u/.local/state/rune-lsp/receipts/0a1b2c3d4e5f.md", false)), false);
    assert.equal(offersFixThis(at("/ws/app.py", false, 0, "untitled")), false);
  });
});
