-- Drives Neovim (0.7 and later) through the review flow of docs/getting-started.md, as a
-- user would: open the file, ask for code actions on the bug line and pick "Rune: Fix this",
-- then either (mode B) wait for the `rune` diagnostic, `vim.lsp.buf.code_action()` on it and
-- pick Show diff (when asked) and the verdict, or (mode A, `by_confirmation`) answer Neovim's
-- own "Apply all changes?" prompt; then `:write`.
-- Only the user's answers are simulated (vim.ui.select answers with the wanted title,
-- vim.fn.confirm with Yes or No); requests, commands and the server's workspace/applyEdit go
-- through Neovim's own LSP client.
-- Parameters come from the JSON file named by $EDITOR_TEST_CONFIG; the report goes to its
-- `report` path, also when a step fails or times out.

local config = vim.fn.json_decode(table.concat(vim.fn.readfile(vim.env.EDITOR_TEST_CONFIG), "\n"))

local report = {
  step = "start",
  offered = {},
  cleared = false,
  command_errors = vim.empty_dict(),
  messages = {},
  confirmations = {},
  apply_answers = {},
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

-- Observe command results on their way to Neovim's own handler.
local execute_handler = vim.lsp.handlers["workspace/executeCommand"]
vim.lsp.handlers["workspace/executeCommand"] = function(err, result, ctx, handler_config)
  local command = ctx.params and ctx.params.command or "(unknown command)"
  if err then
    report.command_errors[command] = err.message
  elseif command == "rune.fixThis" then
    fix_result = result
  elseif command == "rune.acceptEdit" or command == "rune.rejectEdit" then
    report.verdict_status = result and result.status
  end
  if execute_handler then
    return execute_handler(err, result, ctx, handler_config)
  end
end

-- Neovim 0.12 asks before it applies an edit whose change annotation needs confirmation (mode
-- A): the user answers Yes to "Accept edit" and No otherwise.
vim.fn.confirm = function(message, _choices, _default, _kind)
  table.insert(report.confirmations, message)
  return config.verdict == "Accept edit" and 1 or 2
end

-- What Neovim answers to the server's workspace/applyEdit (0.12 says applied even after a No).
local apply_edit = vim.lsp.handlers["workspace/applyEdit"]
vim.lsp.handlers["workspace/applyEdit"] = function(err, params, ctx, handler_config)
  local answer = apply_edit(err, params, ctx, handler_config)
  table.insert(report.apply_answers, answer and answer.applied)
  return answer
end

local show_message = vim.lsp.handlers["window/showMessage"]
vim.lsp.handlers["window/showMessage"] = function(err, result, ctx, handler_config)
  table.insert(report.messages, result.message)
  if show_message then
    return show_message(err, result, ctx, handler_config)
  end
end

-- `request` asks for the code actions, as the docs tell the user to.
local function pick(title, request)
  wanted, picked, found = title, false, false
  request()
  wait_for("the code action menu", function()
    return picked
  end)
  if not found then
    local offered = report.offered[#report.offered]
    error("no code action titled " .. title .. "; offered: " .. table.concat(offered, ", "), 0)
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
  return found
end

local severity_names = { "error", "warning", "information", "hint" }

-- Mode B: the pending edit is a `rune` diagnostic; its code actions decide it.
local function review_by_diagnostic(bufnr)
  wait_for("the pending-edit diagnostic", function()
    return #rune_diagnostics(bufnr) > 0 or fix_ended()
  end)
  local pending = rune_diagnostics(bufnr)[1]
  report.run_result = fix_result
  if not pending then
    error("the run ended without a pending-edit diagnostic", 0)
  end
  report.pending = {
    line = pending.lnum,
    end_line = pending.end_lnum,
    severity = severity_names[pending.severity],
    source = pending.source,
    message = pending.message,
  }

  vim.api.nvim_win_set_cursor(0, { pending.lnum + 1, 0 })
  if config.show_diff then
    pick("Show diff", vim.lsp.buf.code_action)
    wait_for("the diff", function()
      for _, message in ipairs(report.messages) do
        if message:find("+++ ", 1, true) then
          return true
        end
      end
      return false
    end)
  end
  pick(config.verdict, vim.lsp.buf.code_action)
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

  -- The bug line selected: 0.7's code_action() only sends the cursor, range_code_action()
  -- sends the selection; later versions take the selection in code_action() itself.
  local bug_line = config.line + 1
  vim.api.nvim_win_set_cursor(0, { bug_line, 0 })
  if vim.fn.has("nvim-0.8") == 0 then
    local width = #vim.api.nvim_buf_get_lines(bufnr, config.line, bug_line, true)[1]
    pick("Rune: Fix this", function()
      vim.lsp.buf.range_code_action(nil, { bug_line, 0 }, { bug_line, width })
    end)
  else
    pick("Rune: Fix this", vim.lsp.buf.code_action)
  end
  if config.by_confirmation then
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
