/**
 * Where the server's `Rune: Fix this` code action is worth offering (the server offers it on
 * any range): on a selection or a diagnostic, in a file on disk, never in the extension's own
 * receipts or in settings files. No `vscode` import; server.ts's middleware asks it.
 */

export interface ActionPlace {
  readonly scheme: string;
  readonly path: string;
  readonly emptyRange: boolean;
  /** Diagnostics in the code action's context, Rune's own pending-edit ones excluded. */
  readonly diagnostics: number;
}

const SETTINGS_FILE = /(^|\/)(\.vscode\/[^/]+\.json|settings\.json|[^/]+\.code-workspace|keybindings\.json)$/u;
/** Receipts live in `<stateDir>/receipts/<runId>.{json,md}`; the default stateDir ends in rune-lsp. */
const RECEIPT = /\/receipts\/[0-9a-f]{6,}\.(json|md)$/iu;

export function offersFixThis(place: ActionPlace): boolean {
  if (place.scheme !== "file" || SETTINGS_FILE.test(place.path) || RECEIPT.test(place.path)) {
    return false;
  }
  return !place.emptyRange || place.diagnostics > 0;
}
