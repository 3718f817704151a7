import * as vscode from "vscode";

/** The optional instruction: `""` to just fix what is there, `undefined` when dismissed. */
export async function askInstruction(): Promise<string | undefined> {
  const answer = await vscode.window.showInputBox({
    title: "Rune: Fix This",
    prompt: "What should change? Optional: press Enter to fix the problems in the selection.",
    placeHolder: "e.g. handle the empty list",
    ignoreFocusOut: true,
  });
  return answer?.trim();
}
