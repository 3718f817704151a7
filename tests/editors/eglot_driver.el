;;; eglot_driver.el --- drive eglot through rune's review flow  -*- lexical-binding: t -*-

;; Runs in `emacs --batch' after the snippet of docs/getting-started.md was loaded, doing what
;; the docs tell a user to do: `M-x eglot', select the lines, `M-x eglot-code-actions' and pick
;; "Rune: Fix this", then for each review step go to the hunk's `rune' diagnostic (`C-h .' on
;; the one at point, else `M-x flymake-goto-next-error'), `M-x eglot-code-actions' and pick the
;; step's action, then save.  Only the user's answers are simulated (the completion menu picks
;; the wanted title, `read-string' types the reason, eglot's own "Server wants to edit"
;; question is answered as configured); requests, commands and the server's
;; workspace/applyEdit go through eglot and the snippet.  Parameters come from the JSON file
;; named by $EDITOR_TEST_CONFIG; the report goes to its `report' path, also on failure.

(require 'cl-lib)
(require 'subr-x)
(require 'json)
(require 'eglot)
(require 'flymake)

(defvar rune-test-config
  (let ((json-object-type 'alist) (json-array-type 'list))
    (json-read-file (getenv "EDITOR_TEST_CONFIG"))))

(defun rune-test-option (key) (alist-get key rune-test-config))

(defvar rune-test-step "start")
(defvar rune-test-offered nil "The titles of each code action menu, newest first.")
(defvar rune-test-pending nil)
(defvar rune-test-fix-result nil)
(defvar rune-test-verdict-status nil)
(defvar rune-test-confirmations nil "Eglot's own questions before it applied an edit.")
(defvar rune-test-messages nil "The server's window/showMessage texts, newest first.")
(defvar rune-test-cleared nil)
(defvar rune-test-statuses nil "(command status) of each accept / reject answer, newest first.")
(defvar rune-test-prompts nil "What the snippet asked the user to type, newest first.")
(defvar rune-test-hunks nil "Every rune diagnostic when the edit first showed.")
(defvar rune-test-floats nil "Per review step, the proposal as the echo area showed it; newest first.")
(defvar rune-test-echoes nil "Everything shown in the echo area, newest first.")
(defvar rune-test-modified nil)

(defun rune-test-wait (step predicate)
  (setq rune-test-step step)
  (let ((deadline (+ (float-time) (/ (rune-test-option 'wait_ms) 1000.0))))
    (while (not (funcall predicate))
      (when (> (float-time) deadline)
        (error "timed out after %s ms waiting for %s" (rune-test-option 'wait_ms) step))
      (accept-process-output nil 0.05))))

;; The user's pick in the code action menu: the wanted title, or nothing (an error).
(defvar rune-test-wanted nil)
(setq completing-read-function
      (lambda (_prompt collection &rest _)
        (let ((titles (mapcar (lambda (item) (if (consp item) (car item) item)) collection)))
          (push titles rune-test-offered)
          (or (car (member rune-test-wanted titles))
              (error "no code action titled %s; offered: %s"
                     rune-test-wanted (string-join titles ", "))))))

;; Eglot asks before applying a server's edit (`eglot-confirm-server-initiated-edits'): the
;; user says yes, unless the config says `confirm_server_edits: false'.
(advice-add 'y-or-n-p :override
            (lambda (prompt)
              (push prompt rune-test-confirmations)
              (not (eq (rune-test-option 'confirm_server_edits) :json-false))))

;; The reason the user types when the snippet asks why ("" when the step has none).
(defvar rune-test-reason nil)
(advice-add 'read-string :override
            (lambda (prompt &rest _)
              (push prompt rune-test-prompts)
              (or rune-test-reason "")))

(advice-add 'message :filter-return
            (lambda (text) (when (stringp text) (push text rune-test-echoes)) text))

;; Observe the commands eglot sends and what the server answers to them.
(defvar rune-test-commands nil "(request id . command) of each workspace/executeCommand.")
(defvar rune-test-command-errors nil "(command . error message), newest first.")

(advice-add 'jsonrpc-connection-send :before
            (lambda (_connection &rest message)
              (when (eq (plist-get message :method) :workspace/executeCommand)
                (push (cons (plist-get message :id)
                            (plist-get (plist-get message :params) :command))
                      rune-test-commands))))

(advice-add 'jsonrpc-connection-receive :before
            (lambda (_connection message)
              (let ((command (cdr (assoc (plist-get message :id) rune-test-commands)))
                    (result (plist-get message :result))
                    (error-object (plist-get message :error)))
                (when (equal (plist-get message :method) "window/showMessage")
                  (push (plist-get (plist-get message :params) :message) rune-test-messages))
                ;; Server requests number their ids on their own: only responses count here.
                (cond ((or (null command) (plist-get message :method)))
                      (error-object
                       (push (cons command (plist-get error-object :message))
                             rune-test-command-errors))
                      ((equal command "rune.fixThis")
                       (setq rune-test-fix-result result))
                      ((string-match-p "\\`rune\\.\\(accept\\|reject\\)" command)
                       (push (list command (plist-get result :status)) rune-test-statuses)
                       (when (member command '("rune.acceptEdit" "rune.rejectEdit"))
                         (setq rune-test-verdict-status (plist-get result :status))))))))

(defun rune-test-fix-error ()
  (cdr (assoc "rune.fixThis" rune-test-command-errors)))

(defun rune-test-lsp (diagnostic)
  (alist-get 'eglot-lsp-diag (flymake-diagnostic-data diagnostic)))

(defun rune-test-rune-diagnostics ()
  "The rune diagnostics of the buffer, in buffer order."
  (sort (cl-remove-if-not
         (lambda (diagnostic) (equal (plist-get (rune-test-lsp diagnostic) :source) "rune"))
         (flymake-diagnostics))
        (lambda (a b) (< (flymake-diagnostic-beg a) (flymake-diagnostic-beg b)))))

(defun rune-test-hunk-id (diagnostic)
  (plist-get (plist-get (rune-test-lsp diagnostic) :data) :hunkId))

(defun rune-test-diagnostic-of (hunk)
  "The diagnostic of hunk HUNK (any rune diagnostic when nil)."
  (cl-find-if (lambda (diagnostic) (or (null hunk) (equal (rune-test-hunk-id diagnostic) hunk)))
              (rune-test-rune-diagnostics)))

(defun rune-test-described (diagnostic)
  (let ((lsp (rune-test-lsp diagnostic)))
    `((line . ,(rune-test-line-of (flymake-diagnostic-beg diagnostic)))
      (end_line . ,(rune-test-line-of (1- (flymake-diagnostic-end diagnostic))))
      (severity . ,(nth (1- (plist-get lsp :severity)) '("error" "warning" "information" "hint")))
      (source . ,(plist-get lsp :source))
      (message . ,(flymake-diagnostic-text diagnostic))
      (hunk_id . ,(rune-test-hunk-id diagnostic)))))

(defun rune-test-at-point-p (diagnostic)
  (<= (flymake-diagnostic-beg diagnostic) (point) (flymake-diagnostic-end diagnostic)))

(defun rune-test-go-to (diagnostic)
  "Show DIAGNOSTIC's proposal as the docs say: `C-h .' when it is at point, else
`M-x flymake-goto-next-error'; return what the echo area showed."
  (setq rune-test-echoes nil)
  (if (rune-test-at-point-p diagnostic)
      (call-interactively #'display-local-help)
    (call-interactively #'flymake-goto-next-error)
    (unless (rune-test-at-point-p diagnostic)
      (error "the next diagnostic is on line %s, not the wanted one on line %s"
             (rune-test-line-of (point)) (rune-test-line-of (flymake-diagnostic-beg diagnostic)))))
  (car rune-test-echoes))

(defun rune-test-code-action (title)
  "What `M-x eglot-code-actions RET TITLE RET' does, from the keyboard."
  (setq rune-test-wanted title)
  (setq rune-test-step (format "the code action %s" title))
  (let ((last-nonmenu-event ?\r))
    (call-interactively #'eglot-code-actions)))

(defun rune-test-line-of (position)
  (save-excursion (goto-char position) (1- (line-number-at-pos))))

(defun rune-test-main ()
  (transient-mark-mode 1)
  (find-file (rune-test-option 'file))
  (call-interactively #'eglot)
  (rune-test-wait "eglot to manage the buffer"
                  (lambda () (and (bound-and-true-p eglot--managed-mode) (eglot-current-server))))

  (goto-char (point-min))
  (forward-line (rune-test-option 'line))
  (push-mark (line-beginning-position) t t)
  (goto-char (line-end-position))
  (rune-test-code-action "Rune: Fix this")
  (deactivate-mark)
  (rune-test-wait "the pending-edit diagnostic"
                  (lambda ()
                    (or (rune-test-rune-diagnostics) rune-test-fix-result (rune-test-fix-error))))
  (let ((shown (rune-test-rune-diagnostics)))
    (unless shown (error "the run ended without a pending-edit diagnostic"))
    (setq rune-test-pending (rune-test-described (car shown)))
    (setq rune-test-hunks (mapcar #'rune-test-described shown))
    (goto-char (flymake-diagnostic-beg (car shown))))
  (when (eq (rune-test-option 'show_diff) t)
    (rune-test-code-action "Show diff")
    (rune-test-wait "the diff"
                    (lambda () (cl-some (lambda (text) (string-match-p (regexp-quote "+++ ") text))
                                        rune-test-messages))))
  (dolist (step (rune-test-option 'steps))
    (let* ((hunk (alist-get 'hunk step))
           (answered (+ (length rune-test-statuses) (length rune-test-command-errors)))
           target)
      (rune-test-wait (format "the diagnostic of hunk %s" hunk)
                      (lambda () (setq target (rune-test-diagnostic-of hunk))))
      (push (rune-test-go-to target) rune-test-floats)
      (setq rune-test-reason (alist-get 'reason step))
      ;; A failed command is in the report (`command_errors'); the run result still tells
      ;; what became of the edit.
      (condition-case nil
          (rune-test-code-action (alist-get 'action step))
        (jsonrpc-error nil))
      (rune-test-wait (format "the answer to %s" (alist-get 'action step))
                      (lambda () (or (> (+ (length rune-test-statuses)
                                           (length rune-test-command-errors))
                                        answered)
                                     rune-test-fix-result (rune-test-fix-error))))))
  (rune-test-wait "the run result" (lambda () (or rune-test-fix-result (rune-test-fix-error))))
  (rune-test-wait "the rune diagnostics to clear" (lambda () (null (rune-test-rune-diagnostics))))
  (setq rune-test-cleared t)
  (setq rune-test-modified (buffer-modified-p))
  (save-buffer)
  (setq rune-test-step "done"))

(defun rune-test-server-log ()
  "What the language server wrote to stderr (eglot keeps it in a buffer)."
  (mapconcat (lambda (buffer) (with-current-buffer buffer (buffer-string)))
             (cl-remove-if-not (lambda (buffer) (string-match-p "stderr" (buffer-name buffer)))
                               (buffer-list))
             "\n"))

(defun rune-test-write-report (error-text)
  (let ((json-encoding-pretty-print nil))
    (with-temp-file (rune-test-option 'report)
      (insert
       (json-encode
        `((step . ,rune-test-step)
          (error . ,error-text)
          (offered . ,(vconcat (mapcar #'vconcat (reverse rune-test-offered))))
          (pending . ,rune-test-pending)
          (verdict_status . ,rune-test-verdict-status)
          (command_errors . ,(or rune-test-command-errors (make-hash-table)))
          (run_result . ,rune-test-fix-result)
          (cleared . ,(if rune-test-cleared t :json-false))
          (modified_before_save . ,(if rune-test-modified t :json-false))
          (confirmations . ,(vconcat (reverse rune-test-confirmations)))
          (messages . ,(vconcat (reverse rune-test-messages)))
          (statuses . ,(vconcat (mapcar #'vconcat (reverse rune-test-statuses))))
          (prompts . ,(vconcat (reverse rune-test-prompts)))
          (hunks . ,(vconcat rune-test-hunks))
          (floats . ,(vconcat (reverse rune-test-floats)))
          (server_log . ,(rune-test-server-log))))))))

(let ((failure (condition-case err
                   (progn (rune-test-main) nil)
                 (error (error-message-string err)))))
  (rune-test-write-report failure)
  (kill-emacs (if failure 1 0)))
