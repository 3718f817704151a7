-- Drives Neovim (0.7 and later) through the review flow of docs/getting-started.md, as a
-- user would: open the file, ask for code actions on the first line to fix and pick
-- "Rune: Fix this", then either (mode B) take the review steps on the `rune` diagnostics
-- (go to the hunk, open its float, code actions or code lenses, pick; a reason typed when
-- asked), or (mode
-- A, `confirm`) answer Neovim's own "Apply all changes?" prompt; then `:write`.
-- On 0.11+ the keys are the ones the docs name (`gra`, `]d`, `<C-W>d`, Neovim's default
-- mappings); on older versions the `:lua` calls the docs name.
-- Only the user's answers are simulated (vim.ui.select picks the wanted title, vim.ui.input
-- types the reason, vim.fn.confirm says Yes or No); requests, commands and the server's
-- workspace/applyEdit go through Neovim's own LSP client and the snippet's own commands.
-- Parameters come from the JSON file named by $EDITOR_TEST_CONFIG; the report goes to its
-- `report` path, also when a step fails or times out.

local config = vim.fn.json_decode(table.concat(vim.fn.readfile(vim.env.EDITOR_TEST_CONFIG), "\n"))
local defaults = vim.fn.has("nvim-0.11") == 1 -- gra, ]d and <C-W>d are mapped

local report = {
  step = "start",
  offered = {},
  cleared = false,
  command_errors = vim.empty_dict(),
  messages = {},
  confirmations = {},
  apply_answers = {},
  statuses = {},
  prompts = {},
  hunks = {},
  floats = {},
  inlay_hints = {},
  lenses = {},
}
local fix_result = nil

local function write_report()
  vim.fn.writefile({ vim.fn.json_encode(report) }, config.report)
end

local function wait_for(step, condition)
  report.step = step
  if not vim.wait(config.wait_ms, condition, 20) then
    error("timed out after " .. config.wait_ms .. " ms waiting for " .. step, 0)
  end
end

local function given(value)
  return value ~= vim.NIL and value or nil
end

local function press(keys)
  vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes(keys, true, false, true), "mx", false)
end

