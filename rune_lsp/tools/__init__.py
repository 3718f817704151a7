"""The tools the model sees, behind the loop's `ToolExecutor` port.

See docs/interface.md#tools-the-model-sees.

Entry points: `executor.WorkspaceTools`, `sandbox.Sandbox` / `validate_write_path`, and the
`documents.DocumentSource` protocol a front end implements to expose its open buffers.
Submodules are imported explicitly; nothing is re-exported here, so importing one tool does not
load the others.
"""
