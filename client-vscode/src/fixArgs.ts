/**
 * The argument object of `rune.fixThis` (docs/interface.md#commands): `{uri, range?, instruction?,
 * diagnostics?}`, built from protocol-shaped values the caller converted with the language
 * client's code2ProtocolConverter.
 */

import type { Diagnostic, Range } from "vscode-languageclient";

export interface FixThisArgs {
  uri: string;
  range?: Range;
  instruction?: string;
  diagnostics?: Diagnostic[];
}

/** Pending-edit diagnostics the server published itself; they are not a problem to fix. */
const OWN_SOURCE = "rune";

export function buildFixArgs(
  uri: string,
  range: Range | undefined,
  instruction: string | undefined,
  diagnostics: readonly Diagnostic[],
): FixThisArgs {
  const args: FixThisArgs = { uri };
  if (range !== undefined) {
    args.range = range;
  }
  const trimmed = instruction?.trim() ?? "";
  if (trimmed !== "") {
    args.instruction = trimmed;
  }
  const under = range === undefined ? [...diagnostics] : diagnosticsUnder(diagnostics, range);
  const foreign = under.filter((d) => d.source !== OWN_SOURCE);
  if (foreign.length > 0) {
    args.diagnostics = foreign;
  }
  return args;
}

/** A cursor without a selection means its whole line: that is what a user points at. */
export function effectiveRange(selection: Range, lineLength: number): Range {
  const { start, end } = selection;
  if (start.line !== end.line || start.character !== end.character) {
    return selection;
  }
  return {
    start: { line: start.line, character: 0 },
    end: { line: start.line, character: lineLength },
  };
}

export function diagnosticsUnder(diagnostics: readonly Diagnostic[], range: Range): Diagnostic[] {
  return diagnostics.filter((d) => overlaps(d.range, range));
}

/** Closed-interval overlap, so a diagnostic touching the selection's edge counts. */
export function overlaps(a: Range, b: Range): boolean {
  return !before(a.end, b.start) && !before(b.end, a.start);
}

function before(p: Range["start"], q: Range["start"]): boolean {
  return p.line < q.line || (p.line === q.line && p.character < q.character);
}

/** The argument object of a server-side `rune.fixThis` (the code action's), or undefined. */
export function asFixThisArgs(value: unknown): FixThisArgs | undefined {
  if (typeof value !== "object" || value === null) {
    return undefined;
  }
  const candidate = value as Record<string, unknown>;
  if (typeof candidate.uri !== "string" || candidate.uri === "") {
    return undefined;
  }
  return candidate as unknown as FixThisArgs;
}
