;;; eglot_driver.el --- drive eglot through rune's review flow  -*- lexical-binding: t -*-

;; Runs in `emacs --batch' after the snippet of docs/getting-started.md was loaded, doing what
;; the docs tell a user to do: `M-x eglot', select the bug, `M-x eglot-code-actions' and pick
;; "Rune: Fix this", then `M-x eglot-code-actions' on the `rune' diagnostic and pick the verdict,
;; then save.  Only the user's answers are simulated (the completion menu picks the wanted
;; title, eglot's own "Server wants to edit" question is answered yes); requests, commands and
;; the server's workspace/applyEdit go through eglot itself.  Parameters come from the JSON file
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
                      ((member command '("rune.acceptEdit" "rune.rejectEdit"))
                       (setq rune-test-verdict-status (plist-get result :status)))))))

(defun rune-test-fix-error ()
  (cdr (assoc "rune.fixThis" rune-test-command-errors)))

(defun rune-test-rune-diagnostics ()
  (cl-remove-if-not
   (lambda (diagnostic)
     (equal (plist-get (alist-get 'eglot-lsp-diag (flymake-diagnostic-data diagnostic)) :source)
            "rune"))
   (flymake-diagnostics)))

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
  (let ((pending (car (rune-test-rune-diagnostics))))
    (unless pending (error "the run ended without a pending-edit diagnostic"))
    (let ((lsp (alist-get 'eglot-lsp-diag (flymake-diagnostic-data pending))))
      (setq rune-test-pending
            `((line . ,(rune-test-line-of (flymake-diagnostic-beg pending)))
              (end_line . ,(rune-test-line-of (1- (flymake-diagnostic-end pending))))
              (severity . ,(nth (1- (plist-get lsp :severity))
                                '("error" "warning" "information" "hint")))
              (source . ,(plist-get lsp :source))
              (message . ,(flymake-diagnostic-text pending)))))
    (goto-char (flymake-diagnostic-beg pending)))
  (when (eq (rune-test-option 'show_diff) t)
    (rune-test-code-action "Show diff")
    (rune-test-wait "the diff"
                    (lambda () (cl-some (lambda (text) (string-match-p (regexp-quote "+++ ") text))
                                        rune-test-messages))))

  ;; A failed verdict command is in the report (`command_errors'); the run result still tells
  ;; what became of the edit.
  (condition-case nil
      (rune-test-code-action (rune-test-option 'verdict))
    (jsonrpc-error nil))
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
          (server_log . ,(rune-test-server-log))))))))

(let ((failure (condition-case err
                   (progn (rune-test-main) nil)
                 (error (error-message-string err)))))
  (rune-test-write-report failure)
  (kill-emacs (if failure 1 0)))
