/**
 * Gathers what `decideServer` needs: the settings, the Python extension's interpreter (and
 * whether it has rune_lsp), and `rune-lsp` on PATH.
 */

import { execFile } from "node:child_process";
import { accessSync, constants, statSync } from "node:fs";
import * as path from "node:path";
import { PythonExtension } from "@vscode/python-extension";
import * as vscode from "vscode";
import { DiscoveryFacts, findOnPath } from "./discovery";

const PYTHON_EXTENSION_ID = "ms-python.python";
/** The Python extension can take a while to activate; the server should not wait forever. */
const PYTHON_API_TIMEOUT_MS = 15_000;
const PROBE_TIMEOUT_MS = 15_000;

export async function gatherFacts(log: (line: string) => void): Promise<DiscoveryFacts> {
  const config = vscode.workspace.getConfiguration("rune.server");
  const configuredPath = expandHome(config.get<string>("path", "").trim());
  const extraArgs = config.get<string[]>("args", []).filter((a) => typeof a === "string");
  if (configuredPath !== "") {
    return {
      configuredPath,
      extraArgs,
      configuredPathExists: isFile(configuredPath),
      pythonHasRuneLsp: false,
    };
  }
  const pythonInterpreter = await selectedInterpreter(log);
  const pythonHasRuneLsp =
    pythonInterpreter !== undefined && (await canImportRuneLsp(pythonInterpreter, log));
  const runeLspOnPath = findOnPath(
    process.platform === "win32" ? "rune-lsp.exe" : "rune-lsp",
    process.env.PATH,
    isExecutable,
    path.delimiter,
    (dir, file) => path.join(dir, file),
  );
  return {
    configuredPath,
    extraArgs,
    configuredPathExists: false,
    pythonInterpreter,
    pythonHasRuneLsp,
    runeLspOnPath,
  };
}

async function selectedInterpreter(log: (line: string) => void): Promise<string | undefined> {
  if (vscode.extensions.getExtension(PYTHON_EXTENSION_ID) === undefined) {
    return undefined;
  }
  try {
    const api = await withTimeout(PythonExtension.api(), PYTHON_API_TIMEOUT_MS);
    const resource = vscode.workspace.workspaceFolders?.[0]?.uri;
    const active = api.environments.getActiveEnvironmentPath(resource);
    const resolved = await api.environments.resolveEnvironment(active);
    const executable = resolved?.executable.uri?.fsPath;
    log(`Python extension interpreter: ${executable ?? `(unresolved: ${active.path})`}`);
    return executable;
  } catch (error) {
    log(`Python extension not usable for discovery: ${String(error)}`);
    return undefined;
  }
}

function canImportRuneLsp(python: string, log: (line: string) => void): Promise<boolean> {
  const probe = "import importlib.util, sys; sys.exit(0 if importlib.util.find_spec('rune_lsp') else 1)";
  return new Promise((resolve) => {
    execFile(python, ["-c", probe], { timeout: PROBE_TIMEOUT_MS }, (error) => {
      const found = error === null;
      log(`${python} ${found ? "has" : "does not have"} rune_lsp`);
      resolve(found);
    });
  });
}

function isFile(candidate: string): boolean {
  try {
    return statSync(candidate).isFile();
  } catch {
    return false;
  }
}

function isExecutable(candidate: string): boolean {
  try {
    accessSync(candidate, constants.X_OK);
    return isFile(candidate);
  } catch {
    return false;
  }
}

function expandHome(value: string): string {
  const home = process.env.HOME ?? process.env.USERPROFILE;
  return value.startsWith("~/") && home !== undefined ? path.join(home, value.slice(2)) : value;
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      reject(new Error(`timed out after ${ms} ms`));
    }, ms);
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}