-- The menu a user would pick from: answer with the action titled `wanted`, or cancel.
-- (Errors are raised by `pick`, not here: this runs inside Neovim's response callback.)
local wanted, picked, found = nil, false, false
vim.ui.select = function(items, opts, on_choice)
  local titles, choice = {}, nil
  for _, item in ipairs(items) do
    local title = opts.format_item and opts.format_item(item) or tostring(item)
    table.insert(titles, title)
    if title == wanted then
      choice = item
    end
  end
  table.insert(report.offered, titles)
  picked, found = true, choice ~= nil
  on_choice(choice)
end

-- The reason the user types when the snippet asks why (nil: Esc, or nothing typed on 0.7).
local reason = nil
vim.ui.input = function(opts, on_confirm)
  table.insert(report.prompts, opts.prompt or "")
  on_confirm(reason)
end

-- Neovim 0.12 asks before it applies an edit whose change annotation needs confirmation (mode
-- A): the user answers as `confirm` says.
vim.fn.confirm = function(message, _choices, _default, _kind)
  table.insert(report.confirmations, message)
  return config.confirm == "yes" and 1 or 2
end

-- What Neovim answers to the server's workspace/applyEdit (0.12 says applied even after a No).
local apply_edit = vim.lsp.handlers["workspace/applyEdit"]
vim.lsp.handlers["workspace/applyEdit"] = function(err, params, ctx, handler_config)
  local answer = apply_edit(err, params, ctx, handler_config)
  table.insert(report.apply_answers, answer and answer.applied)
  return answer
end

-- Observe command results on their way to Neovim's own handler.
local execute_handler = vim.lsp.handlers["workspace/executeCommand"]
vim.lsp.handlers["workspace/executeCommand"] = function(err, result, ctx, handler_config)
  local command = ctx.params and ctx.params.command or "(unknown command)"
  if err then
    report.command_errors[command] = err.message
  elseif command == "rune.fixThis" then
    fix_result = result
  elseif command:match("^rune%.accept") or command:match("^rune%.reject") then
    table.insert(report.statuses, { command, result and result.status })
    if command == "rune.acceptEdit" or command == "rune.rejectEdit" then
      report.verdict_status = result and result.status
    end
  end
  if execute_handler then
    return execute_handler(err, result, ctx, handler_config)
  end
end

local show_message = vim.lsp.handlers["window/showMessage"]
vim.lsp.handlers["window/showMessage"] = function(err, result, ctx, handler_config)
  table.insert(report.messages, result.message)
  if show_message then
    return show_message(err, result, ctx, handler_config)
  end
end

-- `request` opens the code action menu, as the docs tell the user to.
local function pick(title, request)
  wanted, picked, found = title, false, false
  request()
  wait_for("the code action menu for " .. title, function()
    return picked
  end)
  if not found then
    local offered = report.offered[#report.offered]
    error("no code action titled " .. title .. "; offered: " .. table.concat(offered, ", "), 0)
  end
end

local function code_actions()
  if defaults then
    press("gra")
  else
    vim.lsp.buf.code_action()
  end
end

local function fix_ended()
  return fix_result ~= nil or report.command_errors["rune.fixThis"] ~= nil
end

local function rune_diagnostics(bufnr)
  local found = {}
  for _, diagnostic in ipairs(vim.diagnostic.get(bufnr)) do
    if diagnostic.source == "rune" then
      table.insert(found, diagnostic)
    end
  end
  table.sort(found, function(a, b)
    return a.lnum < b.lnum
  end)
  return found
end

local function hunk_id(diagnostic)
  local lsp = diagnostic.user_data and diagnostic.user_data.lsp
  return lsp and lsp.data and lsp.data.hunkId
end

-- The diagnostic of hunk `hunk` (any rune diagnostic when nil).
local function diagnostic_of(bufnr, hunk)
  for _, diagnostic in ipairs(rune_diagnostics(bufnr)) do
    if hunk == nil or hunk_id(diagnostic) == hunk then
      return diagnostic
    end
  end
  return nil
end

local function under_cursor(diagnostic)
  local line = vim.api.nvim_win_get_cursor(0)[1] - 1
  return diagnostic.lnum <= line and line <= diagnostic.end_lnum
end

local severity_names = { "error", "warning", "information", "hint" }

local function described(diagnostic)
  return {
    line = diagnostic.lnum,
    end_line = diagnostic.end_lnum,
    severity = severity_names[diagnostic.severity],
    source = diagnostic.source,
    message = diagnostic.message,
    hunk_id = hunk_id(diagnostic),
  }
end

-- Go to the diagnostic as the docs say: it is under the cursor, or the next one (`]d`).
local function go_to(bufnr, diagnostic)
  if under_cursor(diagnostic) then
    return
  end
  if defaults then
    press("]d")
  else
    vim.diagnostic.goto_next({ float = false })
  end
  if not under_cursor(diagnostic) then
    local line = vim.api.nvim_win_get_cursor(0)[1] - 1
    error(("the next diagnostic is on line %d, not the wanted one on line %d"):format(
      line,
      diagnostic.lnum
    ), 0)
  end
end

-- What the float at the cursor shows (`<C-W>d`), then closed again.
local function float_text()
  if defaults then
    press("<C-W>d")
  else
    vim.diagnostic.open_float()
  end
  for _, win in ipairs(vim.api.nvim_list_wins()) do
    if vim.api.nvim_win_get_config(win).relative ~= "" then
      local lines = vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(win), 0, -1, false)
      vim.api.nvim_win_close(win, true)
      return table.concat(lines, "\n")
    end
  end
  return nil
end

-- Neovim 0.10+: `:lua vim.lsp.inlay_hint.enable()`, then the proposed lines at the end of
-- the lines they replace, as (line, label).
local function inlay_hints(bufnr, count)
  vim.lsp.inlay_hint.enable(true, { bufnr = bufnr })
  local hints = {}
  wait_for("the inlay hints", function()
    hints = vim.lsp.inlay_hint.get({ bufnr = bufnr })
    return #hints >= count
  end)
  for _, item in ipairs(hints) do
    local label = item.inlay_hint.label
    if type(label) == "table" then
      local parts = {}
      for _, part in ipairs(label) do
        table.insert(parts, part.value)
      end
      label = table.concat(parts)
    end
    table.insert(report.inlay_hints, { item.inlay_hint.position.line, label })
  end
  table.sort(report.inlay_hints, function(a, b)
    return a[1] < b[1]
  end)
end

-- The code lenses the server offers now, as (line, title): asked directly, so that a Neovim
-- that does not advertise them (0.7) records what the server answers it too.
local function lenses(bufnr)
  local params = { textDocument = { uri = vim.uri_from_bufnr(bufnr) } }
  local answers = vim.lsp.buf_request_sync(bufnr, "textDocument/codeLens", params, config.wait_ms)
  for _, answer in pairs(answers or {}) do
    for _, lens in ipairs(answer.result or {}) do
      table.insert(report.lenses, { lens.range.start.line, lens.command and lens.command.title })
    end
  end
  table.sort(report.lenses, function(a, b)
    return a[1] < b[1] or (a[1] == b[1] and a[2] < b[2])
  end)
end

-- `:lua vim.lsp.codelens.refresh()` until the lenses over `diagnostic` are there; then the
-- menu of `:lua vim.lsp.codelens.run()` on its line is where the step picks.
local function lens_menu(bufnr, diagnostic)
  wait_for("the code lenses on line " .. diagnostic.lnum, function()
    vim.lsp.codelens.refresh({ bufnr = bufnr })
    for _, lens in ipairs(vim.lsp.codelens.get(bufnr)) do
      if lens.range.start.line == diagnostic.lnum then
        return true
      end
    end
    return false
  end)
  return vim.lsp.codelens.run
end

-- Mode B: the pending edit is one `rune` diagnostic per hunk; the steps decide it.
local function review_by_diagnostic(bufnr)
  wait_for("the pending-edit diagnostic", function()
    return #rune_diagnostics(bufnr) > 0 or fix_ended()
  end)
  local shown = rune_diagnostics(bufnr)
  report.run_result = fix_result
  if #shown == 0 then
    error("the run ended without a pending-edit diagnostic", 0)
  end
  report.pending = described(shown[1])
  for _, diagnostic in ipairs(shown) do
    table.insert(report.hunks, described(diagnostic))
  end

  if vim.fn.has("nvim-0.10") == 1 then
    inlay_hints(bufnr, #shown)
  end
  lenses(bufnr)

  vim.api.nvim_win_set_cursor(0, { shown[1].lnum + 1, 0 })
  if config.show_diff then
    pick("Show diff", code_actions)
    wait_for("the diff", function()
      for _, message in ipairs(report.messages) do
        if message:find("+++ ", 1, true) then
          return true
        end
      end
      return false
    end)
  end
  for index, step in ipairs(config.steps) do
    local hunk = given(step.hunk)
    local target
    wait_for("the diagnostic of hunk " .. tostring(hunk), function()
      target = diagnostic_of(bufnr, hunk)
      return target ~= nil
    end)
    go_to(bufnr, target)
    report.floats[index] = float_text() or vim.NIL
    reason = given(step.reason)
    local answered = #report.statuses
    pick(step.action, step.via == "lens" and lens_menu(bufnr, target) or code_actions)
    wait_for("the answer to " .. step.action, function()
      return #report.statuses > answered or fix_ended()
    end)
  end
end

local function main()
  vim.cmd("edit " .. vim.fn.fnameescape(config.file))
  local bufnr = vim.api.nvim_get_current_buf()
  wait_for("the rune client to attach", function()
    local clients = (vim.lsp.get_clients or vim.lsp.get_active_clients)()
    for _, client in ipairs(clients) do
      local attached = vim.lsp.buf_is_attached(bufnr, client.id)
      if client.name == "rune" and client.initialized and attached then
        return true
      end
    end
    return false
  end)

  -- The line selected: 0.7's code_action() only sends the cursor, range_code_action()
  -- sends the selection; later versions take the selection in code_action() itself.
  local fix_line = config.line + 1
  vim.api.nvim_win_set_cursor(0, { fix_line, 0 })
  if vim.fn.has("nvim-0.8") == 0 then
    local width = #vim.api.nvim_buf_get_lines(bufnr, config.line, fix_line, true)[1]
    pick("Rune: Fix this", function()
      vim.lsp.buf.range_code_action(nil, { fix_line, 0 }, { fix_line, width })
    end)
  else
    pick("Rune: Fix this", code_actions)
  end
  if given(config.confirm) then
    wait_for("the confirmation prompt", function()
      return #report.confirmations > 0 or fix_ended()
    end)
  else
    review_by_diagnostic(bufnr)
  end
  wait_for("the run result", fix_ended)
  report.run_result = fix_result
  wait_for("the rune diagnostics to clear", function()
    return #rune_diagnostics(bufnr) == 0
  end)
  report.cleared = true
  report.modified_before_save = vim.bo[bufnr].modified
  vim.cmd("write")
  report.step = "done"
end

local ok, err = xpcall(main, debug.traceback)
if not ok then
  report.error = tostring(err)
end
write_report()
vim.cmd(ok and "qall!" or "cquit! 1")
